/// Whether work may still reach the state: asked right before each sync action the work dispatches
/// through its context reaches the reducer, under the store's lock, so that once the work was
/// cancelled nothing it dispatches is applied (see `DispatchTarget.dispatch`).
///
/// One of the store's three kinds of gate, not a protocol: every payload is a reference, so a
/// context that holds a gate is copied and destroyed with retains and releases. An existential
/// would make each `ActionContext<State>` a value that code generic over the state copies and
/// destroys through its metadata, looked up at every async node.
enum DispatchGate: Sendable {
    /// An async action's, or any work dispatched with an id or under an owner.
    case cancellation(CancellationGate)
    /// An async graph node's (see ``NodeGate``).
    case node(NodeGate)
    /// A shared call's (see ``JoinerGates``).
    case sharedCall(JoinerGates)

    /// Whether the work was neither cancelled nor replaced.
    var isOpen: Bool {
        switch self {
        case .cancellation(let gate): gate.isOpen
        case .node(let gate): gate.isOpen
        case .sharedCall(let gate): gate.isOpen
        }
    }
}

/// The gate of an async node's context: open until the node ends `.cancelled` (by its run's
/// `cancel()`, which a later dispatch under the run's id and `cancel(id:)` call too, or by the end
/// of the owner it does not outlive). A call that ignores its cancellation and answers anyway
/// cannot reach the state through its context: its run's sync nodes were already dropped.
struct NodeGate: Sendable {
    let run: LockedValue<RunLockedState>
    let node: Int
    /// For the context of one attempt of a node with a timeout or a retry policy, the attempt's
    /// number (``AttemptStart/attempt``): closed also once a later attempt started or the node failed.
    var attempt: Int? = nil

    // The run's lock is taken under the store's, as for a fallback's admission; a run never takes
    // the store's lock while it holds its own.
    var isOpen: Bool { run.withLock { $0.machine.admitsDispatches(from: node, attempt: attempt) } }
}
