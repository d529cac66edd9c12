import OresRedux
import Testing

// The snippet of Sources/OresRedux.docc/OresRedux.md, the landing page.

extension GuideApp {
    @Suite("Guide: OresRedux landing page")
    struct LandingPageGuide {
        @Test("Landing page guide: two calls in parallel after log in, then one update with both")
        func landingPageGraph() async {
            let store = Store(initialState: AppState(), reducer: appReducer)

            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
            let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
            graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

            let report = await store.dispatch(graph).wait()  // always returns: every node ends

            #expect(report.count(of: .succeeded) == 4)
            #expect(store.state.profile == Profile(name: "Ada"))
            #expect(store.state.feed == [Post(id: 1), Post(id: 2)])
        }
    }
}
