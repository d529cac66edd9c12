import OresRedux
import Testing

#if canImport(SwiftUI)
    import SwiftUI
#endif

// The snippets of Sources/OresRedux.docc/RunningWork/WorkThatBelongsToAScreen.md, with the types they need.

enum ScreenGuideApp {
    struct GameState: Equatable, Sendable { var level = 0 }

    struct AppState: Equatable, Sendable {
        var home: String?
        var posts: [String] = []
        var game: GameState? = GameState()
    }

    struct Session: Sendable { var token: String }

    struct LogIn: AsyncAction {
        let user: String
        let password: String
        func run(_ context: ActionContext<AppState>) async throws -> Session { Session(token: "token-\(user)") }
    }

    struct FetchProfile: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> String { "Ada" }
    }

    /// The feed's call: it waits until cancelled, as a slow network would.
    struct FetchFeed: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> [String] {
            try await ScreenGuideApp.answerOnlyCancellation()
        }
    }

    /// A call that never answers: it ends when its task is cancelled, as a slow network's would.
    static func answerOnlyCancellation() async throws -> Never {
        let (never, continuation) = AsyncStream<Never>.makeStream()
        for await _ in never {}  // returns once the task is cancelled
        withExtendedLifetime(continuation) {}
        throw CancellationError()
    }

    struct ShowHome: Action {
        let profile: String
        let feed: [String]
    }

    struct SendPost: AsyncAction {
        let text: String
        func run(_ context: ActionContext<AppState>) async throws -> String { text }
    }

    struct PostAppeared: Action { let post: String }
    struct QuitGame: Action {}

    struct LoadLevel: AsyncAction {
        func run(_ context: ActionContext<GameState?>) async throws -> Int {
            try await ScreenGuideApp.answerOnlyCancellation()
        }
    }

    struct LevelLoaded: Action { let level: Int }

    static let reducer = Reducer<AppState> { state, action in
        switch action {
        case let home as ShowHome: state.home = "\(home.profile) \(home.feed)"
        case let appeared as PostAppeared: state.posts.append(appeared.post)
        case is QuitGame: state.game = nil
        case let loaded as LevelLoaded: state.game?.level = loaded.level
        default: break
        }
    }

    static var loadLevelGraph: ActionGraph<GameState?> {
        var graph = ActionGraph<GameState?>()
        let level = graph.run(LoadLevel())
        graph.send(after: level) { level in LevelLoaded(level: level) }
        return graph
    }

    static func feedGraph() -> ActionGraph<AppState> {
        var graph = ActionGraph<AppState>()
        graph.run(FetchFeed(token: "t"))
        return graph
    }

    #if canImport(SwiftUI)
        struct FeedView: View {
            let store: Store<AppState>
            var body: some View {
                Text("Feed")
                    .task { await store.dispatch(feedGraph()).wait(cancelsOnTaskCancel: true) }
            }
        }

        struct FeedScreen: View {
            let store: Store<AppState>
            var body: some View {
                Text("Feed")
                    .task(owner: "Feed", of: store) { owner in owner.dispatch(feedGraph()) }
            }
        }
    #endif
}

@Suite("Guide: Work That Belongs to a Screen")
struct WorkThatBelongsToAScreenGuideTests {
    typealias App = ScreenGuideApp
    typealias LogIn = App.LogIn
    typealias FetchProfile = App.FetchProfile
    typealias FetchFeed = App.FetchFeed
    typealias ShowHome = App.ShowHome
    typealias SendPost = App.SendPost
    typealias PostAppeared = App.PostAppeared
    typealias QuitGame = App.QuitGame
    typealias AppState = App.AppState

    @Test("an owner for a screen's work: the feed is cancelled, the profile kept, home never shown")
    func anOwnerForAScreensWork() async throws {
        let store = Store(initialState: AppState(), reducer: App.reducer)
        let owner = store.makeOwner("Log-in screen")

        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "secret"))
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
        graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
        graph.setOwnerEndPolicy(.finish, for: profile)  // the cache keeps the profile
        let run = owner.dispatch(graph)

        _ = try await withDeadline { try await run.value(of: session) }
        owner.end()
        let profileValue = try await withDeadline { try await run.value(of: profile) }
        #expect(profileValue == "Ada")
        let report = try await withDeadline { await run.wait() }
        #expect(report[feed].outcome == .cancelled)
        #expect(store.state.home == nil)
    }

    @Test("a post outlives its composer, and the list learns of it")
    func aPolicyPerNode() async throws {
        let store = Store(initialState: AppState(), reducer: App.reducer)
        let composerOwner = store.makeOwner("Composer")

        var composer = ActionGraph<AppState>()
        let post = composer.run(SendPost(text: "Hello"))
        composer.send(after: post) { sent in PostAppeared(post: sent) }  // the list learns of it
        composer.setOwnerEndPolicy(.finishWithDependents, for: post)
        let run = composerOwner.dispatch(composer)
        composerOwner.end()  // the post still reaches the server, and PostAppeared is applied

        _ = try await withDeadline { await run.wait() }
        #expect(store.state.posts == ["Hello"])
    }

    @Test("a presented child's owner ends when the child becomes nil")
    func aPresentedChild() async throws {
        let app = Store(initialState: AppState(), reducer: App.reducer)
        let loadLevelGraph = App.loadLevelGraph

        let game = app.scope(\.game)  // ScopedStore<GameState?>
        let gameOwner = game.makeOwner("Game")
        let run = gameOwner.dispatch(loadLevelGraph)  // an ActionGraph<GameState?>
        app.dispatch(QuitGame())  // sets `game` to nil: the level's load ends here

        #expect(gameOwner.isEnded)
        let report = try await withDeadline { await run.wait() }
        #expect(report.count(of: .cancelled) == 2)
    }

    @Test("waiting that ends with its task")
    func waitingThatEndsWithItsTask() async throws {
        let store = Store(initialState: AppState(), reducer: App.reducer)
        var graph = ActionGraph<AppState>()
        let profile = graph.run(FetchProfile(token: "t"))
        graph.run(FetchFeed(token: "t"))
        let run = store.dispatch(graph)

        let waiting = Task {
            let report = await run.wait(cancelsOnTaskCancel: true)
            let profileValue = try await run.value(of: profile, cancelsOnTaskCancel: true)
            let response = try await store.dispatch(FetchFeed(token: "t")).value(cancelsOnTaskCancel: true)
            return (report, profileValue, response)
        }
        waiting.cancel()  // the screen goes away
        let report = try await withDeadline { await run.wait() }
        #expect(report.count(of: .succeeded) + report.count(of: .cancelled) == 2)
        _ = try await withDeadline(10, "the screen's task") { await waiting.result }
    }

    @Test("an owner that lasts as long as its view: cancelling the screen's task ends the feed's run")
    func anOwnerThatLastsAsLongAsItsView() async throws {
        let store = Store(initialState: AppState(), reducer: App.reducer)
        let feedGraph = App.feedGraph
        let runs = LockedValue<[GraphRun<AppState>]>([])
        let dispatched = AsyncStream<Void>.makeStream()

        let screen = Task {
            await store.makeOwner("Feed").endWhenCancelled { owner in
                runs.withLock { $0.append(owner.dispatch(feedGraph())) }
                dispatched.continuation.finish()
            }
        }
        try await withDeadline { for await _ in dispatched.stream {} }
        screen.cancel()  // the screen goes away: the feed's run ends with it

        try await withDeadline { await screen.value }
        let run = try #require(runs.withLock { $0.first })
        let report = try await withDeadline { await run.wait() }
        #expect(report.count(of: .cancelled) == 1)
    }
}
