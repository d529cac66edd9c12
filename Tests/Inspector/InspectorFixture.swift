import Foundation
import OresRedux
import OresReduxTesting

/// A small app recorded by the inspector's tests: a log-in that loads a profile and a feed, with a
/// feed that fails once and succeeds on retry.
enum InspectorApp {
    struct Session: Equatable, Sendable { var token: String }
    struct Profile: Equatable, Sendable { var name: String }
    struct Post: Equatable, Sendable { var id: Int; var text: String }
    enum Screen: Equatable, Sendable { case login, loading, home(user: String) }

    struct AppState: Equatable, Sendable {
        var screen = Screen.login
        var session: Session?
        var profile: Profile?
        var feed: [Post] = []
        var banner: String?
        var tags: [String: Int] = [:]
    }

    struct StartLoading: Action {}
    struct SignedIn: Action { let session: Session }
    struct ShowHome: Action { let profile: Profile; let feed: [Post] }
    struct ShowBanner: Action { let message: String }
    struct AddPost: Action { let post: Post; let at: Int }
    struct RemovePost: Action { let id: Int }
    struct Tag: Action { let name: String; let count: Int }
    struct Nothing: Action {}

    struct Offline: Error, Equatable {}

    struct LogIn: AsyncAction {
        let user: String
        let password: String
        func run(_ context: ActionContext<AppState>) async throws -> Session { Session(token: "t-\(user)") }
    }
    struct FetchProfile: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> Profile { Profile(name: "Ada") }
    }
    /// Fails its first call, then answers.
    struct FetchFeed: AsyncAction {
        let token: String
        let calls: Calls
        func run(_ context: ActionContext<AppState>) async throws -> [Post] {
            if calls.next() == 1 { throw Offline() }
            return [Post(id: 1, text: "hello"), Post(id: 2, text: "world")]
        }
    }

    final class Calls: Sendable {
        private let lock = NSLock()
        nonisolated(unsafe) private var count = 0  // read and written only under `lock`
        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    static let reducer = Reducer<AppState>.combine(
        .on(StartLoading.self) { state, _ in state.screen = .loading },
        .on(SignedIn.self) { state, action in state.session = action.session },
        .on(ShowHome.self) { state, action in
            state.profile = action.profile
            state.feed = action.feed
            state.screen = .home(user: action.profile.name)
        },
        .on(ShowBanner.self) { state, action in state.banner = action.message },
        .on(AddPost.self) { state, action in state.feed.insert(action.post, at: min(action.at, state.feed.count)) },
        .on(RemovePost.self) { state, action in state.feed.removeAll { $0.id == action.id } },
        .on(Tag.self) { state, action in state.tags[action.name] = action.count }
    )

    /// Log in, then profile and feed in parallel (the feed retried once), then home.
    static func homeGraph() -> ActionGraph<AppState> {
        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "lovelace"))
        graph.send(after: session) { session in SignedIn(session: session) }
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token, calls: Calls()) }
        graph.setRetry(.retry(1, backoff: .constant(.milliseconds(2))), for: feed)
        graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
        return graph
    }

    /// Log in, then the profile, then home with an empty feed: no retry, so a `TestStore` replays
    /// it without moving its clock.
    static func plainGraph() -> ActionGraph<AppState> {
        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "lovelace"))
        graph.send(after: session) { session in SignedIn(session: session) }
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        graph.send(after: profile) { profile in ShowHome(profile: profile, feed: []) }
        return graph
    }

    /// Records the story: a sync dispatch, a graph, then edits of the feed and tags.
    static func record(
        options: InspectorOptions<AppState> = InspectorOptions(), graph: ActionGraph<AppState> = homeGraph()
    ) async throws -> (inspector: InspectorRecorder<AppState>, state: AppState) {
        let inspector = InspectorRecorder<AppState>(options: options)
        let store = Store(
            initialState: AppState(), reducer: reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        store.dispatch(StartLoading())
        _ = try await withDeadline { await store.dispatch(graph).wait() }
        store.dispatch(AddPost(post: Post(id: 3, text: "middle"), at: 1))
        store.dispatch(RemovePost(id: 1))
        store.dispatch(Tag(name: "swift", count: 2))
        store.dispatch(Nothing())
        return (inspector, store.state)
    }
}
