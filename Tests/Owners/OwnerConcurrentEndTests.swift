import OresRedux
import Testing

/// Two threads end the same owner at once (a screen's task cancelled while its view controller is
/// released): each `end()` keeps the promise when it returns, not only the first.
@Suite("Work that belongs to a screen: ends called at once")
struct OwnerConcurrentEndTests {
    typealias AppState = OwnerStories.AppState
    typealias Note = OwnerStories.Note
    typealias Quick = OwnerStories.Quick<AppState>

    @Test("an end() called while another is still ending returns only once nothing it cancelled can apply")
    func concurrentEnds() async throws {
        for round in 0..<20 {
            let store = OwnerStories.makeStore()
            let owner = store.makeOwner("Feed screen")
            var runs: [GraphRun<AppState>] = []
            for index in 0..<200 {
                var graph = ActionGraph<AppState>()
                let call = graph.run(Quick(name: "call"))
                graph.send(after: call) { _ in Note("shown \(index)") }
                runs.append(owner.dispatch(graph))
            }

            // Both ends at once, while the calls answer and their screen's notes are applied; each
            // reads how many actions were applied when it returned.
            let appliedWhenEachReturned = try await withDeadline {
                await withTaskGroup(of: Int.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            owner.end()
                            return store.state.applied.count
                        }
                    }
                    return await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            for run in runs { _ = try await withDeadline { await run.wait() } }

            // A note in the middleware at the moment of the end completes (it was not cancelled);
            // the pipeline holds one action at a time, so at most one is applied after a return.
            let applied = store.state.applied.count
            for appliedThen in appliedWhenEachReturned {
                #expect(
                    applied - appliedThen <= 1,
                    "round \(round): \(applied - appliedThen) notes were applied after an end() returned")
            }
        }
    }
}
