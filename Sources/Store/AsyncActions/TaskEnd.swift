/// The end of a task that a store counting its work started (see `WorkCounter`): a counted task
/// that awaits the task's value parks on it, and is marked running again when the task's body
/// ends, before it resumes.
@usableFromInline
final class TaskEnd: Sendable {
    private let state = LockedValue<(ended: Bool, parked: [WorkCounter.Unit], wasCancelled: Bool)>((false, [], false))

    /// Parks the current task's unit until ``finish()``, unless the task already ended.
    func parkCurrentUnit() {
        state.withLock { state in
            guard !state.ended, let unit = WorkCounter.currentUnit() else { return }
            unit.park(on: "waiting for an async action's task")
            state.parked.append(unit)
        }
    }

    /// Whether the task was cancelled before its body ended: a cancel that comes after (an owner
    /// ending while the task leaves it) did not reach the action's `run`.
    var wasCancelledBeforeItEnded: Bool { state.withLock { $0.wasCancelled } }

    /// The task's body ends (`wasCancelled`: whether the task was cancelled by then): its awaiters
    /// run again.
    func finish(wasCancelled: Bool) {
        let parked = state.withLock { state -> [WorkCounter.Unit] in
            state.ended = true
            state.wasCancelled = wasCancelled
            defer { state.parked.removeAll() }
            return state.parked
        }
        for unit in parked { unit.unpark() }
    }
}
