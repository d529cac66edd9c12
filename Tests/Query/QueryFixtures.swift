import OresRedux
import OresReduxQuery
import OresReduxTesting

/// A feed of posts served by a fake server: the app the query cache's story tests tell about.
enum QueryFixtures {
    struct Post: Equatable, Sendable, CustomStringConvertible {
        let id: Int
        let text: String
        var description: String { "#\(id) \(text)" }
    }

    struct AppState: Equatable, Sendable {
        var cache = QueryCache()
    }

    struct NoServer: Error {}
    struct Offline: Error {}

    /// A user's feed: fresh for 30 seconds, tagged `Post`.
    struct Feed: QueryEndpoint {
        let userID: Int
        var key: QueryKey { QueryKey("feed", "user", "\(userID)") }
        var tags: Set<QueryTag> { [QueryTag("Post")] }
        var staleTime: Duration { .seconds(30) }
        func run(_ context: ActionContext<AppState>) async throws -> [Post] { throw NoServer() }
    }

    /// A user's profile: expensive to compute on the server, so a call in flight when the last
    /// screen leaves finishes into the cache, for the screen that may come back.
    struct Profile: QueryEndpoint {
        let userID: Int
        var key: QueryKey { QueryKey("profile", "\(userID)") }
        var staleTime: Duration { .seconds(30) }
        var callWhenUnobserved: QueryUnobservedCall { .finishIntoCache }
        func run(_ context: ActionContext<AppState>) async throws -> String { throw NoServer() }
    }

    /// One page of the timeline: its posts, and the page after it, if any.
    struct TimelinePage: Equatable, Sendable {
        let posts: [Post]
        let next: Int?
    }

    /// Everybody's posts, page after page (`page` counts from 0).
    struct Timeline: QueryPagedEndpoint {
        var page = 0
        var key: QueryKey { QueryKey("timeline") }
        var tags: Set<QueryTag> { [QueryTag("Post")] }
        var staleTime: Duration { .seconds(30) }
        var firstPage: Timeline { Timeline() }
        func nextPage(after page: TimelinePage) -> Timeline? { page.next.map { Timeline(page: $0) } }
        func run(_ context: ActionContext<AppState>) async throws -> TimelinePage { throw NoServer() }
    }

    /// Publishes a post: shown at the top of user 1's feed at once, and every `Post` list refetched
    /// once the server said yes.
    struct AddPost: QueryMutation {
        let post: Post
        var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
        var optimisticChanges: [QueryPatch] { [Feed(userID: 1).patch { posts in posts.insert(post, at: 0) }] }
        func run(_ context: ActionContext<AppState>) async throws -> Post { throw NoServer() }
    }

    static let queries = QueryClient(\AppState.cache)

    static let hello = Post(id: 1, text: "hello")
    static let first = Post(id: 2, text: "first!")
    static let second = Post(id: 3, text: "second")

    /// A test store with the cache's reducer, whose own machinery runs for real and whose server
    /// calls (`Feed`, `AddPost`) the test stubs or holds. Only the actions a test receives are
    /// asserted (the cache's bookkeeping is checked through `state.cache`).
    static func makeStore() -> TestStore<AppState> {
        let store = TestStore(initialState: AppState(), reducer: queries.reducer, exhaustivity: .off)
        store.runForReal(FetchQuery<Feed>.self)
        store.runForReal(QueryCall<Feed>.self)
        store.runForReal(FetchQueryPages<Timeline>.self)
        store.runForReal(QueryPagesCall<Timeline>.self)
        store.runForReal(FetchQuery<Profile>.self)
        store.runForReal(QueryCall<Profile>.self)
        store.runForReal(QueryUpkeep<AppState>.self)
        store.runForReal(QueryPoll<AppState>.self)
        return store
    }
}

extension QueryCache {
    /// The timeline as a view shows it: every page fetched, as one list.
    var timeline: [QueryFixtures.Post]? {
        self[QueryFixtures.Timeline()]?.data(as: QueryPages<QueryFixtures.Timeline>.self)?.pages.flatMap(\.posts)
    }

    /// User `userID`'s feed as a view shows it, optimistic changes included.
    func feed(_ userID: Int) -> [QueryFixtures.Post]? {
        self[QueryFixtures.Feed(userID: userID).key]?.data(as: [QueryFixtures.Post].self)
    }
}
