import OresRedux
import OresReduxTesting
import Testing

/// A small app: log in, then load profile and feed in parallel with the token, then show home.
enum HomeApp {
    struct Profile: Equatable, Sendable { var name: String }
    struct Post: Equatable, Sendable { var id: Int }
    struct Offline: Error, Equatable {}

    struct State: Equatable, Sendable {
        var token: String?
        var profile: Profile?
        var feed: [Post] = []
        var error: String?
    }

    struct LogIn: AsyncAction, Equatable {
        var user: String
        func run(_ context: ActionContext<State>) async throws -> String { fatalError("network in a test") }
    }
    struct FetchProfile: AsyncAction, Equatable {
        var token: String
        func run(_ context: ActionContext<State>) async throws -> Profile { fatalError("network in a test") }
    }
    struct FetchFeed: AsyncAction, Equatable {
        var token: String
        func run(_ context: ActionContext<State>) async throws -> [Post] { fatalError("network in a test") }
    }
    struct SetToken: Action { var token: String }
    struct ShowHome: Action { var profile: Profile; var feed: [Post] }
    struct ShowError: Action { var message: String }

    static let reducer = Reducer<State>.combine(
        .on(SetToken.self) { state, action in state.token = action.token },
        .on(ShowHome.self) { state, action in
            state.profile = action.profile
            state.feed = action.feed
        },
        .on(ShowError.self) { state, action in state.error = action.message }
    )

    struct Home {
        var graph = ActionGraph<State>()
        var token: Node<String>
        var profile: Node<Profile>
        var feed: Node<[Post]>
        var show: Node<Void>
    }

    static func home(user: String, feedTimeout: Duration? = nil, feedRetry: RetryPolicy? = nil) -> Home {
        var graph = ActionGraph<State>()
        let token = graph.run(LogIn(user: user))
        graph.send(after: token) { token in SetToken(token: token) }
        let profile = graph.run(after: token) { token in FetchProfile(token: token) }
        let feed = graph.run(after: token) { token in FetchFeed(token: token) }
        let show = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
        graph.setFallback(for: feed) { error in ShowError(message: "could not load the feed: \(error)") }
        if let feedTimeout { graph.setTimeout(feedTimeout, for: feed) }
        if let feedRetry { graph.setRetry(feedRetry, for: feed) }
        return Home(graph: graph, token: token, profile: profile, feed: feed, show: show)
    }
}

@Suite("TestStore: dependency-ordering tests, as users write them")
struct TestStoreTests {
    typealias App = HomeApp

