/// A store seen through a key path: its state is a part of the root store's state, and everything
/// it does goes to the root store (one state, one pipeline, one order of commits).
final class ScopeCore<Root: Sendable, Child: Sendable>: StoreBackend {
    let root: StoreCore<Root>
    /// Reads the child's state out of the root's: the key path, or the key paths of nested scopes.
    /// Only reading: the child's state changes through the root reducer, like every state.
    let read: @Sendable (Root) -> Child

    init(root: StoreCore<Root>, read: @escaping @Sendable (Root) -> Child) {
        self.root = root
        self.read = read
    }

    var host: any RunHost { root }
    var currentState: Child { read(root.currentState) }
    var isClosed: Bool { root.isClosed }
    var options: StoreOptions { root.options }

    func dispatch(_ action: any Action, admit: (@Sendable () -> Bool)?) {
        root.dispatch(action, admit: admit)
    }

    func dispatchAsync<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == Child {
        root.startAsync(action, context: ActionContext(backend: self))
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, id: WorkID, policy: InFlightPolicy, gate: CancellationGate?, onEnd: (@Sendable () -> Void)?
    ) -> ActionTask<A.Response> where A.State == Child {
        root.startAsync(action, id: id, policy: policy, gate: gate, onEnd: onEnd) { gate in
            ActionContext(backend: self, gate: .cancellation(gate))
        }
    }

    func dispatchGraph(_ graph: ActionGraph<Child>, owner: OwnerCore?) -> GraphRun<Child> {
        root.startGraph(graph, backend: self, owner: owner)
    }

    func dispatchGraph(_ graph: ActionGraph<Child>, id: WorkID, policy: InFlightPolicy, owner: OwnerCore?)
        -> GraphRun<Child>
    {
        root.startGraph(graph, backend: self, id: id, policy: policy, owner: owner)
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, gate: CancellationGate, onEnd: @escaping @Sendable () -> Void
    ) -> ActionTask<A.Response> where A.State == Child {
        root.startAsync(action, context: ActionContext(backend: self, gate: .cancellation(gate)), onEnd: onEnd)
    }

    func cancelWork(id: WorkID) {
        root.cancelWork(id: id)
    }

    func dispatchShared<A: AsyncAction>(
        _ action: A, key: SharedCallKey, context: ActionContext<A.State>
    ) -> ActionTask<A.Response> where A.State == Child {
        root.dispatchShared(action, key: key, context: context)
    }

    func subscribe(receive: @escaping @Sendable (Child) -> Void, onStoreClosed: (@Sendable () -> Void)?)
        -> Subscription
    {
        let read = read
        return root.subscribe(receive: { receive(read($0)) }, onStoreClosed: onStoreClosed)
    }

    func scope<Grandchild: Sendable>(_ path: WritableKeyPath<Child, Grandchild> & Sendable)
        -> any StoreBackend<Grandchild>
    {
        let read = read
        return ScopeCore<Root, Grandchild>(root: root, read: { read($0)[keyPath: path] })
    }
}
