import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of README.md ("The counter", "Two network calls, then one update", "Testing the
// order of things"), as written there, with an `api` that answers at once.

/// The README's network client: here a stub whose feed can fail.
private struct StubAPI: Readme.API {
    let feedFails: Bool
    func logIn(_ user: String, _ password: String) async throws -> Readme.Session { .init(token: "t-\(user)") }
    func profile(_ token: String) async throws -> Readme.Profile { .init(name: "Ada") }
    func feed(_ token: String) async throws -> [Readme.Post] {
        if feedFails { throw URLError(.badServerResponse) }
        return [.init(id: 1, text: "hello")]
    }
}

/// Which stub the README's actions call; set by each test before it dispatches.
private let failingFeed = ReadmeFlag()
private var api: any Readme.API { StubAPI(feedFails: failingFeed.value) }

private final class ReadmeFlag: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

enum Readme {
    struct Session: Equatable, Sendable { var token: String }
    struct Profile: Equatable, Sendable { var name: String }
    struct Post: Equatable, Sendable { var id: Int; var text: String }
    struct AppState: Equatable, Sendable {
        var profile: Profile?
        var feed: [Post] = []
        var banner: String?
    }

    protocol API: Sendable {
        func logIn(_ user: String, _ password: String) async throws -> Session
        func profile(_ token: String) async throws -> Profile
        func feed(_ token: String) async throws -> [Post]
    }

    static let appReducer = Reducer<AppState>.combine(
        .on(ShowHome.self) { state, action in
            state.profile = action.profile
            state.feed = action.feed
        },
        .on(ShowBanner.self) { state, action in state.banner = action.message }
    )

    struct LogIn: AsyncAction {
        let user: String, password: String
        func run(_ context: ActionContext<AppState>) async throws -> Session { try await api.logIn(user, password) }
    }
    struct FetchProfile: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> Profile { try await api.profile(token) }
    }
    struct FetchFeed: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> [Post] { try await api.feed(token) }
    }
    struct ShowHome: Action { let profile: Profile; let feed: [Post] }
    struct ShowBanner: Action { let message: String }

    struct Increment: Action { var amount = 1 }
    struct Reset: Action {}

    /// The graph above, built by one function that the app and its tests share.
    static func homeGraph() -> (graph: ActionGraph<AppState>, feed: Node<[Post]>, home: Node<Void>) {
        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "lovelace"))
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
        let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
        graph.setTimeout(.seconds(5), for: feed)
        graph.setFallback(for: feed) { error in ShowBanner(message: "could not load the feed") }
        return (graph, feed, home)
    }
}

/// README's "Testing the order of things", as written there, on the README's own types.
@Suite("README: testing the order of things")
struct ReadmeTestStoreTests {
    typealias AppState = Readme.AppState
    typealias Session = Readme.Session
    typealias Profile = Readme.Profile
    typealias Post = Readme.Post
    typealias LogIn = Readme.LogIn
    typealias FetchProfile = Readme.FetchProfile
    typealias FetchFeed = Readme.FetchFeed
    typealias ShowHome = Readme.ShowHome
    typealias ShowBanner = Readme.ShowBanner
    let appReducer = Readme.appReducer
    func homeGraph() -> (graph: ActionGraph<AppState>, feed: Node<[Post]>, home: Node<Void>) { Readme.homeGraph() }

    @Test func homeShowsProfileAndFeedAfterLogIn() async throws {
        let store = TestStore(initialState: AppState(), reducer: appReducer)
        store.stub(LogIn.self, with: Session(token: "t1"))
        store.stub(FetchProfile.self) { action in Profile(name: "Ada (\(action.token))") }
        store.stub(FetchFeed.self, with: [Post(id: 1, text: "hello")])

        store.dispatch(homeGraph().graph)

        try await store.receive(ShowHome.self) {  // the profile fetched with the log-in's token
            $0.profile = Profile(name: "Ada (t1)")
            $0.feed = [Post(id: 1, text: "hello")]
        }
        try await store.finish()  // nothing left unasserted, no stub missing, every run ended
    }

