import Testing

@testable import OresRedux

/// A store whose state has no stored property at all (a screen that only reacts to actions).
///
/// Under ThreadSanitizer (CI's `tsan` step) this failed every time before the store kept a count
/// beside its state: the reducer's in-place update of an empty state was placed at the store
/// object's first byte and reported as a race with async nodes that read the object's header on
/// other threads. Without the sanitizer it checks only that such a store runs.
@Suite("A store of an empty state")
struct EmptyStateTests {
    struct Nothing: Equatable, Sendable {}
    struct Tap: Action {}
    struct Load: AsyncAction {
        func run(_ context: ActionContext<Nothing>) async throws -> Int { 1 }
    }

    @Test("graphs of sync and async nodes run on many threads, with nothing for the sanitizer to report")
    func graphsOnManyThreads() async throws {
        for _ in 0..<300 {
            let store = Store(initialState: Nothing(), reducer: Reducer { _, _ in })
            var graph = ActionGraph<Nothing>()
            for _ in 0..<4 { graph.send(Tap()) }
            for _ in 0..<4 { graph.run(Load()) }
            for _ in 0..<4 { graph.send(Tap()) }
            let run = store.dispatch(graph)
            let report = try await withDeadline(10, "a run") { await run.wait() }
            #expect(report.count(of: .succeeded) == 12)
        }
    }
}
