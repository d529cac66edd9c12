import Foundation
import OresRedux

/// The small app the guides in `Sources/OresRedux.docc` are written against: a counter, a settings
/// screen, and a log-in that loads a profile and a feed. Nested here so that its names (`AppState`,
/// `LogIn`, ...) do not clash with the other test files of the module.
///
/// Every Swift snippet of the guides is in `Tests/Guides/*GuideTests.swift`, verbatim or nearly; the
/// types they use are these.
enum GuideApp {
    // MARK: State

    struct Session: Equatable, Sendable { var token: String }
    struct Profile: Equatable, Sendable { var name: String }
    struct Post: Equatable, Sendable { var id: Int }
    struct Settings: Equatable, Sendable { var darkMode = false }

    struct AppState: Equatable, Sendable {
        var count = 0
        var settings = Settings()
        var isLoading = false
        var session: Session?
        var profile: Profile?
        var feed: [Post] = []
        var read: [Int] = []
        var banner: String?
    }

    // MARK: Sync actions

    struct Increment: Action, Codable { var amount = 1 }
    struct Reset: Action {}
    struct ToggleDarkMode: Action {}
    struct StartLoading: Action {}
    struct SignedIn: Action { let session: Session }
    struct ProfileLoaded: Action { let profile: Profile }
    struct ShowHome: Action { let profile: Profile; let feed: [Post] }
    struct ShowBanner: Action, Codable { let message: String }
    struct HideBanner: Action {}
    struct MarkRead: Action { let id: Int }

    // MARK: Reducers

    static let counter = Reducer<Int>.combine(
        .on(Increment.self) { count, action in count += action.amount },
        .on(Reset.self) { count, _ in count = 0 }
    )

    static let settingsReducer = Reducer<Settings>.on(ToggleDarkMode.self) { settings, _ in
        settings.darkMode.toggle()
    }

    static let appReducer = Reducer<AppState>.combine(
        .scope(\.count, counter),
        .scope(\.settings, settingsReducer),
        .on(StartLoading.self) { state, _ in state.isLoading = true },
        .on(SignedIn.self) { state, action in state.session = action.session },
        .on(ProfileLoaded.self) { state, action in state.profile = action.profile },
        .on(ShowHome.self) { state, action in
            state.profile = action.profile
            state.feed = action.feed
            state.isLoading = false
        },
        .on(ShowBanner.self) { state, action in state.banner = action.message },
        .on(HideBanner.self) { state, _ in state.banner = nil },
        .on(MarkRead.self) { state, action in state.read.append(action.id) }
    )

    // MARK: A fake API: fixed answers at once, no network, no sleeps

    struct Offline: Error, Equatable {}
    struct WrongPassword: Error, Equatable {}

    struct FakeAPI: Sendable {
        func logIn(_ user: String, _ password: String) async throws -> Session {
            guard password == "secret" else { throw WrongPassword() }
            return Session(token: "token-\(user)")
        }
        func profile(_ token: String) async throws -> Profile { Profile(name: "Ada") }
        func feed(_ token: String) async throws -> [Post] { [Post(id: 1), Post(id: 2)] }
        func avatar(_ userID: Int) async throws -> String { "avatar-\(userID).png" }
    }

    static let api = FakeAPI()

    // MARK: Async actions

    struct LogIn: AsyncAction, Equatable {
        let user: String
        let password: String
        func run(_ context: ActionContext<AppState>) async throws -> Session {
            try await api.logIn(user, password)
        }
    }

    struct FetchProfile: AsyncAction, Equatable {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> Profile {
            try await api.profile(token)
        }
    }

    struct FetchFeed: AsyncAction, Equatable {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> [Post] {
            try await api.feed(token)
        }
    }

    /// A server that is down: every call fails.
    struct FetchTrending: AsyncAction {
        func run(_ context: ActionContext<AppState>) async throws -> [Post] {
            throw Offline()
        }
    }

    struct FetchAvatar: KeyedAsyncAction {
        let userID: Int
        var key: Int { userID }  // one request per user at a time
        func run(_ context: ActionContext<AppState>) async throws -> String {
            try await api.avatar(userID)
        }
    }

    // MARK: The home graph

    /// The log-in graph and its nodes, to read values and outcomes from a run.
    struct HomeGraph {
        var graph: ActionGraph<AppState>
        var session: Node<Session>
        var profile: Node<Profile>
        var feed: Node<[Post]>
        var home: Node<Void>
    }

    /// Log in, then fetch the profile and the feed in parallel with the token, then show home.
    static func homeGraph(
        user: String = "ada", password: String = "secret",
        feedTimeout: Duration? = .seconds(30)
    ) -> HomeGraph {
        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: user, password: password))
        graph.send(after: session) { session in SignedIn(session: session) }
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
        let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

        if let feedTimeout { graph.setTimeout(feedTimeout, for: feed) }
        graph.setFallback(for: feed) { error in ShowBanner(message: "could not load the feed") }
        return HomeGraph(graph: graph, session: session, profile: profile, feed: feed, home: home)
    }

    // MARK: Test helpers (not in the guides)

    /// Lines printed by a snippet, collected from any thread; a test can wait for them without sleeping.
    final class Lines: @unchecked Sendable {
        // @unchecked: every member is read and written under `lock` (NSLock, which ThreadSanitizer sees).
        private let lock = NSLock()
        private var lines: [String] = []
        private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return lines
        }

        func append(_ line: String) {
            lock.lock()
            lines.append(line)
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard lines.count >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            lock.unlock()
            for continuation in ready { continuation.resume() }
        }

        /// Returns once at least `count` lines were appended.
        func waitFor(count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if lines.count >= count {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append((count, continuation))
                lock.unlock()
            }
        }
    }
}