    @Test func aSlowFeedTimesOutInVirtualTime() async throws {
        let store = TestStore(initialState: AppState(), reducer: appReducer)
        store.stub(LogIn.self, with: Session(token: "t1"))
        store.stub(FetchProfile.self, with: Profile(name: "Ada"))
        let feed = store.hold(FetchFeed.self)  // never answers until told to

        let home = homeGraph()  // the feed has a 5 s timeout
        let run = store.dispatch(home.graph)
        _ = try await feed.nextCall()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(5))  // microseconds, not 5 seconds

        try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
        try await store.assertSkipped(home.home, in: run, because: home.feed)
        try await store.finish()
    }
}

@Suite("README", .serialized)
struct ReadmeTests {
    @Test("README: the counter")
    func counter() {
        typealias Increment = Readme.Increment
        typealias Reset = Readme.Reset
        let printed = GuideApp.Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let store = Store(
            initialState: 0,
            reducer: .combine(
                .on(Increment.self) { count, action in count += action.amount },
                .on(Reset.self) { count, _ in count = 0 }
            ))

        let subscription = store.subscribe { count in print("count:", count) }  // prints 0 at once
        store.dispatch(Increment(amount: 2))  // count: 2, applied before it returns
        print(store.state)  // 2

        #expect(printed.all == ["count: 0", "count: 2", "2"])
        subscription.cancel()
    }

    /// The README's graph, dispatched; returns the report, the home node and the store.
    func twoCallsThenOneUpdate() async throws -> (GraphReport, Node<Void>, Store<Readme.AppState>, [String]) {
        typealias AppState = Readme.AppState
        typealias LogIn = Readme.LogIn
        typealias FetchProfile = Readme.FetchProfile
        typealias FetchFeed = Readme.FetchFeed
        typealias ShowHome = Readme.ShowHome
        typealias ShowBanner = Readme.ShowBanner
        let store = Store(initialState: AppState(), reducer: Readme.appReducer)
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "lovelace"))
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
        let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

        graph.setTimeout(.seconds(5), for: feed)
        graph.setRetry(.retry(2, backoff: .exponential(initial: .milliseconds(200))), for: feed)
        graph.setFallback(for: feed) { error in ShowBanner(message: "could not load the feed") }

        let run = store.dispatch(graph)
        // always returns: every node ends
        let report = try await withDeadline(10, "the README's graph") { await run.wait() }
        print(report)  // a table: node, kind, outcome, start, duration, tries
        return (report, home, store, printed)
    }

    @Test("README: two network calls, then one update")
    func twoCalls() async throws {
        failingFeed.value = false
        let (report, home, store, printed) = try await twoCallsThenOneUpdate()
        #expect(report[home].outcome == .succeeded)
        #expect(store.state.profile?.name == "Ada")
        #expect(store.state.feed.map(\.text) == ["hello"])
        #expect(printed.first?.hasPrefix("#  node") == true)
    }

    @Test("README: the inspector's two lines record the store and write the page")
    func inspector() async throws {
        typealias AppState = Readme.AppState
        failingFeed.value = true
        defer { failingFeed.value = false }
        let appReducer = Readme.appReducer
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("recording.html")

        let inspector = InspectorRecorder<AppState>()
        let store = Store(
            initialState: AppState(), reducer: appReducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        var graph = ActionGraph<AppState>()
        let session = graph.run(Readme.LogIn(user: "ada", password: "lovelace"))
        let feed = graph.run(after: session) { session in Readme.FetchFeed(token: session.token) }
        graph.setFallback(for: feed) { _ in Readme.ShowBanner(message: "could not load the feed") }
        let run = store.dispatch(graph)
        _ = try await withDeadline(10, "the run") { await run.wait() }
        try inspector.writeHTML(to: url)

        let page = try String(contentsOf: url, encoding: .utf8)
        #expect(page.contains(#""ShowBanner""#), "the fallback step is in the page")
        #expect(inspector.recording.runCount == 1)
    }

    @Test("README: the feed fails three times, home is skipped and the banner shows")
    func failingFeedShowsTheBanner() async throws {
        failingFeed.value = true
        defer { failingFeed.value = false }
        let (report, home, store, _) = try await twoCallsThenOneUpdate()
        #expect(report[home].outcome == .skipped)
        #expect(report[2].attempts == 3)  // the feed: the first try and two retries
        #expect(store.state.banner == "could not load the feed")
        #expect(store.state.feed.isEmpty)
    }
}
