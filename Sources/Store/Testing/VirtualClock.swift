import Dispatch

/// A clock that moves only when a test says so, so a 30-second timeout is tested in microseconds.
///
/// Give it to a store (`StoreOptions(clock: clock)`) and every graph timeout, retry back-off and
/// delay node sleeps on it. Time stands still until ``advance(by:)``, which walks forward deadline
/// by deadline, like real time: it wakes the earliest sleeper, lets the work it woke run until that
/// work has finished or is asleep again (so a retry back-off that starts when a timeout fires is
/// measured from that moment), and only then looks for the next deadline. ``run(timeout:fileID:filePath:line:column:)`` advances until
/// nothing sleeps. ``waitForSleepers(_:timeout:fileID:filePath:line:column:)`` lets a test wait
/// until the work it started is actually asleep before advancing, with no real sleep and no
/// guessing, and fails instead of hanging when it never is.
///
/// ```swift
/// let clock = VirtualClock()
/// let store = Store(initialState: AppState(), reducer: reducer, options: StoreOptions(clock: clock))
/// let run = store.dispatch(graph)          // a node with a 30 s timeout
/// try await clock.waitForSleepers(1)
/// await clock.advance(by: .seconds(30))
/// #expect(await run.outcome(of: node).error as? GraphError == .timedOut(after: .seconds(30)))
/// ```
///
/// Named `VirtualClock` so that it never clashes with the `TestClock` of swift-clocks, which
/// swift-dependencies re-exports.
public final class VirtualClock: Clock, Sendable {
    /// A point on a virtual clock: the time advanced since the clock was made.
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        /// Time since the clock was made.
        public let offset: Duration

