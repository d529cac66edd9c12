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
    let gate: DispatchGate?
    /// Told about every async action and graph started through this target (a test store's).
    let tracker: (any DispatchTracker<State>)?
    /// The owner whose work the async actions and graphs started through this target are (a
    /// ``WorkOwner``'s target): they end when it ends.
    let owner: OwnerCore?

    init(
        backend: any StoreBackend<State>, gate: DispatchGate? = nil, owner: OwnerCore? = nil,
        tracker: (any DispatchTracker<State>)? = nil
    ) {
        self.backend = backend
        self.gate = gate
        self.tracker = tracker
        self.owner = owner
    }

    /// A target that tells `tracker` about the work started through it.
    package init(store: Store<State>, tracker: any DispatchTracker<State>) {
        self.init(backend: store.core, tracker: tracker)
    }

    /// This target without its owner: what is dispatched through it is the app's work (the
    /// bookkeeping a query observation shares with other screens, which must outlive this one's).
    package var withoutOwner: DispatchTarget<State> {
        DispatchTarget(backend: backend, gate: gate, tracker: tracker?.withoutOwner)
    }

    /// When this target has an owner and it has ended, reports that `what` was refused (a
    /// ``StoreDiagnostic/Kind/dispatchRefusedByOwner``) and returns `true`: the caller starts
    /// nothing, as the owner refuses an async action or a graph. `false` otherwise, with no report.
    package func refusesForEndedOwner(_ what: @autoclosure () -> String) -> Bool {
        guard let owner, owner.isEnded else { return false }
        backend.host.report(
            .dispatchRefusedByOwner,
            "\(what()) was started through the owner \"\(owner.name)\" after it ended; it was refused.")
        return true
    }

    /// Makes other work started through this target end with its owner, if it has one: `end` is
    /// called when the owner ends, or at once if it has ended. `isDone` says that the work ended by
    /// itself (the owner forgets it then). Does nothing for a target without an owner.
    package func endWithOwner(_ end: @escaping @Sendable () -> Void, isDone: @escaping @Sendable () -> Bool) {
        guard let owner else { return }
        if owner.adopt(OwnerCore.OwnedWork(end: end, isDone: isDone)) == nil { end() }
    }

    func dispatch(_ action: some Action) {
        if let gate {
            backend.dispatch(action, admit: { gate.isOpen })
        } else {
            backend.dispatch(action, admit: nil)
        }
    }

    func dispatchAsync<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        let task =
            if let owner {
                owner.startAsync("\(A.self)", host: backend.host) { gate, onEnd in
                    backend.dispatchAsync(action, gate: gate, onEnd: onEnd)
                }
            } else {
                backend.dispatchAsync(action)
            }
        tracker?.track(task, named: "\(A.self)")
        return task
    }

    func dispatchAsync<A: AsyncAction>(
        _ action: A, id: some Hashable & Sendable, policy: InFlightPolicy
    ) -> ActionTask<A.Response> where A.State == State {
        let workID = WorkID(id)
        let task =
            if let owner {
                owner.startAsync("\(A.self)", host: backend.host) { gate, onEnd in
                    backend.dispatchAsync(action, id: workID, policy: policy, gate: gate, onEnd: onEnd)
                }
            } else {
                backend.dispatchAsync(action, id: workID, policy: policy, gate: nil, onEnd: nil)
            }
        tracker?.track(task, named: "\(A.self) (id \(id))")
        return task
    }

    func dispatchGraph(_ graph: ActionGraph<State>) -> GraphRun<State> {
        let run = backend.dispatchGraph(graph, owner: owner)
        tracker?.track(run)
        return run
    }

    func dispatchGraph(
        _ graph: ActionGraph<State>, id: some Hashable & Sendable, policy: InFlightPolicy
    ) -> GraphRun<State> {
        let run = backend.dispatchGraph(graph, id: WorkID(id), policy: policy, owner: owner)
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
    /// This tracker for the app's work, when it follows an owner's: no longer the owner's.
    var withoutOwner: any DispatchTracker<State> { get }
}

/// Dispatches through a given target: how another library of this package dispatches through
/// a ``DispatchTarget`` it changed (``DispatchTarget/withoutOwner``).
package struct TargetDispatcher<State: Sendable>: ActionDispatcher {
    package let dispatchTarget: DispatchTarget<State>

    package init(_ target: DispatchTarget<State>) {
        self.dispatchTarget = target
    }
}
