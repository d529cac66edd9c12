import Foundation
import OresRedux
import Testing

/// Semantics 7, at the edges the Action Graph guide states ("Joins and shared calls: what is
/// allowed"): what a cancel does to a shared call and to a join, under many interleavings.
@Suite("Joins: the rules at the edges")
struct JoinRulesTests {
    struct State: Sendable {}

    /// Counts how often its calls started and saw their cancellation; a test awaits a count.
    final class CallLog: Sendable {
        private struct Counts {
            var started = 0, cancelled = 0, running = 0
            var waiters: [(condition: @Sendable (CallLog.Snapshot) -> Bool, resume: CheckedContinuation<Void, Never>)] =
                []
        }
        struct Snapshot { let started, cancelled, running: Int }
        private let counts = LockedValue(Counts())

        func start() {
            change {
                $0.started += 1; $0.running += 1
            }
        }
        func end(cancelled: Bool) {
            change {
                $0.running -= 1; if cancelled { $0.cancelled += 1 }
            }
        }
        var started: Int { counts.withLock { $0.started } }
        var cancelled: Int { counts.withLock { $0.cancelled } }
        var running: Int { counts.withLock { $0.running } }

        /// Returns once `condition` holds; the caller bounds the wait with a deadline.
        func until(_ condition: @escaping @Sendable (Snapshot) -> Bool) async {
            await withCheckedContinuation { continuation in
                let holds = counts.withLock { counts -> Bool in
                    if condition(Self.snapshot(counts)) { return true }
                    counts.waiters.append((condition, continuation))
                    return false
                }
                if holds { continuation.resume() }
            }
        }

        private func change(_ update: (inout Counts) -> Void) {
            let ready = counts.withLock { counts -> [CheckedContinuation<Void, Never>] in
                update(&counts)
                let now = Self.snapshot(counts)
                let ready = counts.waiters.filter { $0.condition(now) }.map(\.resume)
                counts.waiters.removeAll { $0.condition(now) }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }

        private static func snapshot(_ counts: Counts) -> Snapshot {
            Snapshot(started: counts.started, cancelled: counts.cancelled, running: counts.running)
        }
    }

    /// A keyed call that never answers: it ends only when its task is cancelled.
    struct Hang: KeyedAsyncAction {
        typealias State = JoinRulesTests.State
        let key: Int
        let log: CallLog
        func run(_ context: ActionContext<State>) async throws -> Int {
            log.start()
            let stream = AsyncStream<Never> { _ in }
            for await _ in stream {}  // ends when the task is cancelled
            log.end(cancelled: Task.isCancelled)
            throw CancellationError()
        }
    }

    /// Waits until `condition` holds, or fails after 10 s of a live pool with no progress.
    static func eventually(
        _ log: CallLog, _ what: String, _ condition: @escaping @Sendable (CallLog.Snapshot) -> Bool
    ) async throws {
        try await withDeadline(10, what) { await log.until(condition) }
    }

    @Test("a shared call whose every joiner cancelled is cancelled: a dispatch, a second dispatch and a graph node")
    func everyJoinerCancelledCancelsTheCall() async throws {
        let rounds = stressCount(500, underThreadSanitizer: 100)
        for round in 0..<rounds {
            let store = Store(initialState: State(), reducer: Reducer { _, _ in })
            let log = CallLog()
            let first = store.dispatch(Hang(key: 1, log: log))
            let second = store.dispatch(Hang(key: 1, log: log))
            var graph = ActionGraph<State>()
            let node = graph.run(Hang(key: 1, log: log))
            let run = store.dispatch(graph)
            if round % 2 == 0 { try await Self.eventually(log, "the call to start") { $0.started == 1 } }
            // All three withdraw at once, from three tasks.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { first.cancel() }
                group.addTask { second.cancel() }
                group.addTask { run.cancel() }
            }
            let outcome = try await withDeadline(10, "the run, round \(round)") { await run.outcome(of: node) }
            #expect(outcome.isCancelled, "round \(round): \(outcome)")
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the first dispatch") { try await first.value }
            }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the second dispatch") { try await second.value }
            }
            // Every call started for the key saw its cancellation: none is left running. (There may be
            // two: a node that joins only after the dispatches withdrew starts a fresh call, which
            // the guide allows.)
            try await Self.eventually(log, "round \(round): the shared calls to end") { $0.running == 0 }
            #expect(log.cancelled == log.started, "round \(round): every call was cancelled")
        }
    }

    @Test("a joining run cancelled before the joined work ends: its join node ends cancelled, the work goes on")
    func joiningRunCancelledEndsItsJoinCancelled() async throws {
        let rounds = stressCount(500, underThreadSanitizer: 100)
        for round in 0..<rounds {
            let store = Store(initialState: State(), reducer: Reducer { _, _ in })
            let log = CallLog()
            let work = store.dispatch(Hang(key: round, log: log))
            var graph = ActionGraph<State>()
            let joined = graph.join(work)
            let run = store.dispatch(graph)
            for _ in 0..<(round % 4) { await Task.yield() }
            run.cancel()
            let outcome = try await withDeadline(10, "the run, round \(round)") { await run.outcome(of: joined) }
            #expect(outcome.isCancelled, "round \(round): \(outcome)")
            #expect(log.cancelled == 0, "round \(round): the joined work belongs to whoever started it")
            work.cancel()
            try await Self.eventually(log, "round \(round): the work to end") { $0.running == 0 }
        }
    }

    @Test(
        "after every joiner withdrew, a new dispatch of the key starts a new call (the old one may still be winding down)"
    )
    func aNewDispatchAfterEveryoneWithdrewStartsAFreshCall() async throws {
        let store = Store(initialState: State(), reducer: Reducer { _, _ in })
        let log = CallLog()
        let first = store.dispatch(Hang(key: 1, log: log))
        try await Self.eventually(log, "the first call to start") { $0.started == 1 }
        first.cancel()
        let second = store.dispatch(Hang(key: 1, log: log))
        try await Self.eventually(log, "the second call to start") { $0.started == 2 }
        second.cancel()
        try await Self.eventually(log, "both calls to end") { $0.running == 0 }
        #expect(log.cancelled == 2)
    }
}

extension Outcome {
    fileprivate var isCancelled: Bool {
        if case .cancelled = self { true } else { false }
    }
}
