/// Cancels a task that may not exist yet, and tells whether its work may still reach the state: the
/// store's one cancel-before-attach gate (an async action's task, work dispatched with an id, a
/// shared call).
///
/// Work is created, then its task attached; a ``cancel()`` that comes in between is not lost: the
/// task is cancelled as it is attached. Work dispatched with an id also asks ``isOpen`` right before
/// each of its dispatches reaches the reducer, so a stale response never reaches the state once it
/// was cancelled or replaced (by a later dispatch with the same id, `cancel(id:)`, or its
/// ``ActionTask``).
final class CancellationGate: Sendable {
    private struct Gate {
        var isCancelled = false
        var isTaskCancelled: (@Sendable () -> Bool)?
        var cancelTask: (@Sendable () -> Void)?
    }

    private let gate = LockedValue(Gate())

    /// Binds the gate to the task doing the work: cancelled at once if the gate already was.
    func attach<Success, Failure>(_ task: Task<Success, Failure>) {
        let cancelledAlready = gate.withLock { gate -> Bool in
            gate.isTaskCancelled = { task.isCancelled }
            gate.cancelTask = { task.cancel() }
            return gate.isCancelled
        }
        if cancelledAlready { task.cancel() }
    }

    /// Closes the gate and cancels the task, now or when it is attached.
    func cancel() {
        let cancel = gate.withLock { gate -> (@Sendable () -> Void)? in
            gate.isCancelled = true
            return gate.cancelTask
        }
        cancel?()
    }

    /// Whether the work was neither cancelled nor replaced.
    var isOpen: Bool {
        let (cancelled, isTaskCancelled) = gate.withLock { ($0.isCancelled, $0.isTaskCancelled) }
        return !cancelled && !(isTaskCancelled?() ?? false)
    }
}
