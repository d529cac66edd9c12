import OresRedux
import OresReduxQuery
import OresReduxTesting
import Testing

/// A list fetched page after page (the timeline): read as one list, refetched as a whole in one
/// write, and never given a page that follows another list than the one shown.
@Suite("Query cache: pages")
struct QueryPagesTests {
    typealias Timeline = QueryFixtures.Timeline
    typealias Page = QueryFixtures.TimelinePage
    typealias Post = QueryFixtures.Post
    let queries = QueryFixtures.queries
    let posts = (1...5).map { Post(id: $0, text: "post \($0)") }

    /// A screen shows the timeline's first page: posts 1 and 2.
    func screenShowingTheFirstPage(_ store: TestStore<QueryFixtures.AppState>, _ timelines: HeldCalls<Timeline>)
        async throws -> QueryObservation
    {
        let screen = queries.observe(Timeline(), in: store)
        #expect(try await timelines.nextCall() == Timeline(page: 0))
        timelines.respond(with: Page(posts: [posts[0], posts[1]], next: 1))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        return screen
    }

    @Test(
        "pages fetched one after another read as one list; a refetch fetches as many again, from the first, in one write"
    )
    func pagesReadAsOneList() async throws {
        let store = QueryFixtures.makeStore()
        let timelines = store.hold(Timeline.self)
        let screen = try await screenShowingTheFirstPage(store, timelines)

        let more = queries.fetchNextPage(Timeline(), in: store)
        #expect(try await timelines.nextCall() == Timeline(page: 1))
        timelines.respond(with: Page(posts: [posts[2]], next: 2))
        #expect(try await withDeadline { try await more.value }.pages.count == 2)
        #expect(store.state.cache.timeline == Array(posts[0...2]))

        // A post was published at the top: the refetch reads both pages again.
        let refetch = queries.refetch(Timeline(), in: store)
        #expect(try await timelines.nextCall() == Timeline(page: 0))
        timelines.respond(with: Page(posts: [posts[4], posts[0]], next: 1))
        #expect(try await timelines.nextCall() == Timeline(page: 1))
        #expect(store.state.cache.timeline == Array(posts[0...2]))  // no page of two fetches shown
        timelines.respond(with: Page(posts: [posts[1], posts[2]], next: nil))
        let list = try await withDeadline { try await refetch.value }
        #expect(list.hasNextPage == false)
        #expect(store.state.cache.timeline == [posts[4], posts[0], posts[1], posts[2]])

        let end = queries.fetchNextPage(Timeline(), in: store)  // nothing after the last page: no call
        #expect(try await withDeadline { try await end.value } == list)
        #expect(timelines.calls.count == 4)
        withExtendedLifetime(screen) {}
    }

    @Test("a next page asked for while a refetch replaces the list is discarded, not appended to the new list")
    func aPageNeverFollowsAnotherList() async throws {
        let store = QueryFixtures.makeStore()
        let timelines = store.hold(Timeline.self)
        let screen = try await screenShowingTheFirstPage(store, timelines)

        queries.refetch(Timeline(), in: store)  // the list is fetched again...
        #expect(try await timelines.nextCall() == Timeline(page: 0))
        queries.fetchNextPage(Timeline(), in: store)  // ...while the page after the old one is asked for
        #expect(try await timelines.nextCall() == Timeline(page: 1))

        timelines.respond(with: Page(posts: [posts[4], posts[0]], next: 1))  // the refetch lands first
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        timelines.respond(with: Page(posts: [posts[1], posts[2]], next: 2))  // the old list's next page
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.timeline == [posts[4], posts[0]])  // discarded: post 1 is not shown twice
        withExtendedLifetime(screen) {}
    }

    @Test("a post added optimistically to the first page shows at once, and goes when the post fails")
    func anOptimisticChangeOfAPagedList() async throws {
        let store = QueryFixtures.makeStore()
        let timelines = store.hold(Timeline.self)
        let screen = try await screenShowingTheFirstPage(store, timelines)
        let publishing = store.hold(Publish.self)

        let post = queries.mutate(Publish(post: posts[4]), in: store)
        _ = try await publishing.nextCall()
        #expect(store.state.cache.timeline == [posts[4], posts[0], posts[1]])
        publishing.fail(with: QueryFixtures.Offline())
        try await store.receive(QueryMutationFailed.self, notAsserting: [\.cache])
        #expect(store.state.cache.timeline == [posts[0], posts[1]])
        _ = try await withDeadline { await post.wait() }
        withExtendedLifetime(screen) {}
    }

    /// Publishes a post at the top of the timeline's first page.
    struct Publish: QueryMutation {
        let post: Post
        var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
        var optimisticChanges: [QueryPatch] {
            [
                Timeline().patch { list in
                    list.pages[0] = Page(posts: [post] + list.pages[0].posts, next: list.pages[0].next)
                }
            ]
        }
        func run(_ context: ActionContext<QueryFixtures.AppState>) async throws -> Post {
            throw QueryFixtures.NoServer()
        }
    }
}
