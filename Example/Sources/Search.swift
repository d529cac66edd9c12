import Foundation
import OresRedux

// Searching the feed as the user types: every keystroke dispatches a search under one id, with a
// debounce. Only the search typed last, once the typing paused, reaches the network and the state.

struct SetSearchQuery: Action { var query: String }
struct ShowSearchResults: Action { var query: String; var posts: [Post] }

/// The posts of the feed whose text contains `query`.
struct SearchFeed: AsyncAction, Equatable {
    let token: String
    let query: String
    func run(_ context: ActionContext<AppState>) async throws -> [Post] {
        let feed = try await context.dependencies.api.feed(token: token)
        return feed.filter { $0.text.localizedCaseInsensitiveContains(query) }
    }
}

/// The one id of the feed search: a new search replaces the one in flight.
enum SearchID: Hashable, Sendable { case feed }

/// A search: the request, then its results into the state.
func searchGraph(token: String, query: String) -> ActionGraph<AppState> {
    var graph = ActionGraph<AppState>()
    let posts = graph.run(SearchFeed(token: token, query: query))
    graph.send(after: posts) { posts in ShowSearchResults(query: query, posts: posts) }
    return graph
}

/// How long the typing must pause before a search reaches the network.
let searchDebounce = Duration.milliseconds(250)

/// What the search field does on each keystroke.
func queryChanged(to query: String, in store: Store<AppState>) -> GraphRun<AppState> {
    store.dispatch(SetSearchQuery(query: query))
    let token = store.state.session?.token ?? ""
    return store.dispatch(searchGraph(token: token, query: query), id: SearchID.feed, policy: .debounce(searchDebounce))
}

/// Counts the feed requests that reached the API, to show how many searches were made.
final class CountingAPI: API {
    let base: any API
    private let count = Counter()

    init(_ base: any API) { self.base = base }

    var feedRequests: Int { count.value }

    func logIn(user: String, password: String) async throws -> Session {
        try await base.logIn(user: user, password: password)
    }
    func profile(token: String) async throws -> Profile { try await base.profile(token: token) }
    func feed(token: String) async throws -> [Post] {
        count.add()
        return try await base.feed(token: token)
    }

    /// A counter behind NSLock (ThreadSanitizer sees pthread locks on Linux).
    final class Counter: @unchecked Sendable {
        // @unchecked: `count` is only touched between lock() and unlock().
        private let lock = NSLock()
        private var count = 0
        func add() {
            lock.lock()
            count += 1
            lock.unlock()
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }
}
