import Foundation
import OresRedux
import OresReduxTesting

/// What a test wait throws when the awaited work did not finish: a hang, caught.
struct DeadlineExceeded: Error, CustomStringConvertible {
    enum Kind: Sendable {
        /// The cooperative pool ran jobs for `seconds` while the work stayed unfinished.
        case noProgress
        /// The cooperative pool ran jobs for `seconds` while the work's measure of progress stayed
        /// at `progress`.
        case stoppedAt(progress: Int)
        /// The pool ran no job at all for ``Deadline/stallFactor`` times `seconds` (and at least
        /// ``Deadline/stallFloor``).
        case poolStalled(waited: Double, poolAlive: Double, silent: Double)
    }

    let what: String
    let seconds: Double
    let kind: Kind

    var description: String {
        switch kind {
        case .noProgress:
            return "\(what) did not finish within \(seconds) s while the cooperative pool was running (a hang?)"
        case .stoppedAt(let progress):
            return """
                \(what) made no progress (stuck at \(progress)) for \(seconds) s while the cooperative pool was \
                running (a hang?)
                """
        case .poolStalled(let waited, let poolAlive, let silent):
            return """
                \(what) did not finish in \(waited) s (the cooperative pool ran jobs for \(poolAlive) s of it), \
                and the pool ran no job at all for the last \(silent) s: the pool itself made no progress \
                (a pool thread blocked?)
                """
        }
    }
}

enum Deadline {
    /// A wait also fails when the pool ran no job at all for this many times its timeout: a pool
    /// that makes no progress is a failure too, and one the heartbeat alone would wait out forever.
    static let stallFactor = 10.0
    /// The least time without a job after which a wait fails for the stall alone: a short wait
    /// beside a parallel suite on a loaded machine may see its beats queued behind hundreds of
    /// tests for seconds (many more under ThreadSanitizer, which multiplies the floor as it does
    /// timeouts), and that is a long queue, not a stuck pool.
    static let stallFloor = 60.0
}

/// Awaits `operation`, or throws ``DeadlineExceeded`` once Swift's cooperative pool has been
/// running jobs for `seconds` without `operation` finishing.
///
/// The time counted is time during which the pool was alive (see ``PoolHeartbeat``), not wall-clock
/// time: on a loaded machine, or beside tests that keep the pool's few threads busy, the awaited
/// work is slow but moving, and the wait goes on; when the pool runs freely and the work still does
/// not finish, that is a hang, and the wait fails within about `seconds`. The wait also fails when
/// the pool ran no job at all (not even a heartbeat) for ``Deadline/stallFactor`` times `seconds`
/// (at least ``Deadline/stallFloor``), saying the pool itself made no progress (something blocks
/// its threads).
///
/// Unlike Swift Testing's `.timeLimit` (which cancels the test and then waits for it), this returns
/// at the deadline even when the awaited work ignores cancellation, such as a continuation nobody
/// resumes: a hang fails the test instead of stalling the suite. The heartbeat never waits for
/// work; it only bounds the wait. When the deadline wins, `operation`'s task is cancelled.
func withDeadline<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "the awaited work",
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await awaitWithDeadline(seconds, what, progress: nil, operation)
}

/// Awaits `operation`, or throws ``DeadlineExceeded`` once Swift's cooperative pool has been
/// running jobs for `seconds` during which `progress` did not change: for a long batch of work (a
/// stress loop) whose total time depends on the machine, while each step of it does not. The
/// window starts again whenever `progress` (a count of what the work finished, such as commits)
/// moved since the last look, so a slow machine never fails the wait and a hang still fails it
/// about `seconds` after its last step. `progress` is called on a pool thread each time a window has
/// passed, never under the deadline's lock.
func withDeadline<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "the awaited work", progress: @escaping @Sendable () -> Int,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await awaitWithDeadline(seconds, what, progress: progress, operation)
}

