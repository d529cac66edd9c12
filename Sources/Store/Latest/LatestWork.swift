/// The store's work dispatched with an id: the shell around ``LatestWorkMachine``.
///
/// Each dispatch enters the machine under the lock, gets its token, and registers how to cancel
/// itself; the cancels the machine returns run after the lock is released, so no user code (a
/// run's cancel, a task's cancellation handlers) runs under it.
final class LatestWork: Sendable {
    private struct Protected {
        var machine = LatestWorkMachine()
        var cancels: [UInt64: @Sendable () -> Void] = [:]
    }

    private let protected = LockedValue(Protected())
    private let elapsed: @Sendable () -> Duration

    init(clock: any Clock<Duration>) {
        elapsed = stopwatch(on: clock)
    }

    /// Enters a dispatch under `id`, cancels what it replaces, and returns its token and its wait.
    /// - Parameter cancel: cancels the new work; called at most once, outside the lock.
    func enter(
        _ id: WorkID, policy: InFlightPolicy, cancel: @escaping @Sendable () -> Void
    ) -> (token: UInt64, delay: Duration?) {
        let now = elapsed()
        let (plan, replaced) = protected.withLock { protected in
            let plan = protected.machine.enter(id, policy: policy, now: now)
            protected.cancels[plan.token] = cancel
            return (plan, plan.cancelled.compactMap { protected.cancels.removeValue(forKey: $0) })
        }
        for cancel in replaced { cancel() }
        return (plan.token, plan.delay)
    }

    /// Whether the waiting dispatch `token` may start now.
    func begin(_ id: WorkID, token: UInt64) -> Bool {
        protected.withLock { $0.machine.begin(id, token: token) }
    }

    /// The work of `token` ended; it is forgotten.
    func end(_ id: WorkID, token: UInt64) {
        let now = elapsed()
        protected.withLock { protected in
            protected.machine.end(id, token: token, now: now)
            protected.cancels[token] = nil
        }
    }

    /// Cancels all the work under `id`, waiting or running.
    func cancel(_ id: WorkID) {
        let now = elapsed()
        let cancels = protected.withLock { protected in
            protected.machine.cancelAll(id, now: now).compactMap { protected.cancels.removeValue(forKey: $0) }
        }
        for cancel in cancels { cancel() }
    }
}
