import Dispatch

/// A one-shot wake-up for a test wait: opened by the event it waits for, or expired by its
/// real-time deadline, whichever comes first.
///
/// The deadline is a Dispatch timer, not task cancellation: it fires even when the awaited event
/// never comes and nothing cancels the waiting task (a continuation nobody resumes), so a test wait
/// ends instead of hanging. It is the library's counterpart of the test target's `withDeadline`.
final class DeadlineGate: Sendable {
    private struct Gate {
        var continuation: CheckedContinuation<Bool, Never>?
        var result: Bool?
    }

    private let gate = LockedValue(Gate())

    init() {}

    /// Suspends until ``open()`` (returns `true`) or until `deadline` passes (returns `false`).
    func wait(until deadline: DispatchTime) async -> Bool {
        DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in self?.finish(false) }
        return await withCheckedContinuation { continuation in
            let early = gate.withLock { gate -> Bool? in
                if let result = gate.result { return result }
                gate.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Wakes the waiter: the event came. Later calls, and the deadline after this, do nothing.
    func open() { finish(true) }

    private func finish(_ result: Bool) {
        let continuation = gate.withLock { gate -> CheckedContinuation<Bool, Never>? in
            guard gate.result == nil else { return nil }
            gate.result = result
            defer { gate.continuation = nil }
            return gate.continuation
        }
        continuation?.resume(returning: result)
    }
}

/// A last look before a wait gives up: some rounds of `Task.yield()`, so that work which became
/// runnable at the same moment as the deadline timer (the whole process was starved of CPU by a
/// loaded machine, say) runs before the wait re-checks and fails. Each wait takes it once.
func lastLookBeforeFailing() async {
    for _ in 0..<64 { await Task.yield() }
}

extension DispatchTime {
    /// The moment `duration` from now (a negative duration counts as zero).
    static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) &* 1_000_000_000 &+ max(0, attoseconds / 1_000_000_000)
        return .now() + .nanoseconds(Int(clamping: nanoseconds))
    }
}

/// `1.5 s` for a failure message.
func describeSeconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return "\(value) s"
}
