import OresRedux
import Testing

extension CoreStore {
    /// A store with no middleware and no subscriber enters its pipeline, reduces and leaves it in one
    /// critical section. Semantics 9 hold there as everywhere: one action at a time, none lost, and
    /// work queued while the reducer runs is applied before the dispatch returns.
    @Suite struct UnobservedDispatch {
        @Test func dispatchesFromSeveralThreadsAreReducedOneAtATimeAndNoneIsLost() async throws {
            let threads = 4
            let perThread = 2_000
            let overlap = OverlapDetector()
            let store = Store(
                initialState: 0,
                reducer: .on(Increment.self) { count, action in overlap.during { count += action.by } })

            try await withDeadline(30, "dispatches from \(threads) threads") {
                await onThreads(threads) { _ in
                    for _ in 0..<perThread { store.dispatch(Increment()) }
                }
            }

            #expect(store.state == threads * perThread)
            #expect(overlap.overlapCount == 0, "two reducer calls overlapped")
        }

        @Test func aReducerThatCancelsARunOfItsStoreNeitherDeadlocksNorLeavesTheRunUnfinished() async throws {
            struct CancelTheRun: Action {}
            struct Held: AsyncAction {
                let release: Latch
                func run(_ context: ActionContext<Int>) async throws -> Int {
                    try await release.wait()
                    return 1
                }
            }
            let heldRun = Locked<GraphRun<Int>?>(nil)
            let store = Store(
                initialState: 0,
                reducer: .combine(
                    .on(CancelTheRun.self) { _, _ in heldRun.current?.cancel() },
                    .on(SetValue.self) { count, action in count = action.value }))
            var graph = ActionGraph<Int>()
            let held = graph.run(Held(release: Latch()))
            let after = graph.send(after: held) { SetValue(value: $0) }
            let run = store.dispatch(graph)
            heldRun.withLock { $0 = run }

            // The reducer takes the store's lock again (the run's cancel waits for reducer calls in
            // progress) and may put the run back in the pipeline while this dispatch holds it.
            try await withDeadline(10, "a dispatch whose reducer cancels a run") {
                await onThread { store.dispatch(CancelTheRun()) }
            }
            let report = try await withDeadline(10, "the cancelled run") { await run.wait() }

            #expect(report[held].outcome == .cancelled)
            #expect(report[after].outcome == .cancelled)
            #expect(store.state == 0)
        }
    }
}
