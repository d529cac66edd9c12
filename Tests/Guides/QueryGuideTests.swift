import OresRedux
import OresReduxQuery
import OresReduxTesting
import Testing

// The snippets of OresReduxQuery/OresReduxQuery.docc/ServerDataQueriesAndMutations.md and of its
// catalog's landing page.

enum QueryGuideApp {
    struct Post: Equatable, Sendable {
        let id: Int
        let author: Int
    }

    protocol API: Sendable {
        func feed(_ userID: Int) async throws -> [Post]
        func add(_ post: Post) async throws -> Post
    }

    /// The guide's server: a feed that holds every post added.
    final class FakeAPI: API {
        private let posts = LockedPosts()
        func feed(_ userID: Int) async throws -> [Post] { posts.all.filter { $0.author == userID } }
        func add(_ post: Post) async throws -> Post {
            posts.insert(post)
            return post
        }
    }

    // The first snippet.
    struct AppState: Equatable, Sendable {
        var cache = QueryCache()
    }

    struct Feed: QueryEndpoint {
        let userID: Int
        var key: QueryKey { QueryKey("feed", "user", "\(userID)") }
        var tags: Set<QueryTag> { [QueryTag("Post")] }
        var staleTime: Duration { .seconds(30) }
        func run(_ context: ActionContext<AppState>) async throws -> [Post] {
            try await context.dependencies.api.feed(userID)
        }
    }

    struct AddPost: QueryMutation {
        let post: Post
        var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
        var optimisticChanges: [QueryPatch] {
            [Feed(userID: post.author).patch { posts in posts.insert(post, at: 0) }]
        }
        func run(_ context: ActionContext<AppState>) async throws -> Post {
            try await context.dependencies.api.add(post)
        }
    }

    static let queries = QueryClient(\AppState.cache)
}

/// The posts of `FakeAPI`, newest first.
private final class LockedPosts: Sendable {
    private let posts = LockedValue<[QueryGuideApp.Post]>([])
    var all: [QueryGuideApp.Post] { posts.withLock { $0 } }
    func insert(_ post: QueryGuideApp.Post) { posts.withLock { $0.insert(post, at: 0) } }
}

private enum QueryGuideAPIKey: DependencyKey {
    static let defaultValue: any QueryGuideApp.API = QueryGuideApp.FakeAPI()
}

extension Dependencies {
    fileprivate var api: any QueryGuideApp.API {
        get { self[QueryGuideAPIKey.self] }
        set { self[QueryGuideAPIKey.self] = newValue }
    }
}

@Suite("Guide: Server Data: Queries and Mutations")
struct QueryGuideTests {
    typealias App = QueryGuideApp

    @Test("the second snippet: a screen observes the feed, a post is shown at once and kept")
    func observeAndMutate() async throws {
        let queries = App.queries
        let appReducer = Reducer<App.AppState>.combine()
        // The landing page's snippet.
        let store = Store(initialState: App.AppState(), reducer: .combine(queries.reducer, appReducer))
        let shown = CoreStore.Recorder<QueryEntry?>()
        @Sendable func render(_ entry: QueryEntry?) { shown.record(entry) }
        let draft = App.Post(id: 1, author: 7)

        // The second snippet.
        let screen = queries.observe(App.Feed(userID: 7), in: store)  // kept while the screen holds it
        let view = store.subscribe({ $0.cache[App.Feed(userID: 7)] }) { entry in render(entry) }
        let post = queries.mutate(App.AddPost(post: draft), in: store)  // shown at once, rolled back alone

        _ = try await withDeadline { await post.wait() }  // the post, then the feed's refetch
        #expect(store.state.cache[App.Feed(userID: 7)]?.data(as: [App.Post].self) == [draft])
        screen.cancel()  // the screen left
        #expect(store.state.cache[App.Feed(userID: 7)]?.observers == 0)
        #expect(!shown.values.isEmpty)
        view.cancel()
    }

    @Test("testing a screen's queries: the endpoints stubbed, the machinery run for real")
    func aFailedPostIsRolledBackExactly() async throws {
        typealias AppState = App.AppState
        typealias Feed = App.Feed
        typealias AddPost = App.AddPost
        typealias Post = App.Post
        struct Offline: Error {}
        let queries = App.queries
        let hello = Post(id: 1, author: 7)
        let draft = Post(id: 2, author: 7)

        // The snippet of "Testing a screen's queries".
        let store = TestStore(initialState: AppState(), reducer: queries.reducer, exhaustivity: .off)
        store.stub(Feed.self, with: [hello])
        store.stub(AddPost.self, throwing: Offline())

        let screen = queries.observe(Feed(userID: 7), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        await queries.mutate(AddPost(post: draft), in: store).wait()
        #expect(store.state.cache[Feed(userID: 7)]?.data(as: [Post].self) == [hello])  // rolled back

        screen.cancel()
        try await store.clock.waitForSleepers(1)  // the removal, a minute after the screen left
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }

    @Test("testing a screen's queries: an entry asserted like state, the cache's bookkeeping left out")
    func anEntryAssertedLikeState() async throws {
        typealias Feed = App.Feed
        let queries = App.queries
        let hello = App.Post(id: 1, author: 7)
        let store = TestStore(initialState: App.AppState(), reducer: queries.reducer, exhaustivity: .off)
        store.stub(Feed.self, with: [hello])

        // The second snippet of "Testing a screen's queries".
        let screen = queries.observe(Feed(userID: 7), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache.bookkeeping]) {
            $0.cache.shown[Feed(userID: 7).key]?.data = QueryValue([hello])
        }

        withExtendedLifetime(screen) {}
    }
}
