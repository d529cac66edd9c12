import Dispatch
import OresRedux

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
        /// Resuming it marks the sleeping unit running first, when the sleeper is counted work of a
        /// store (see `WorkCounter`).
        let continuation: Parked<Bool, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelledBeforeRegistering: Set<UInt64> = []
        var sleeperWaiters: [(count: Int, wakeUp: ExpiringWakeUp)] = []
        /// Changes with every sleep registered, woken or cancelled: how a clock used alone sees activity.
        var generation: UInt64 = 0
        /// Sleepers resumed by `advance` whose task has not yet run past its `sleep` call.
        var wokenNotResumed = 0
        var timeout: Duration = .seconds(5)
    }

    /// The owner of the clock (a ``TestStore``): how to name its work in a failure, and where a
    /// wait of the clock that gave up records its failure.
    struct Owner: Sendable {
        /// The store's count of the work it started: the clock settles when none of it runs.
        let counter: WorkCounter
        /// Lines naming the owner's work in flight, for failure messages.
        let inFlight: @Sendable () -> [String]
        /// Records a failure that a call which cannot throw (``VirtualClock/advance(to:)``) met; the
        /// owner throws it from its next wait.
        let recordFailure: @Sendable (String) -> Void
        /// What already failed the owner's work, such as an async action run without a stub: a wait
        /// for sleepers that work will never give fails at once with it.
        let failures: @Sendable () -> [String]
    }

    private let state = LockedValue(State())
    private let owner = LockedValue<Owner?>(nil)
    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant; it changes only in ``advance(by:)``, ``advance(to:)`` and ``run(timeout:fileID:filePath:line:column:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: a virtual clock has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// How many sleepers wait for a deadline that has not come.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Whether a task of the owner's store is asleep on the clock: when none of the store's work
    /// runs, that work waits for the test to move the clock.
    var hasSleepingWork: Bool { state.withLock { $0.sleepers.contains { $0.continuation.unit != nil } } }

    /// How long (in real time) ``waitForSleepers(_:timeout:fileID:filePath:line:column:)`` and
    /// ``run(timeout:fileID:filePath:line:column:)`` wait before they fail; five seconds by default.
    /// A ``TestStore`` keeps it equal to its own ``TestStore/timeout``.
    public var timeout: Duration {
        get { state.withLock { $0.timeout } }
        set { state.withLock { $0.timeout = newValue } }
    }

    func setOwner(_ owner: Owner) {
        self.owner.withLock { $0 = owner }
    }

    /// The owning test store's count of its store's work; `nil` for a clock used alone.
    private var counter: WorkCounter? { owner.withLock { $0?.counter } }

    /// Suspends until the clock is advanced to `deadline` (at once if it already is).
    /// - Throws: `CancellationError` if the sleeping task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let wokenByAdvance = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                enum Start { case now, cancelled, waiting([ExpiringWakeUp]) }
                let sleeper = Parked(continuation, parkingOn: "asleep on the clock until \(deadline)")
                let start = state.withLock { state -> Start in
                    if state.cancelledBeforeRegistering.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .now }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: sleeper))
                    state.generation &+= 1
                    return .waiting(Self.takeSatisfiedWaiters(&state))
                }
                switch start {
                case .now: sleeper.resume(returning: false)
                case .cancelled: sleeper.resume(throwing: CancellationError())
                case .waiting(let waiters):
                    counter?.noteProgress()
                    for waiter in waiters { waiter.wake() }
                }
                sleeper.park()
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
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
    /// First it lets the work in flight settle. Then, while a sleeper's deadline is at or before
    /// `instant`, it sets ``now`` to the earliest such deadline, wakes the sleepers due then (in the
    /// order they went to sleep), and waits until the work they woke has finished or gone back to
    /// sleep before it looks for the next deadline. So a sleep that starts at `+5 s` within an
    /// advance to `+6 s` is measured from `+5 s`, and wakes within the same advance if it is short
    /// enough. Finally ``now`` is `instant`.
    ///
    /// "Settled", on a ``TestStore``'s clock, is decided by the store's own count of the work it
    /// started: every task of the store has ended or is parked (asleep on the clock, in a held call,
    /// waiting for another of its tasks). No yield and no real time decides it. If the work keeps
    /// running with no progress at all (no task begun, ended, parked or resumed, no action reduced)
    /// for the test store's ``TestStore/timeout``, for instance a stub awaiting something outside the
    /// store, the advance stops there and the test store's next wait throws a ``TestStoreFailure``
    /// naming that work. A clock used alone, without a test store, cannot see the work it wakes: see
    /// ``waitForSleepers(_:timeout:fileID:filePath:line:column:)`` and the fallback described there.
    public func advance(to instant: Instant) async {
        guard await settle(while: "advancing the clock to \(instant)") else { return }
        while true {
            let due = state.withLock { state -> [Sleeper] in
                guard let earliest = state.sleepers.lazy.map(\.deadline).min(), earliest <= instant else {
                    if instant > state.now { state.now = instant }
                    return []
                }
                return Self.wake(at: earliest, &state)
            }
            if due.isEmpty { return }
            await wake(due)
            guard await settle(while: "advancing the clock to \(instant)") else { return }
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
    ///   always sleeps again), listing the sleepers, or if the work it woke never settled.
    public func run(
        timeout: Duration? = nil, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let limit = timeout ?? self.timeout
        let start = PoolTime.shared.now
        func failure(_ message: String) -> TestStoreFailure {
            TestStoreFailure(
                fileID: fileID, filePath: filePath, line: line, column: column,
                "\(message)\n\(inFlightLines().joined(separator: "\n"))")
        }
        guard await settle(while: "run()", recording: false) else {
            throw failure("run() gave up: the work in flight made no progress for \(describeSeconds(limit))")
        }
        while true {
            let due = state.withLock { state -> [Sleeper] in
                guard let earliest = state.sleepers.lazy.map(\.deadline).min() else { return [] }
                return Self.wake(at: earliest, &state)
            }
            if due.isEmpty { return }
            await wake(due)
            guard await settle(while: "run()", recording: false) else {
                throw failure("run() gave up: the work in flight made no progress for \(describeSeconds(limit))")
            }
            // Measures the whole run, not a lack of progress: a timer that always sleeps again
            // progresses forever, and only the total time can tell it from work that ends. Pool
            // time, so that a starved process does not fail it.
            if PoolTime.shared.hasPassed(limit, since: start) {
                throw failure(
                    "run() did not end within \(describeSeconds(limit)): work keeps going back to sleep on the clock")
            }
        }
    }

    /// Suspends until at least `count` sleepers are waiting on this clock and the work around them
    /// has settled: the moment to advance it.
    ///
    /// A sleeper that goes away while the work settles (the timer of an attempt that just failed,
    /// for instance) does not count: the wait goes on until `count` sleepers remain.
    ///
    /// On a ``TestStore``'s clock the wait ends on events (a sleeper added, the store's work
    /// settled) and fails when nothing progressed for `timeout`. A clock used alone cannot see the
    /// work that sleeps on it; after it wakes sleepers, it takes the quiet to have come when no
    /// sleep, wake or cancellation happened for several rounds of `Task.yield()` and a few
    /// milliseconds of real time: give the clock to a ``TestStore`` for exact waits.
    /// - Parameters:
    ///   - count: how many sleepers to wait for.
    ///   - timeout: how long in real time to wait with no progress; ``timeout`` when `nil`.
    ///   - fileID: where the call is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if fewer than `count` sleepers are there in time, listing the
    ///   sleepers and the work in flight; on a ``TestStore``'s clock, at once when the store's work
    ///   already failed for a reason the test must fix (an async action run without a stub), naming it.
    public func waitForSleepers(
        _ count: Int = 1, timeout: Duration? = nil,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let limit = timeout ?? self.timeout
        func failure() -> TestStoreFailure {
            TestStoreFailure(
                fileID: fileID, filePath: filePath, line: line, column: column,
                """
                waited \(describeSeconds(limit)) for \(count) sleeper(s) on the clock, but \(sleeperCount) \
                went to sleep
                \(inFlightLines().joined(separator: "\n"))
                """)
        }
        var start = PoolTime.shared.now
        var seenGeneration = state.withLock { $0.generation }
        while true {
            if let counter {
                let failures = owner.withLock { $0 }?.failures ?? { [] }
                let settled = await counter.wait(timeout: limit) {
                    (sleeperCount >= count && counter.snapshot.running == 0) || !failures().isEmpty
                }
                if !failures().isEmpty, sleeperCount < count {
                    throw TestStoreFailure(
                        fileID: fileID, filePath: filePath, line: line, column: column,
                        """
                        waiting for \(count) sleeper(s) on the clock: \(failures().joined(separator: "\n"))
                        \(inFlightLines().joined(separator: "\n"))
                        """)
                }
                guard settled else { throw failure() }
                if sleeperCount >= count { return }
                continue
            }
            // Alone, the clock's own events are its progress: a sleep, a wake or a cancellation
            // starts the window again.
            let wakeUp = ExpiringWakeUp()
            let (ready, generation) = state.withLock { state -> (Bool, UInt64) in
                if state.sleepers.count >= count { return (true, state.generation) }
                state.sleeperWaiters.append((count, wakeUp))
                return (false, state.generation)
            }
            if generation != seenGeneration {
                seenGeneration = generation
                start = PoolTime.shared.now
            }
            if !ready {
                // An expired window fails only if the sleepers are still missing once this task
                // runs again: the expiry and the sleep that ends the wait can both wait for the
                // same busy pool, and the sleep may come first.
                guard await wakeUp.wait(window: limit, from: start) || sleeperCount >= count else { throw failure() }
                continue
            }
            await settleBlind(afterWake: false)
            if sleeperCount >= count { return }
        }
    }

    // MARK: Settling

    /// Resumes the woken sleepers; a sleeper that is not counted work of the owner's store (a
    /// test's own task, a task a stub created) cannot be seen once it runs, so the clock then also
    /// waits the blind way after it.
    private func wake(_ due: [Sleeper]) async {
        let counter = self.counter
        counter?.noteProgress()
        for sleeper in due { sleeper.continuation.resume(returning: true) }
        if counter == nil || due.contains(where: { $0.continuation.unit == nil }) {
            await settleBlind(afterWake: true)
        }
    }

    /// Waits until the owner's store is quiet (see ``advance(to:)``). Returns `false` when it gave
    /// up because nothing progressed for ``timeout``; the failure is recorded with the owner then,
    /// unless `recording` is false (the caller throws it itself).
    private func settle(while doing: String, recording: Bool = true) async -> Bool {
        guard let owner = owner.withLock({ $0 }) else {
            await settleBlind(afterWake: false)
            return true
        }
        let limit = timeout
        let settled = await owner.counter.wait(timeout: limit) { owner.counter.snapshot.running == 0 }
        if !settled, recording {
            owner.recordFailure(
                """
                \(doing) gave up: the store's work kept running with no progress for \(describeSeconds(limit))
                \(inFlightLines().joined(separator: "\n"))
                """)
        }
        return settled
    }

    /// The fallback of a clock that cannot see the work it woke (used alone, or a sleeper that is
    /// not counted work of a store): quiet is taken to have come when no sleep, wake or
    /// cancellation happened across four rounds of eight `Task.yield()`s (a job already queued runs
    /// before a yield returns), every woken sleeper has resumed, and, after a wake, that quiet
    /// lasted `blindQuiet` of real time: the woken work may end or sleep again a moment later, on
    /// another thread. Bounded by ``timeout``. A ``TestStore``'s clock never needs it for the
    /// store's own work.
    private func settleBlind(afterWake: Bool) async {
        let start = ContinuousClock.now
        let limit = start + timeout
        var last = state.withLock { $0.generation }
        var quietRounds = 0
        var quietSince = start
        while true {
            // Yields, because a clock used alone has no event that says the woken work went on.
            for _ in 0..<8 { await Task.yield() }
            let (generation, resumed) = state.withLock { ($0.generation, $0.wokenNotResumed == 0) }
            let now = ContinuousClock.now
            if resumed, generation == last {
                quietRounds += 1
            } else {
                quietRounds = 0
                quietSince = now
            }
            last = generation
            if quietRounds >= 4, !afterWake || now - quietSince >= Self.blindQuiet { return }
            if now >= limit { return }
        }
    }

    /// How long the quiet after a wake must last before a clock that cannot see the woken work
    /// trusts it.
    static let blindQuiet: Duration = .milliseconds(10)

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
        let owner = owner.withLock { $0 }?.inFlight() ?? []
        let sleepers = sleeperLines()
        let lines = owner + (sleepers.isEmpty ? ["  nothing asleep on the clock (now \(now))"] : sleepers)
        return ["in flight:"] + lines + sanitizerNote()
    }

    private func describe(_ duration: Duration) -> String { "\(duration)" }

    private static func wake(at deadline: Instant, _ state: inout State) -> [Sleeper] {
        if deadline > state.now { state.now = deadline }
        let due = state.sleepers.filter { $0.deadline == deadline }
        state.sleepers.removeAll { $0.deadline == deadline }
        state.wokenNotResumed += due.count
        state.generation &+= 1
        return due
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [ExpiringWakeUp] {
        var ready: [ExpiringWakeUp] = []
        state.sleeperWaiters.removeAll { waiter in
            guard state.sleepers.count >= waiter.count else { return false }
            ready.append(waiter.wakeUp)
            return true
        }
        return ready
    }
}
