import OresRedux

/// A one-shot wake-up for a test wait: woken by the event it waits for, or expired once its
/// window has passed, whichever comes first.
///
/// The window is measured in **pool time** (see `PoolTime`): time during which Swift's
/// cooperative thread pool was running jobs. A process starved of CPU by a loaded machine, or by
/// other tests holding the pool's threads, runs nothing, so its windows do not pass: it slows a test
/// but does not fail it. A hang (a continuation nobody resumes while the pool runs freely) expires
/// the window on time. The expiry is a Dispatch timer, not task cancellation, so it fires even when
/// nothing cancels the waiting task.
package final class ExpiringWakeUp: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var result: Bool?
    }

    private let state = LockedValue(State())

    package init() {}

    /// Suspends until ``wake()`` (returns `true`) or until `window` of pool time, counted from
    /// `start` in the lane of the task that took it, has passed (returns `false`).
    package func wait(window: Duration, from start: PoolTime.Mark) async -> Bool {
        PoolTime.shared.expire(self, window: window, from: start)
        return await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Bool? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Wakes the waiter: the event came. Later calls, and the expiry after this, do nothing.
    package func wake() { finish(true) }

    /// Whether the wait was woken or expired already.
    package var isFinished: Bool { state.withLock { $0.result != nil } }

    /// The window passed first: the waiter gets `false`.
    func expire() { finish(false) }

    private func finish(_ result: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }
}
