import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-shot wake-up for a test wait: opened by the event it waits for, or expired once its
/// window has passed, whichever comes first.
///
/// The window is measured in **pool time** (see `PoolTime`): time during which Swift's
/// cooperative thread pool was running jobs. A process starved of CPU by a loaded machine, or by
/// other tests holding the pool's threads, runs nothing, so its windows do not pass: it slows a test
/// but does not fail it. A hang (a continuation nobody resumes while the pool runs freely) expires
/// the window on time. The expiry is a Dispatch timer, not task cancellation, so it fires even when
/// nothing cancels the waiting task.
package final class DeadlineGate: Sendable {
    private struct Gate {
        var continuation: CheckedContinuation<Bool, Never>?
        var result: Bool?
    }

    private let gate = LockedValue(Gate())

    package init() {}

    /// Suspends until ``open()`` (returns `true`) or until `window` of pool time, counted from
    /// `start` in the lane of the task that took it, has passed (returns `false`).
    package func wait(window: Duration, from start: PoolTime.Mark) async -> Bool {
        PoolTime.shared.expire(self, window: window, from: start)
        return await withCheckedContinuation { continuation in
            let early = gate.withLock { gate -> Bool? in
                if let result = gate.result { return result }
                gate.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Wakes the waiter: the event came. Later calls, and the expiry after this, do nothing.
    package func open() { finish(true) }

    /// Whether the gate was opened or expired already.
    package var isFinished: Bool { gate.withLock { $0.result != nil } }

    fileprivate func expire() { finish(false) }

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

/// Time as the cooperative thread pool lives it, for the deadlines of test waits.
///
/// While a wait is pending, a Dispatch timer (on Dispatch's own threads, outside the pool) puts a
/// tiny task on the pool every `beat`, one at a time per priority, and counts it when it runs. Each
/// priority is a lane of its own: a wait counts only the beats of its task's base priority, the
/// priority the work it started inherited, because the pool serves each priority from its own
/// queue (and, on Linux, its own threads): a probe of another priority runs, or does not, whatever
/// that work's queue does, and would count time the work never had. Pool time is the number of
/// beats that ran in the wait's lane, times `beat`; wall time still bounds it. A window of pool time
/// has passed when both that much wall time and that much pool time have passed, or when wall time
/// reached `starvationLimit` times the window, and at least `starvationFloor` (then the pool itself
/// is stuck: a thread of it blocked for good, which no wait can outlive; the floor keeps a short
/// window from mistaking a machine that ran other processes for a while for a stuck pool).
package final class PoolTime: Sendable {
    /// A moment: wall time and the beats counted by then in the lane of the task that took it.
    package struct Mark: Sendable {
        let wall: DispatchTime
        let beats: UInt64
        let lane: UInt8
    }

    package static let shared = PoolTime()

    /// How often the pool is probed while waits are pending.
    package static let beat: Duration = .milliseconds(10)
    /// How many windows of wall time a starved pool may take before a wait gives up anyway.
    package static let starvationLimit = 20
    /// The least wall time after which a starved pool fails a wait anyway.
    package static let starvationFloor: Duration = .seconds(60)

    /// How many times its window a wait allows while ThreadSanitizer is loaded: 3, else 1.
    ///
    /// Under the sanitizer, Swift's runtime takes a kernel lock (one per type) on each generic
    /// metadata or witness table lookup, which a debug build makes at almost every step. While other
    /// threads are busy with the same types, each step of the awaited work may queue for that lock:
    /// the work runs slower between two steps a wait can see, while the pool's own beats run on.
    /// Stack dumps taken when 5 s windows ran out in the package's own suite found threads queued
    /// there. Sanitizer builds commonly get longer test timeouts for this reason; a hang still
    /// fails, three times later.
    package static let sanitizerFactor: UInt64 = isThreadSanitizerLoaded() ? 3 : 1

    /// One priority's probes.
    private struct Lane {
        var beats: UInt64 = 0
        var probeInFlight = false
    }

    private struct State {
        var lanes: [UInt8: Lane] = [:]
        var pending: [(gate: DeadlineGate, window: Duration, start: Mark)] = []
        var timer: (any DispatchSourceTimer)?

        func beats(in lane: UInt8) -> UInt64 { lanes[lane]?.beats ?? 0 }
    }

    private let state = LockedValue(State())
    private let queue = DispatchQueue(label: "OresRedux.PoolTime")

    private init() {}

    /// Now, in the lane of the current task's base priority (not one raised by whoever awaits it).
    package var now: Mark {
        let lane = (Task.basePriority ?? .medium).rawValue
        return Mark(wall: .now(), beats: state.withLock { $0.beats(in: lane) }, lane: lane)
    }

    /// Whether `window` of pool time has passed since `start` (see the type's description).
    package func hasPassed(_ window: Duration, since start: Mark) -> Bool {
        Self.hasPassed(window, since: start, wall: .now(), beats: state.withLock { $0.beats(in: start.lane) })
    }

    /// Expires `gate` once `window` of pool time has passed since `start`, in `start`'s lane
    /// (unless it opens first).
    package func expire(_ gate: DeadlineGate, window: Duration, from start: Mark) {
        let startTimer = state.withLock { state -> Bool in
            state.pending.append((gate, window, start))
            return state.timer == nil
        }
        if startTimer { queue.async { self.startBeating() } }
    }

    /// On `queue`, like `tick`, so that the timer is made and dropped by one thread at a time (a
    /// Dispatch source must be resumed before it may be released).
    private func startBeating() {
        guard state.withLock({ $0.timer == nil && !$0.pending.isEmpty }) else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let beat = DispatchTimeInterval.nanoseconds(Int(clamping: Self.nanoseconds(Self.beat)))
        timer.schedule(deadline: .now() + beat, repeating: beat)
        timer.setEventHandler { [weak self] in self?.tick() }
        state.withLock { $0.timer = timer }
        timer.resume()
    }

    /// On Dispatch's queue: probes the lanes of the pending waits, expires the windows that passed,
    /// and stops when no wait is pending.
    private func tick() {
        let (probes, expired, idleTimer) = state.withLock {
            state -> ([UInt8], [DeadlineGate], (any DispatchSourceTimer)?) in
            // Read under the lock: every pending window's start was taken before its entry was
            // added, so none is later than this. Read before the lock, a wait that began while this
            // thread was preempted in between would start after it.
            let wall = DispatchTime.now()
            var expired: [DeadlineGate] = []
            let lanes = state.lanes
            state.pending.removeAll { entry in
                if entry.gate.isFinished { return true }
                let beats = lanes[entry.start.lane]?.beats ?? 0
                guard Self.hasPassed(entry.window, since: entry.start, wall: wall, beats: beats) else { return false }
                expired.append(entry.gate)
                return true
            }
            if state.pending.isEmpty {
                defer { state.timer = nil }
                return ([], expired, state.timer)
            }
            var probes: [UInt8] = []
            for lane in Set(state.pending.map(\.start.lane)) where state.lanes[lane]?.probeInFlight != true {
                state.lanes[lane, default: Lane()].probeInFlight = true
                probes.append(lane)
            }
            return (probes, expired, nil)
        }
        idleTimer?.cancel()
        for gate in expired { gate.expire() }
        for lane in probes {
            // The probe: it counts only once the pool ran it, at its lane's priority.
            Task(priority: TaskPriority(rawValue: lane)) {
                self.state.withLock { state in
                    state.lanes[lane, default: Lane()].beats += 1
                    state.lanes[lane, default: Lane()].probeInFlight = false
                }
            }
        }
    }

    /// Whether `window` has passed since `start`, at `wall` with `beats` counted in its lane. A
    /// `wall` before `start` is no time passed, never a wrapped-around eternity.
    static func hasPassed(_ window: Duration, since start: Mark, wall: DispatchTime, beats: UInt64) -> Bool {
        let windowNanoseconds = saturating(nanoseconds(window), times: sanitizerFactor)
        let (now, then) = (wall.uptimeNanoseconds, start.wall.uptimeNanoseconds)
        let wallElapsed = now > then ? now - then : 0
        let starved = max(saturating(windowNanoseconds, times: UInt64(starvationLimit)), nanoseconds(starvationFloor))
        if wallElapsed >= starved { return true }
        let poolElapsed = saturating(beats > start.beats ? beats - start.beats : 0, times: nanoseconds(beat))
        return wallElapsed >= windowNanoseconds && poolElapsed >= windowNanoseconds
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let whole = saturating(UInt64(seconds), times: 1_000_000_000)
        let (sum, overflow) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow ? .max : sum
    }

    private static func saturating(_ value: UInt64, times factor: UInt64) -> UInt64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }
}

/// `1.5 s` for a failure message.
package func describeSeconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return "\(value) s"
}

/// The last line of a wait's failure message when ThreadSanitizer is loaded (none otherwise): the
/// message names the timeout as set, and this says the wait allowed more.
package func sanitizerNote() -> [String] {
    guard PoolTime.sanitizerFactor > 1 else { return [] }
    return ["(ThreadSanitizer is loaded: the wait allowed \(PoolTime.sanitizerFactor) times its timeout)"]
}

/// Whether ThreadSanitizer's runtime is part of this process: it defines `__tsan_init`.
private func isThreadSanitizerLoaded() -> Bool {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__tsan_init") != nil
    #else
        return false
    #endif
}