    @Test("Home appears after log in, with the profile and feed fetched with the token")
    func homeLoadsAfterLogIn() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn(user: "ada"), with: "token-ada")
        store.stub(App.FetchProfile.self) { action in App.Profile(name: "Ada (\(action.token))") }
        store.stub(App.FetchFeed.self, with: [App.Post(id: 1), App.Post(id: 2)])

        let home = App.home(user: "ada")
        store.dispatch(home.graph)

        try await store.receive(App.SetToken.self) { $0.token = "token-ada" }
        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: "Ada (token-ada)")
            $0.feed = [App.Post(id: 1), App.Post(id: 2)]
        }
        try store.assertReached(App.ShowHome.self, after: App.SetToken.self)
        #expect(store.calls(to: App.FetchFeed.self) == [App.FetchFeed(token: "token-ada")])
        try await store.finish()
    }

    @Test("A failing feed shows the fallback and skips home, while the profile still loads")
    func feedFailureShowsFallback() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, throwing: App.Offline())

        let home = App.home(user: "ada")
        let run = store.dispatch(home.graph)

        try await store.receive(App.SetToken.self) { $0.token = "t" }
        try await store.receive(App.ShowError.self) { $0.error = "could not load the feed: Offline()" }
        try await store.assertSkipped(home.show, in: run, because: home.feed)
        #expect(
            try await withDeadline(10, "the value of home.profile") { try await run.value(of: home.profile) }
                == App.Profile(name: "Ada"))
        try await store.finish()
    }

    @Test("A 30-second feed timeout is tested in virtual time")
    func feedTimeoutInVirtualTime() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        let feed = store.hold(App.FetchFeed.self)

        let home = App.home(user: "ada", feedTimeout: .seconds(30))
        let run = store.dispatch(home.graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        #expect(try await feed.nextCall() == App.FetchFeed(token: "t"))

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(30))

        try await store.receive(App.ShowError.self) {
            $0.error = "could not load the feed: the attempt timed out after 30.0 seconds"
        }
        #expect(
            try await withDeadline(10, "the outcome of home.feed") { await run.outcome(of: home.feed) }.error
                as? GraphError == .timedOut(after: .seconds(30)))
        try await store.finish()
    }

    @Test("A retry with back-off succeeds on the second attempt")
    func retryWithBackOff() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, sequence: [.failure(App.Offline()), .success([App.Post(id: 7)])])

        let home = App.home(user: "ada", feedRetry: .retry(1, backoff: .constant(.seconds(2))))
        let run = store.dispatch(home.graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }

        try await store.clock.waitForSleepers(1)  // the back-off before the second attempt
        await store.clock.advance(by: .seconds(2))

        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: "Ada")
            $0.feed = [App.Post(id: 7)]
        }
        #expect(try await withDeadline { await run.wait() }[home.feed].attempts == 2)
        try await store.finish()
    }

    @Test("A wrong expectation fails with a field-by-field diff")
    func wrongExpectationShowsDiff() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [App.Post(id: 1)])
        store.dispatch(App.home(user: "ada").graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }

        let failure = await #expect(throws: TestStoreFailure.self) {
            try await store.receive(App.ShowHome.self) {
                $0.profile = App.Profile(name: "Bob")
                $0.feed = [App.Post(id: 1)]
            }
        }
        let message = failure?.message ?? ""
        #expect(message.contains("state after ShowHome differs"))
        #expect(message.contains(#"profile.name: expected "Bob", actual "Ada""#))
        #expect(!message.contains("feed"))
        #expect(failure?.location.hasPrefix("OresReduxTests/TestStoreTests.swift:") == true)
    }

    @Test("An async action without a stub fails the test, naming it")
    func missingStubFails() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.dispatch(App.home(user: "ada").graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        try await store.receive(App.ShowError.self) { $0.error = #"could not load the feed: FetchFeed has no stub"# }

        let failure = await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        #expect(failure?.message.contains("FetchFeed was run but has no stub") == true)
    }

    /// A search feature written against a scope of the app's state.
    struct Shop: Equatable, Sendable { var search = Search() }
    struct Search: Equatable, Sendable { var results: [String] = [] }
    struct SearchCatalog: AsyncAction {
        func run(_ context: ActionContext<Search>) async throws -> [String] { ["saw"] }
    }

    @Test(
        "A scoped feature's async action run on the app's test store: the failure says to test the feature on its own")
    func missingStubOfAScopedFeature() async throws {
        let store = TestStore(initialState: Shop(), reducer: .scope(\Shop.search, Reducer<Search>.combine()))
        let task = store.store.scope(\.search).dispatch(SearchCatalog())
        _ = try? await withDeadline { try await task.value }

        let failure = await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        let message = failure?.message ?? ""
        #expect(message.contains("SearchCatalog was run but has no stub"))
        #expect(message.contains("TestStore<Search>"), "it names the test store that can stub it: \(message)")
        #expect(!message.contains("store.stub(SearchCatalog.self"), "a stub this test store cannot take")
    }

    @Test("Finish lists actions that reached the reducer but were not asserted")
    func unassertedActionsFailFinish() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        let run = store.dispatch(App.home(user: "ada").graph)
        _ = try await withDeadline { await run.wait() }

        let failure = await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        #expect(
            failure?.message.contains("2 action(s) reached the reducer but were not asserted: SetToken, ShowHome")
                == true)
    }

    @Test("Receiving an action that never comes fails once the work is done, instead of hanging")
    func receiveNeverHangs() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, throwing: App.Offline())
        store.dispatch(App.home(user: "ada").graph)

        let failure = await #expect(throws: TestStoreFailure.self) {
            try await store.receive(App.SetToken.self) { $0.token = "t" }
        }
        #expect(failure?.message.contains("never reached the reducer") == true)
        try await store.finish()
    }

    @Test("Non-exhaustive mode skips actions the test does not care about")
    func nonExhaustive() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, exhaustivity: .off)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        store.dispatch(App.home(user: "ada").graph)

        try await store.receive(App.ShowHome.self) { $0.profile = App.Profile(name: "Ada") }
        try await store.finish()
    }

    @Test("send asserts a sync action's state change, and a send that changes nothing unexpected passes")
    func sendAssertsStateChange() throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        try store.send(App.SetToken(token: "abc")) { $0.token = "abc" }
        #expect(throws: TestStoreFailure.self) { try store.send(App.SetToken(token: "xyz")) }
        #expect(store.state.token == "xyz")
    }

    @Test("A held call is answered when the test says so, and finish refuses while one waits")
    func heldCallsWaitForTheTest() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        let login = store.hold(App.LogIn.self)
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        store.dispatch(App.home(user: "ada").graph)

        #expect(try await login.nextCall() == App.LogIn(user: "ada"))
        await #expect(throws: TestStoreFailure.self) { try await store.finish() }

        login.respond(with: "late-token")
        try await store.receive(App.SetToken.self) { $0.token = "late-token" }
        try await store.receive(App.ShowHome.self) { $0.profile = App.Profile(name: "Ada") }
        try await store.finish()
    }
}
