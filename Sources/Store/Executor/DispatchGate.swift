/// Whether work may still reach the state: asked right before each sync action the work dispatches
/// through its context reaches the reducer, under the store's lock, so that once the work was
/// cancelled nothing it dispatches is applied (see `DispatchTarget.dispatch`).
protocol DispatchGate: Sendable {
    /// Whether the work was neither cancelled nor replaced.
    var isOpen: Bool { get }
}

extension CancellationGate: DispatchGate {}

/// The gate of an async node's context: open until the node ends `.cancelled` (by its run's
/// `cancel()`, which a later dispatch under the run's id and `cancel(id:)` call too, or by the end
/// of the owner it does not outlive). A call that ignores its cancellation and answers anyway
/// cannot reach the state through its context: its run's sync nodes were already dropped.
struct NodeGate: DispatchGate {
    let run: LockedValue<RunLockedState>
    let node: Int

    // The run's lock is taken under the store's, as for a fallback's admission; a run never takes
    // the store's lock while it holds its own.
    var isOpen: Bool { run.withLock { $0.machine.admitsDispatches(from: node) } }
}