private func awaitWithDeadline<T: Sendable>(
    _ seconds: Double, _ what: String, progress: (@Sendable () -> Int)?,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    // Under ThreadSanitizer every step of the awaited work is slower in a way the pool's beats do
    // not see, as for the store's own waits (see `PoolTime.sanitizerFactor`).
    let seconds = seconds * Double(PoolTime.sanitizerFactor)
    let race = DeadlineRace<T>()
    let heartbeat = PoolHeartbeat.shared
    // Beats are sent at the priority of the awaiting task: the pool its work runs in.
    let watch = heartbeat.watch(priority: Task.currentPriority, for: seconds, progress: progress) { kind in
        race.finish(.failure(DeadlineExceeded(what: what, seconds: seconds, kind: kind)))
    }
    defer { heartbeat.unwatch(watch) }
    return try await withCheckedThrowingContinuation { continuation in
        race.install(continuation)
        let work = Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        race.onLoss { work.cancel() }
    }
}

/// A process-wide measure of how long Swift's cooperative pool has been running jobs.
///
/// Every ``interval``, a timer on a dispatch queue of its own (never a pool thread) enqueues one
/// tiny `Task` per priority that a deadline watches, unless the previous one has not run yet; each
/// one that runs is a *beat*, worth ``interval`` seconds of a live pool. While the pool's threads
/// are all held (a blocking wait, a long loop) or its queue is long, beats run late or not at all,
/// so they count only the time the pool was actually making progress. The timer also notices when
/// no beat has run for a long time: a pool that does not move at all.
final class PoolHeartbeat: @unchecked Sendable {
    // @unchecked: every `var` is read and written only under `lock`; `timer` is set once in `init`.
    static let shared = PoolHeartbeat()
    static let interval = 0.05

    struct Watch: Sendable {
        fileprivate let id: UInt64
        fileprivate let priority: UInt8
    }

    private struct Watcher {
        /// The beat the current window started at: the watch's start, or the last look at
        /// `progress` that saw it move.
        var startBeat: Int
        let beatsNeeded: Int
        let started: UInt64
        let stallLimit: UInt64
        let progress: (@Sendable () -> Int)?
        var lastProgress: Int?
        let expire: @Sendable (DeadlineExceeded.Kind) -> Void
    }

    private struct Lane {
        var beats = 0
        var lastBeat: UInt64 = 0
        var isBeatPending = false
        var watchers: [UInt64: Watcher] = [:]
    }

    private let lock = NSLock()
    private var lanes: [UInt8: Lane] = [:]
    private var nextID: UInt64 = 0
    private var timer: DispatchSourceTimer?

