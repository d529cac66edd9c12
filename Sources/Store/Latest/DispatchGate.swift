/// Whether work dispatched with an id may still reach the state: closed once that work is cancelled,
/// whether by a later dispatch with the same id, by `cancel(id:)`, or through its ``ActionTask``.
///
/// It also holds the work's task, so that closing it cancels the task, even one attached after the
/// close.
final class DispatchGate: Sendable {
    private struct Gate {
        var isClosed = false
        var isTaskCancelled: (@Sendable () -> Bool)?
        var cancelTask: (@Sendable () -> Void)?
    }

    private let gate = LockedValue(Gate())

    /// Binds the gate to the task doing the work.
    func attach<Success, Failure>(_ task: Task<Success, Failure>) {
        let closedAlready = gate.withLock { gate -> Bool in
            gate.isTaskCancelled = { task.isCancelled }
            gate.cancelTask = { task.cancel() }
            return gate.isClosed
        }
        if closedAlready { task.cancel() }
    }

    /// Closes the gate and cancels the task.
    func close() {
        let cancel = gate.withLock { gate -> (@Sendable () -> Void)? in
            gate.isClosed = true
            return gate.cancelTask
        }
        cancel?()
    }

    /// Whether the work was neither cancelled nor replaced.
    var isOpen: Bool {
        let (closed, isTaskCancelled) = gate.withLock { ($0.isClosed, $0.isTaskCancelled) }
        return !closed && !(isTaskCancelled?() ?? false)
    }
}
