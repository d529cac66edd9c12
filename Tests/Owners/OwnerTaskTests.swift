import OresRedux
import Testing

/// An owner that lasts as long as a task: what SwiftUI's `.task(owner:)` rests on, told without
/// SwiftUI (a cancelled `Task` is a view that disappeared).
@Suite("Work that belongs to a screen: an owner that ends with its task")
struct OwnerTaskTests {
    typealias AppState = OwnerStories.AppState
    typealias Gate = OwnerStories.Gate
    typealias Note = OwnerStories.Note
    typealias Call = OwnerStories.Call<AppState>

    /// The feed screen's graph: a call at `gate`, then the note that shows its answer.
    static func feedGraph(_ gate: Gate) -> (ActionGraph<AppState>, Node<String>, Node<Void>) {
        var graph = ActionGraph<AppState>()
        let feed = graph.run(Call("feed", gate))
        let shown = graph.send(after: feed) { feed in Note("shows \(feed)") }
        return (graph, feed, shown)
    }

    @Test("the work it started goes on after it returned, and ends when the task is cancelled")
    func endsWhenTheTaskIsCancelled() async throws {
        let store = OwnerStories.makeStore()
        let gate = Gate()
        let (graph, feed, shown) = Self.feedGraph(gate)
        let runs = OwnerStories.Recorder<GraphRun<AppState>>()
        let owner = store.makeOwner("Feed screen")
        let screen = Task { await owner.endWhenCancelled { owner in runs.record(owner.dispatch(graph)) } }
        try await withDeadline { await gate.arrivals(1) }
        #expect(!owner.isEnded, "the screen is still there")

        screen.cancel()  // the view disappears
        try await withDeadline { await screen.value }

        #expect(owner.isEnded)
        let run = try #require(runs.all.first)
        let report = try await withDeadline { await run.wait() }
        #expect(report[feed].outcome == .cancelled && report[shown].outcome == .cancelled)
        #expect(store.state.applied.isEmpty)
    }

    @Test("a task cancelled while its work is still awaiting ends the owner then")
    func endsWhileTheWorkAwaits() async throws {
        let store = OwnerStories.makeStore()
        let gate = Gate()
        let (graph, feed, _) = Self.feedGraph(gate)
        let owner = store.makeOwner("Feed screen")
        let screen = Task {
            var outcome: OutcomeKind?
            await owner.endWhenCancelled { owner in
                let run = owner.dispatch(graph)
                outcome = await run.wait()[feed].outcome  // a plain wait: the owner's end is what ends it
            }
            return outcome
        }
        try await withDeadline { await gate.arrivals(1) }

        screen.cancel()

        let outcome = try await withDeadline { await screen.value }
        #expect(outcome == .cancelled)
        #expect(owner.isEnded)
    }

    @Test("a task cancelled before it starts gives its work an owner that has ended: nothing runs")
    func alreadyCancelled() async throws {
        let diagnostics = OwnerStories.Recorder<StoreDiagnostic>()
        let store = OwnerStories.makeStore(diagnostics: diagnostics)
        let gate = Gate()
        let (graph, feed, _) = Self.feedGraph(gate)
        let owner = store.makeOwner("Feed screen")
        let screen = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var outcome: OutcomeKind?
            await owner.endWhenCancelled { owner in outcome = await owner.dispatch(graph).wait()[feed].outcome }
            return outcome
        }

        let outcome = try await withDeadline { await screen.value }

        #expect(outcome == .cancelled)
        #expect(diagnostics.all.map(\.kind) == [.dispatchRefusedByOwner])
    }

    @Test("on the main actor, its work may touch the screen's own state")
    @MainActor
    func onTheMainActor() async throws {
        final class FeedScreen {
            var lines: [String] = []
        }
        let store = OwnerStories.makeStore()
        let screenState = FeedScreen()
        let owner = store.makeOwner("Feed screen")
        let shown = Gate()
        let screen = Task { @MainActor in
            await owner.endWhenCancelled { owner in
                let task = owner.dispatch(OwnerStories.Quick<AppState>(name: "hello"))
                screenState.lines.append((try? await task.value) ?? "-")
                try? await shown.pass()  // stays until the screen goes away
            }
        }
        try await withDeadline { await shown.arrivals(1) }
        screen.cancel()
        try await withDeadline { await screen.value }
        #expect(screenState.lines == ["hello"])
        #expect(owner.isEnded)
    }
}
