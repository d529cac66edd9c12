/// Where an `ActionDispatcher`'s actions go: the store, or the scope of a store, they reach, and
/// the rules of the dispatcher they come from.
// SPI, not `package`: it is the type of a requirement of the public `ActionDispatcher`, which Swift
// allows only for a public or SPI type. As SPI, apps do not see it, and only this package's libraries
// (which import `OresReduxInternals`) can conform a type to `ActionDispatcher` and `StoreProtocol`.
@_spi(OresReduxInternals)
public struct DispatchTarget<State: Sendable>: Sendable {
    /// The store, or the scope of a store, the actions reach.
    let backend: any StoreBackend<State>
    /// Closed once the work this target belongs to was cancelled: its sync dispatches are dropped.
    let gate: CancellationGate?
    /// Told about every async action and graph started through this target (a test store's).
    let tracker: (any DispatchTracker<State>)?

    init(backend: any StoreBackend<State>, gate: CancellationGate? = nil) {
        self.backend = backend
        self.gate = gate
        self.tracker = nil
    }

    /// A target that tells `tracker` about the work started through it.
    package init(store: Store<State>, tracker: any DispatchTracker<State>) {
        self.backend = store.core
        self.gate = nil
        self.tracker = tracker
    }

    func dispatch(_ action: some Action) {
        if let gate {
            backend.dispatch(action, admit: { gate.isOpen })
        } else {
            backend.dispatch(action, admit: nil)
        }
    }

    func dispatchAsync<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        let task = backend.dispatchAsync(action)
        tracker?.track(task, named: "\(A.self)")
        return task
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, id: some Hashable & Sendable, policy: InFlightPolicy
    ) -> ActionTask<A.Response> where A.State == State {
        let task = backend.dispatchAsync(action, id: WorkID(id), policy: policy)
        tracker?.track(task, named: "\(A.self) (id \(id))")
        return task
    }

    func dispatchGraph(_ graph: ActionGraph<State>) -> GraphRun<State> {
        let run = backend.dispatchGraph(graph)
        tracker?.track(run)
        return run
    }

    func dispatchGraph(
        _ graph: ActionGraph<State>, id: some Hashable & Sendable, policy: InFlightPolicy
    ) -> GraphRun<State> {
        let run = backend.dispatchGraph(graph, id: WorkID(id), policy: policy)
        tracker?.track(run)
        return run
    }
}

/// What a test store learns of the work started through its target, so that it waits for it.
package protocol DispatchTracker<State>: Sendable {
    associatedtype State: Sendable
    /// An async action started; `name` says which, in failure messages.
    func track<Response: Sendable>(_ task: ActionTask<Response>, named name: String)
    /// A graph run started.
    func track(_ run: GraphRun<State>)
}
