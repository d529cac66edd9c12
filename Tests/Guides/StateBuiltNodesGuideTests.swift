import OresRedux
import Testing

// The snippet of the section "Nodes built from the state when they start" of
// Sources/OresRedux.docc/Essentials/TheActionGraph.md.

extension GuideApp {
    @Suite("Guide: The Action Graph, state-built nodes")
    struct StateBuiltNodesGuide {
        @Test("ActionGraph guide: a graph built before log-in reads the session and the read posts when it runs")
        func builtBeforeItRuns() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)

            var graph = ActionGraph<AppState>()
            let feed = graph.run { state in FetchFeed(token: state.session?.token ?? "") }
            graph.send(after: feed) { state, feed in
                ShowBanner(message: "\(feed.filter { !state.read.contains($0.id) }.count) unread")
            }

            store.dispatch(SignedIn(session: Session(token: "token-ada")))  // after the graph was built
            store.dispatch(MarkRead(id: 1))
            let run = store.dispatch(graph)
            _ = try await withDeadline { await run.wait() }
            #expect(try await withDeadline { try await run.value(of: feed) } == [Post(id: 1), Post(id: 2)])
            #expect(store.state.banner == "1 unread")
        }
    }
}