    private init() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "PoolHeartbeat"))
        let nanoseconds = Int(Self.interval * 1e9)
        timer.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(5))
        timer.setEventHandler { [unowned self] in tick() }
        timer.resume()
        self.timer = timer
    }

    /// Calls `expire` once the pool at `priority` has run `seconds` worth of beats from now (from
    /// the last look that saw `progress` move, when there is one), or once it ran none for
    /// ``Deadline/stallFactor`` times `seconds` (at least ``Deadline/stallFloor``).
    func watch(
        priority: TaskPriority, for seconds: Double, progress: (@Sendable () -> Int)? = nil,
        expire: @escaping @Sendable (DeadlineExceeded.Kind) -> Void
    ) -> Watch {
        // Read before the lock: `progress` is the test's code.
        let lastProgress = progress?()
        let beatsNeeded = max(1, Int((seconds / Self.interval).rounded(.up)))
        // `seconds` already allows for ThreadSanitizer (see `awaitWithDeadline`); the floor does too.
        let floor = Deadline.stallFloor * Double(PoolTime.sanitizerFactor)
        let stallLimit = UInt64(max(seconds * Deadline.stallFactor, floor) * 1e9)
        lock.lock()
        defer { lock.unlock() }
        // Every time is read under the lock, so that times compared under it never go backwards.
        let started = Self.now()
        nextID += 1
        let watch = Watch(id: nextID, priority: priority.rawValue)
        var lane = lanes[watch.priority, default: Lane()]
        lane.watchers[watch.id] = Watcher(
            startBeat: lane.beats, beatsNeeded: beatsNeeded, started: started, stallLimit: stallLimit,
            progress: progress, lastProgress: lastProgress, expire: expire)
        lanes[watch.priority] = lane
        return watch
    }

    func unwatch(_ watch: Watch) {
        lock.lock()
        lanes[watch.priority]?.watchers[watch.id] = nil
        lock.unlock()
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// `later - earlier`, or 0 if `earlier` is not earlier: never a trap.
    private static func elapsed(from earlier: UInt64, to later: UInt64) -> UInt64 {
        later > earlier ? later - earlier : 0
    }

    /// On the timer's queue: fails the watches whose pool ran nothing for too long, then sends one
    /// beat per watched priority, unless the last one is still waiting.
    private func tick() {
        var due: [UInt8] = []
        var stalled: [(@Sendable (DeadlineExceeded.Kind) -> Void, DeadlineExceeded.Kind)] = []
        lock.lock()
        let now = Self.now()
        for (priority, var lane) in lanes where !lane.watchers.isEmpty {
            for (id, watcher) in lane.watchers {
                let silentSince = max(lane.lastBeat, watcher.started)
                let silent = Self.elapsed(from: silentSince, to: now)
                guard silent >= watcher.stallLimit else { continue }
                let kind = DeadlineExceeded.Kind.poolStalled(
                    waited: Self.seconds(Self.elapsed(from: watcher.started, to: now)),
                    poolAlive: Double(lane.beats - watcher.startBeat) * Self.interval,
                    silent: Self.seconds(silent))
                stalled.append((watcher.expire, kind))
                lane.watchers[id] = nil
            }
            if !lane.watchers.isEmpty, !lane.isBeatPending {
                lane.isBeatPending = true
                due.append(priority)
            }
            lanes[priority] = lane
        }
        lock.unlock()
        for (expire, kind) in stalled { expire(kind) }
        for priority in due {
            Task(priority: TaskPriority(rawValue: priority)) { self.beat(priority) }
        }
    }

    /// On a pool thread: the pool at `priority` ran a job; expires the watches that have seen enough,
    /// and starts a new window for those whose progress moved.
    private func beat(_ priority: UInt8) {
        var expired: [@Sendable (DeadlineExceeded.Kind) -> Void] = []
        var looks: [(id: UInt64, progress: @Sendable () -> Int)] = []
        lock.lock()
        if var lane = lanes[priority] {
            lane.beats += 1
            lane.lastBeat = Self.now()
            lane.isBeatPending = false
            for (id, watcher) in lane.watchers where lane.beats - watcher.startBeat >= watcher.beatsNeeded {
                if let progress = watcher.progress {
                    looks.append((id, progress))
                } else {
                    expired.append(watcher.expire)
                    lane.watchers[id] = nil
                }
            }
            lanes[priority] = lane
        }
        lock.unlock()
        for expire in expired { expire(.noProgress) }
        guard !looks.isEmpty else { return }
        let seen = looks.map { (id: $0.id, progress: $0.progress()) }
        var stuck: [(@Sendable (DeadlineExceeded.Kind) -> Void, Int)] = []
        lock.lock()
        if var lane = lanes[priority] {
            for (id, progress) in seen {
                guard var watcher = lane.watchers[id] else { continue }
                if progress == watcher.lastProgress {
                    stuck.append((watcher.expire, progress))
                    lane.watchers[id] = nil
                } else {
                    watcher.lastProgress = progress
                    watcher.startBeat = lane.beats
                    lane.watchers[id] = watcher
                }
            }
            lanes[priority] = lane
        }
        lock.unlock()
        for (expire, progress) in stuck { expire(.stoppedAt(progress: progress)) }
    }

    /// Nanoseconds as seconds, to a tenth.
    private static func seconds(_ nanoseconds: UInt64) -> Double {
        (Double(nanoseconds) / 1e8).rounded() / 10
    }
}

/// The first result wins; the continuation is resumed exactly once.
private final class DeadlineRace<T: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` is read and written only under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var isFinished = false
    private var lossHandler: (@Sendable () -> Void)?
    private var lost = false

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    /// Calls `handler` when the deadline wins (at once if it already has): the operation is
    /// cancelled, in case it listens.
    func onLoss(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if lost {
            lock.unlock()
            handler()
            return
        }
        lossHandler = handler
        lock.unlock()
    }

    func finish(_ result: Result<T, any Error>) {
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return
        }
        isFinished = true
        var loss: (@Sendable () -> Void)? = nil
        if case .failure(let error) = result, error is DeadlineExceeded {
            lost = true
            loss = lossHandler
        }
        lossHandler = nil
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { early = result }
        lock.unlock()
        continuation?.resume(with: result)
        loss?()
    }
}
