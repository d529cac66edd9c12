import OresRedux
import Testing

/// The test helpers' own promises: a wait that never ends fails, by name, once the pool has run
/// for its timeout; work that ends is returned as is.
@Suite("Test support: deadlines and threads")
struct DeadlineTests {
    @Test("a wait nobody ends fails once the pool ran for its timeout, naming what was awaited")
    func aHangFails() async throws {
        // Either failure is a hang caught: the heartbeat's, or the stall rule's if the pool ran
        // nothing at all for its floor.
        let never = GraphStories.Latch()
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(0.3, "a latch nobody opens") { await never.wait() }
        }
        #expect(error?.description.contains("a latch nobody opens") == true)
        never.open()
    }

    @Test("a wait on progress fails once its work stopped moving for its timeout, saying where")
    func aStuckWaitOnProgressFails() async throws {
        // As in `aHangFails`, either failure is a hang caught.
        let never = GraphStories.Latch()
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(0.5, "a batch that stopped", progress: { 7 }) { await never.wait() }
        }
        #expect(error?.description.contains("a batch that stopped") == true)
        if case .stoppedAt(let progress) = error?.kind { #expect(progress == 7) }
        never.open()
    }

    @Test("a wait on progress outlives its timeout while its work moves")
    func aMovingWaitOnProgressGoesOn() async throws {
        // The deadline looks at progress when the wait starts and once each window of pool time
        // has passed; the work ends at the fourth look: three windows, each renewed because the
        // progress moved.
        let looks = LockedValue(0)
        let finished = GraphStories.Latch()
        try await withDeadline(
            0.5, "work that moves",
            progress: {
                let count = looks.withLock { count in
                    count += 1
                    return count
                }
                if count == 4 { finished.open() }
                return count
            }
        ) { await finished.wait() }
        #expect(looks.withLock { $0 } >= 4)
    }

    @Test("work that finishes is returned, and its error thrown")
    func workThatEndsIsReturned() async throws {
        // 10 s, not less: the work needs one turn of a pool that may be busy with hundreds of tests.
        #expect(try await withDeadline(10, "an answer") { 42 } == 42)
        struct Offline: Error {}
        await #expect(throws: Offline.self) { try await withDeadline(10, "a failure") { throw Offline() } }
    }

    @Test("onThreads runs every body on its own plain thread and returns after the last")
    func onThreadsRunsEveryBody() async {
        let seen = CoreStore.Recorder<Int>()
        await onThreads(6) { index in seen.record(index) }
        #expect(seen.values.sorted() == Array(0..<6))
        #expect(await onThread { 7 * 6 } == 42)
    }
}
