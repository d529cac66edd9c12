/// What a context, a scoped store and a graph's nodes reach a store through, typed by the state
/// they see: the store's core itself, or a scope of it on a part of its state (`ScopeCore`).
protocol StoreBackend<State>: AnyObject, Sendable {
    associatedtype State: Sendable
    /// The store whose pipeline, registry and options the work uses.
    var host: any RunHost { get }
    var currentState: State { get }
    var isClosed: Bool { get }
    var options: StoreOptions { get }
    func dispatch(_ action: any Action, admit: (@Sendable () -> Bool)?)
    func dispatchAsync<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State
    /// Starts `action` under `id`; an owner's dispatch gives the gate its end closes, and the
    /// closure called once the action's task ended (see `startAsync(_:context:onEnd:)`).
    func dispatchAsync<A: AsyncAction>(
        _ action: A, id: WorkID, policy: InFlightPolicy, gate: CancellationGate?, onEnd: (@Sendable () -> Void)?
    ) -> ActionTask<A.Response> where A.State == State
    /// Starts `graph`; as work of `owner` when given, which ends it when the owner ends (or refuses
    /// it if the owner has ended, before any of its nodes runs).
    func dispatchGraph(_ graph: ActionGraph<State>, owner: OwnerCore?) -> GraphRun<State>
    /// Starts `graph` under `id`, as work of `owner` when given (see `dispatchGraph(_:owner:)`).
    func dispatchGraph(_ graph: ActionGraph<State>, id: WorkID, policy: InFlightPolicy, owner: OwnerCore?)
        -> GraphRun<State>
    /// Starts `action` with a context whose dispatches `gate` admits (an owner's); `onEnd` is called
    /// once its task's body has ended, inside that task (at once if the action is not started).
    func dispatchAsync<A: AsyncAction>(
        _ action: A, gate: CancellationGate, onEnd: @escaping @Sendable () -> Void
    ) -> ActionTask<A.Response> where A.State == State
    func cancelWork(id: WorkID)
    /// Joins the call of a ``KeyedAsyncAction`` in flight under `key`, or starts it (an async graph
    /// node's attempt: its context is the node's).
    func dispatchShared<A: AsyncAction>(
        _ action: A, key: SharedCallKey, context: ActionContext<A.State>
    ) -> ActionTask<A.Response> where A.State == State
    func subscribe(receive: @escaping @Sendable (State) -> Void, onStoreClosed: (@Sendable () -> Void)?)
        -> Subscription
    /// A backend on a part of this one's state.
    func scope<Child: Sendable>(_ path: WritableKeyPath<State, Child> & Sendable) -> any StoreBackend<Child>
}

extension StoreCore: RunHost, StoreBackend {
    var host: any RunHost { self }

    func dispatchAsync<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        startAsync(action, context: ActionContext(core: self))
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, id: WorkID, policy: InFlightPolicy, gate: CancellationGate?, onEnd: (@Sendable () -> Void)?
    ) -> ActionTask<A.Response> where A.State == State {
        startAsync(action, id: id, policy: policy, gate: gate, onEnd: onEnd) { gate in
            ActionContext(core: self, gate: gate)
        }
    }

    func dispatchGraph(_ graph: ActionGraph<State>, owner: OwnerCore?) -> GraphRun<State> {
        startGraph(graph, backend: self, owner: owner)
    }

    func dispatchGraph(_ graph: ActionGraph<State>, id: WorkID, policy: InFlightPolicy, owner: OwnerCore?)
        -> GraphRun<State>
    {
        startGraph(graph, backend: self, id: id, policy: policy, owner: owner)
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, gate: CancellationGate, onEnd: @escaping @Sendable () -> Void
    ) -> ActionTask<A.Response> where A.State == State {
        startAsync(action, context: ActionContext(core: self, gate: gate), onEnd: onEnd)
    }

    func scope<Child: Sendable>(_ path: WritableKeyPath<State, Child> & Sendable) -> any StoreBackend<Child> {
        ScopeCore(root: self, read: { $0[keyPath: path] })
    }
}

extension StoreCore {
    /// Starts `graph` in this store's pipeline; its nodes see `backend` (this store, or a scope).
    /// A durable run's `durable` journal observes it; `owner`, when given, ends it (or refuses it:
    /// then it is cancelled before it starts, with a diagnostic).
    func startGraph<S: Sendable>(
        _ graph: ActionGraph<S>, backend: any StoreBackend<S>, durable: DurableRunJournal? = nil,
        owner: OwnerCore? = nil
    ) -> GraphRun<S> {
        let refused = refusesDispatch(of: graph.storage)
        if durable == nil, owner == nil, bornFinished(graph.storage, refused: refused) {
            return GraphRun(host: self, backend: backend, storage: graph.storage, time: runTime, bornFinished: true)
        }
        return startRun(graph.storage, backend: backend, durable: durable, owner: owner, refused: refused)
    }

    /// `startGraph(graph, backend: self)`, answering `finished` (a run of this store born finished,
    /// see `bornFinishedRun()`) when the graph is born finished.
    func dispatchGraph(_ graph: ActionGraph<State>, orBornFinished finished: GraphRun<State>) -> GraphRun<State> {
        let refused = refusesDispatch(of: graph.storage)
        if bornFinished(graph.storage, refused: refused) { return finished }
        return startRun(graph.storage, backend: self, durable: nil, owner: nil, refused: refused)
    }

    /// A run of a graph with no nodes, born finished: no machine, registration, task or waiter.
    func bornFinishedRun() -> GraphRun<State> {
        GraphRun(host: self, backend: self, storage: GraphStorage(), time: runTime, bornFinished: true)
    }

    /// Whether a graph of `storage`, dispatched now from code that was not `refused`, with no
    /// journal and no owner, is born finished. A graph with no nodes finishes as it starts: unless
    /// someone watches it start and finish (event observers, an owner, a journal) or the store is
    /// gone (a diagnostic says so), it needs no machine, registration, task, pipeline or waiter.
    private func bornFinished(_ storage: GraphStorage, refused: Bool) -> Bool {
        !refused && storage.count == 0 && acceptsUnobservedWork
    }

    /// Whether this thread runs pure code, which may not dispatch a graph of `storage` (reported).
    private func refusesDispatch(of storage: GraphStorage) -> Bool {
        refusesDispatchFromPureCode("a graph of \(storage.count) nodes", "it was cancelled")
    }

    /// Starts a run of `storage` that is not born finished (`startGraph`); one `refused` is
    /// cancelled at once.
    private func startRun<S: Sendable>(
        _ storage: GraphStorage, backend: any StoreBackend<S>, durable: DurableRunJournal?, owner: OwnerCore?,
        refused: Bool
    ) -> GraphRun<S> {
        let run = GraphRun(
            host: self, backend: backend, storage: storage, time: runTime, durable: durable, owner: owner?.name)
        if refused {
            run.observe(ifStoreIsObserved: hasEventObservers)
            run.cancel()
            return run
        }
        if refusesForOwner(run, owner) { return run }
        run.start(atCreation: true)
        return run
    }

    /// Adopts `run` as `owner`'s work before it starts; when the owner refuses it, reports why and
    /// cancels the run (true).
    func refusesForOwner<S: Sendable>(_ run: GraphRun<S>, _ owner: OwnerCore?) -> Bool {
        guard let owner, let refusal = owner.adopt(run) else { return false }
        report(.dispatchRefusedByOwner, refusal)
        run.observe(ifStoreIsObserved: hasEventObservers)
        run.cancel()
        return true
    }
}
