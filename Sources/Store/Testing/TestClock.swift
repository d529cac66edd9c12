/// A clock that moves only when a test says so, so a 30-second timeout is tested in microseconds.
///
/// Give it to a store (`StoreOptions(clock: clock)`) and every graph timeout, retry back-off and
/// delay node sleeps on it. Time stands still until ``advance(by:)``, which wakes, in deadline order,
/// every sleeper whose deadline has come. ``waitForSleepers(_:)`` lets a test wait until the work it
/// started is actually asleep before advancing, with no real sleep and no guessing.
///
/// ```swift
/// let clock = TestClock()
/// let store = Store(initialState: AppState(), reducer: reducer, options: StoreOptions(clock: clock))
/// let run = store.dispatch(graph)          // a node with a 30 s timeout
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(30))
/// #expect(await run.outcome(of: node).error as? GraphError == .timedOut(after: .seconds(30)))
/// ```
public final class TestClock: Clock, Sendable {
    /// A point on a test clock: the time advanced since the clock was made.
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
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelledBeforeRegistering: Set<UInt64> = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant; it changes only in ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: a test clock has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// How many sleepers wait for a deadline that has not come.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced to `deadline` (at once if it already is).
    /// - Throws: `CancellationError` if the sleeping task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case now, cancelled, waiting([CheckedContinuation<Void, Never>]) }
                let start = state.withLock { state -> Start in
                    if state.cancelledBeforeRegistering.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .now }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .waiting(Self.takeSatisfiedWaiters(&state))
                }
                switch start {
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let waiters): for waiter in waiters { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledBeforeRegistering.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // A sleep that ended normally leaves no trace; drop a cancellation mark that came too late.
        state.withLock { _ = $0.cancelledBeforeRegistering.remove(id) }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration = .zero) {
        let target = now.advanced(by: duration)
        advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline has come,
    /// earliest first.
    public func advance(to instant: Instant) {
        let due = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` sleepers are waiting on this clock: the moment to advance it.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        state.sleeperWaiters.removeAll { waiter in
            guard state.sleepers.count >= waiter.count else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}
