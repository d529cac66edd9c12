import Dispatch
import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// Sanitizer builds commonly get longer test timeouts for this reason; a hang still fails,
    /// three times later.
    package static let sanitizerFactor: UInt64 = isThreadSanitizerLoaded() ? 3 : 1

    /// One priority's probes.
    private struct Lane {
        var beats: UInt64 = 0
        var probeInFlight = false
    }

    private struct State {
        var lanes: [UInt8: Lane] = [:]
        var pending: [(wakeUp: ExpiringWakeUp, window: Duration, start: Mark)] = []
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

    /// Expires `wakeUp` once `window` of pool time has passed since `start`, in `start`'s lane
    /// (unless it is woken first).
    func expire(_ wakeUp: ExpiringWakeUp, window: Duration, from start: Mark) {
        let startTimer = state.withLock { state -> Bool in
            state.pending.append((wakeUp, window, start))
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
            state -> ([UInt8], [ExpiringWakeUp], (any DispatchSourceTimer)?) in
            // Read under the lock: every pending window's start was taken before its entry was
            // added, so none is later than this. Read before the lock, a wait that began while this
            // thread was preempted in between would start after it.
            let wall = DispatchTime.now()
            var expired: [ExpiringWakeUp] = []
            let lanes = state.lanes
            state.pending.removeAll { entry in
                if entry.wakeUp.isFinished { return true }
                let beats = lanes[entry.start.lane]?.beats ?? 0
                guard Self.hasPassed(entry.window, since: entry.start, wall: wall, beats: beats) else { return false }
                expired.append(entry.wakeUp)
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
        for wakeUp in expired { wakeUp.expire() }
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