        /// Creates an instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// `+<offset>`.
        public var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelledBeforeRegistering: Set<UInt64> = []
        var sleeperWaiters: [(count: Int, gate: DeadlineGate)] = []
        /// Changes with every sleep registered, woken or cancelled: how `settle` sees activity.
        var generation: UInt64 = 0
        /// Sleepers resumed by `advance` whose task has not yet run past its `sleep` call.
        var wokenNotResumed = 0
        /// How many times `advance` or `run` woke sleepers.
        var wakes: UInt64 = 0
        /// How many sleeps were cancelled (before or after they registered).
        var cancellations: UInt64 = 0
        var timeout: Duration = .seconds(5)
    }

    /// What the owner of the clock (a ``TestStore``) knows about the work that may sleep on it.
    struct Observer: Sendable {
        /// Whether the owner's work is quiet (every running piece parked), whether that quiet is
        /// ambiguous (some piece's only sign of being parked is a sleeper), and a counter that changes
        /// with every event the owner sees.
        var probe: @Sendable () -> (quiet: Bool, ambiguous: Bool, generation: UInt64)
        /// Lines naming the owner's work in flight, for failure messages.
        var inFlight: @Sendable () -> [String]
    }

    private let state = LockedValue(State())
    private let observer = LockedValue<Observer?>(nil)

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant; it changes only in ``advance(by:)``, ``advance(to:)`` and ``run(timeout:fileID:filePath:line:column:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: a virtual clock has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// How many sleepers wait for a deadline that has not come.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How long (in real time) ``waitForSleepers(_:timeout:fileID:filePath:line:column:)`` and
    /// ``run(timeout:fileID:filePath:line:column:)`` wait before they fail; five seconds by default.
    /// A ``TestStore`` keeps it equal to its own ``TestStore/timeout``.
    public var timeout: Duration {
        get { state.withLock { $0.timeout } }
        set { state.withLock { $0.timeout = newValue } }
    }

    /// How many times ``advance(to:)`` or ``run(timeout:fileID:filePath:line:column:)`` woke sleepers.
    var wakeCount: UInt64 { state.withLock { $0.wakes } }

    /// How many sleeps were cancelled, before or after they registered.
    var cancellationCount: UInt64 { state.withLock { $0.cancellations } }

    func setObserver(_ observer: Observer) {
        self.observer.withLock { $0 = observer }
    }

    /// Suspends until the clock is advanced to `deadline` (at once if it already is).
    /// - Throws: `CancellationError` if the sleeping task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let wokenByAdvance = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                enum Start { case now, cancelled, waiting([DeadlineGate]) }
                let start = state.withLock { state -> Start in
                    if state.cancelledBeforeRegistering.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .now }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    state.generation &+= 1
                    return .waiting(Self.takeSatisfiedWaiters(&state))
                }
                switch start {
                case .now: continuation.resume(returning: false)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let waiters): for waiter in waiters { waiter.open() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                state.cancellations &+= 1
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledBeforeRegistering.insert(id)
                    return nil
                }
                state.generation &+= 1
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // A sleep that ended normally leaves no trace; drop a cancellation mark that came too late.
        state.withLock { state in
            _ = state.cancelledBeforeRegistering.remove(id)
            if wokenByAdvance {
                state.wokenNotResumed -= 1
                state.generation &+= 1
            }
        }
    }

    /// Moves the clock forward by `duration`, deadline by deadline (see ``advance(to:)``).
    public func advance(by duration: Duration = .zero) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) the way real time would pass.
    ///
    /// First it lets work already woken settle. Then, while a sleeper's deadline is at or before
    /// `instant`, it sets ``now`` to the earliest such deadline, wakes the sleepers due then (in the
    /// order they went to sleep), and waits until the work they woke has finished or gone back to
    /// sleep before it looks for the next deadline. So a sleep that starts at `+5 s` within an
    /// advance to `+6 s` is measured from `+5 s`, and wakes within the same advance if it is short
    /// enough. Finally ``now`` is `instant`.
    ///
    /// "Settled" means: every sleeper it woke has resumed, and no event (a sleep, a wake, a
    /// cancellation, or, on a ``TestStore``'s clock, a stub call, a held call, an action reaching the
    /// reducer, a node that is ready but not yet parked) happened across several rounds of
    /// `Task.yield()`. A clock used alone, without a ``TestStore``, cannot see what the woken work
    /// does next: after each wake, that quiet must also last a few milliseconds of real time. The
    /// wait for it is bounded by ``timeout`` in real time.
    public func advance(to instant: Instant) async {
        await settle()
        while true {
            let due = state.withLock { state -> [Sleeper] in
                guard let earliest = state.sleepers.lazy.map(\.deadline).min(), earliest <= instant else {
                    if instant > state.now { state.now = instant }
                    return []
                }
                return Self.wake(at: earliest, &state)
            }
            if due.isEmpty { return }
            for sleeper in due { sleeper.continuation.resume(returning: true) }
            await settle(afterWake: true)
        }
    }

    /// Advances deadline by deadline until nothing sleeps on the clock.
    ///
    /// - Parameters:
    ///   - timeout: how long in real time it may take; ``timeout`` when `nil`.
    ///   - fileID: where the call is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if work still sleeps after that (for instance a timer that
    ///   always sleeps again), listing the sleepers.
    public func run(
        timeout: Duration? = nil, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let limit = timeout ?? self.timeout
        let start = ContinuousClock.now
        await settle()
        while true {
            let due = state.withLock { state -> [Sleeper] in
                guard let earliest = state.sleepers.lazy.map(\.deadline).min() else { return [] }
                return Self.wake(at: earliest, &state)
            }
            if due.isEmpty { return }
            for sleeper in due { sleeper.continuation.resume(returning: true) }
            await settle(afterWake: true)
            if ContinuousClock.now - start > limit {
                throw TestStoreFailure(
                    fileID: fileID, filePath: filePath, line: line, column: column,
                    """
                    run() did not end within \(describeSeconds(limit)): work keeps going back to sleep on the clock
                    \(inFlightLines().joined(separator: "\n"))
                    """)
            }
        }
    }

    /// Suspends until at least `count` sleepers are waiting on this clock and the work around them
    /// has settled: the moment to advance it.
    ///
    /// A sleeper that goes away while the work settles (the timer of an attempt that just failed,
    /// for instance) does not count: the wait goes on until `count` sleepers remain.
    /// - Parameters:
    ///   - count: how many sleepers to wait for.
    ///   - timeout: how long in real time to wait; ``timeout`` when `nil`.
    ///   - fileID: where the call is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if fewer than `count` sleepers are there in time, listing the
    ///   sleepers and the work in flight.
    public func waitForSleepers(
        _ count: Int = 1, timeout: Duration? = nil,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let limit = timeout ?? self.timeout
        let deadline = DispatchTime.after(limit)
        var lookedAgain = false
        while true {
            let gate = DeadlineGate()
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, gate))
                return false
            }
            if !ready {
                guard await gate.wait(until: deadline) else {
                    if !lookedAgain {
                        lookedAgain = true
                        await lastLookBeforeFailing()
                        continue
                    }
                    throw TestStoreFailure(
                        fileID: fileID, filePath: filePath, line: line, column: column,
                        """
                        waited \(describeSeconds(limit)) for \(count) sleeper(s) on the clock, but \(sleeperCount) \
                        went to sleep
                        \(inFlightLines().joined(separator: "\n"))
                        """)
                }
                continue
            }
            await settle()
            if sleeperCount >= count { return }
        }
    }

    // MARK: Settling

    /// Lets work woken by the clock run until it is quiet: see ``advance(to:)``.
    ///
    /// Quiet means: no event for four rounds of eight `Task.yield()`s (a job already queued runs
    /// before a yield returns), every woken sleeper has resumed, and the owner (a ``TestStore``)
    /// sees nothing ready to run: no sync node released but not applied, no async node started but
    /// not yet at its stub (nodes started are counted against calls that reached the stubs), no
    /// synchronous stub answering, and every running node parked in a held call or asleep.
    ///
    /// One state cannot be told apart from outside the executor: a node whose only sign of being
    /// parked is a sleeper, just after a wake or just after its stub returned, may be in its
    /// back-off (quiet) or may still be on its way (its timeout's timer not yet cancelled, its next
    /// attempt not yet at the stub). In that state the quiet must also last `ambiguousQuiet` of
    /// real time, spent yielding, so that work running on another thread gets the processor and
    /// shows itself. A clock with no owner (used alone, not by a ``TestStore``) cannot see the
    /// work it woke at all: once it resumed, that work may end or sleep again a moment later, so
    /// after a wake its quiet is always ambiguous. Everything else is decided by events, not by
    /// time. The whole wait is bounded by ``timeout``.
    ///
    /// - Parameter afterWake: the clock has just woken sleepers.
    func settle(afterWake: Bool = false) async {
        let start = ContinuousClock.now
        let limit = start + timeout
        var last = signature(afterWake: afterWake)
        var quietRounds = 0
        var quietSince = start
        while true {
            for _ in 0..<8 { await Task.yield() }
            let current = signature(afterWake: afterWake)
            let now = ContinuousClock.now
            if current.quiet, current.generation == last.generation {
                quietRounds += 1
            } else {
                quietRounds = 0
                quietSince = now
            }
            last = current
            if quietRounds >= 4, !current.ambiguous || now - quietSince >= Self.ambiguousQuiet { return }
            if now >= limit { return }
        }
    }

    /// How long a quiet but ambiguous state must last before `settle` trusts it.
    static let ambiguousQuiet: Duration = .milliseconds(10)

    private func signature(afterWake: Bool) -> (quiet: Bool, ambiguous: Bool, generation: (UInt64, UInt64)) {
        let (clockQuiet, clockGeneration) = state.withLock { ($0.wokenNotResumed == 0, $0.generation) }
        let owner = observer.withLock { $0 }?.probe() ?? (quiet: true, ambiguous: afterWake, generation: 0)
        return (clockQuiet && owner.quiet, owner.ambiguous, (clockGeneration, owner.generation))
    }

    // MARK: Descriptions

    /// One line per sleeper, earliest deadline first.
    func sleeperLines() -> [String] {
        state.withLock { state in
            state.sleepers.sorted { $0.deadline < $1.deadline }.map { sleeper in
                "  asleep on the clock until \(sleeper.deadline) (now \(state.now), \(describe(state.now.duration(to: sleeper.deadline))) to go)"
            }
        }
    }

    /// Everything in flight, for a failure message: the owner's work, then the sleepers.
    func inFlightLines() -> [String] {
        let owner = observer.withLock { $0 }?.inFlight() ?? []
        let sleepers = sleeperLines()
        let lines = owner + (sleepers.isEmpty ? ["  nothing asleep on the clock (now \(now))"] : sleepers)
        return ["in flight:"] + lines
    }

    private func describe(_ duration: Duration) -> String { "\(duration)" }

    private static func wake(at deadline: Instant, _ state: inout State) -> [Sleeper] {
        if deadline > state.now { state.now = deadline }
        let due = state.sleepers.filter { $0.deadline == deadline }
        state.sleepers.removeAll { $0.deadline == deadline }
        state.wokenNotResumed += due.count
        state.wakes &+= 1
        state.generation &+= 1
        return due
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [DeadlineGate] {
        var ready: [DeadlineGate] = []
        state.sleeperWaiters.removeAll { waiter in
            guard state.sleepers.count >= waiter.count else { return false }
            ready.append(waiter.gate)
            return true
        }
        return ready
    }
}
