import OresRedux
import OresReduxQuery

/// Scenario 7: server data that two screens show, kept in the state as a query cache. One call
/// serves both screens; a post is shown before the server says yes; a refused post is rolled
/// back; the feed is refetched once a post was published; and a poll that started before a post
/// answers after it, and is not applied.
func serverDataScenario() async -> Bool {
    print("\n== 7. Server data: one feed for two screens, optimistic posts, a poll that answers too late")
    let server = PostServer()
    var dependencies = Dependencies()
    dependencies.postServer = server
    let store = Store(
        initialState: ServerDataState(), reducer: serverDataQueries.reducer,
        options: StoreOptions(dependencies: dependencies))
    // What both screens render: the feed, a post the server has not confirmed yet marked with `*`.
    let rendering = store.subscribe({ $0.cache[LatestPosts()]?.data(as: [Post].self) }) { posts in
        if let posts {
            print(
                "        the screens show: "
                    + posts.map { $0.id == 0 ? "\($0.text)*" : $0.text }.joined(separator: ", "))
        }
    }
    defer { rendering.cancel() }

    let home = serverDataQueries.observe(LatestPosts(), in: store)
    let profile = serverDataQueries.observe(LatestPosts(), in: store)
    // Wait for the feed's answer in the state, as the screens do: a `fetch` here could decide to call
    // just before the screens' call ends, and call again (it joins only a call still in flight).
    for await state in store.states() where state.cache[LatestPosts()]?.data != nil { break }
    print("        home and profile observe the feed: \(await server.feedCalls) call to the server")

    print("        the user posts \"hello\" (* until the server confirms it):")
    await serverDataQueries.mutate(PublishPost(text: "hello"), in: store).wait()
    print("        published; the feed was refetched after the post: \(await server.feedCalls) calls in all")

    print("        the user posts \"buy now!!!\", which the server refuses:")
    let refused = serverDataQueries.mutate(PublishPost(text: "buy now!!!"), in: store)
    do {
        _ = try await refused.value
    } catch {
        await refused.wait()
        print("        refused (\(error)): rolled back")
    }

    print("        a poll's call starts; the user posts \"second\" before it answers:")
    await server.holdNextFeed()
    let poller = serverDataQueries.observe(LatestPosts(), polling: .milliseconds(100), in: store)
    await server.heldFeedStarted()
    poller.cancel()
    await serverDataQueries.mutate(PublishPost(text: "second"), in: store).wait()
    await server.releaseHeldFeed()
    for await state in store.states() where state.cache[LatestPosts()]?.isFetching == false { break }
    let shown = store.state.cache[LatestPosts()]?.data(as: [Post].self) ?? []
    print("        the poll's answer, read before the post, came last: not applied; the screens keep \"second\"")
    home.cancel()
    profile.cancel()

    let feedCalls = await server.feedCalls
    let asExpected =
        shown.map(\.text) == ["second", "hello", "welcome"] && !shown.contains { $0.id == 0 } && feedCalls == 4
    if !asExpected {
        print(
            "!! scenario 7 did not end as expected: the screens show \(shown.map(\.text)), \(feedCalls) calls to the server"
        )
    }
    return asExpected
}

struct ServerDataState: Equatable, Sendable {
    var cache = QueryCache()
}

let serverDataQueries = QueryClient(\ServerDataState.cache)

/// The latest posts, newest first: fresh for 30 seconds, refetched when a post is published.
struct LatestPosts: QueryEndpoint {
    var key: QueryKey { QueryKey("posts", "latest") }
    var tags: Set<QueryTag> { [QueryTag("Post")] }
    var staleTime: Duration { .seconds(30) }
    func run(_ context: ActionContext<ServerDataState>) async throws -> [Post] {
        try await context.dependencies.postServer.feed()
    }
}

/// Publishes a post: shown at the top of the feed at once (with no id yet), removed if the server
/// refuses it, and the feed refetched once it accepted it.
struct PublishPost: QueryMutation {
    let text: String
    var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
    var optimisticChanges: [QueryPatch] {
        [LatestPosts().patch { posts in posts.insert(Post(id: 0, author: "ada", text: text), at: 0) }]
    }
    func run(_ context: ActionContext<ServerDataState>) async throws -> Post {
        try await context.dependencies.postServer.publish(text)
    }
}

/// The server of scenario 7, in memory: it refuses a post that shouts, and can hold a feed call
/// after it read the posts, to answer it later with what it read.
actor PostServer {
    private var posts = [Post(id: 1, author: "grace", text: "welcome")]
    private(set) var feedCalls = 0
    private var holdsNextFeed = false
    private var held: CheckedContinuation<Void, Never>?
    private var heldWaiter: CheckedContinuation<Void, Never>?

    func feed() async throws -> [Post] {
        feedCalls += 1
        let read = posts
        if holdsNextFeed {
            holdsNextFeed = false
            await withCheckedContinuation { continuation in
                held = continuation
                heldWaiter?.resume()
                heldWaiter = nil
            }
        }
        return read
    }

    func publish(_ text: String) throws -> Post {
        guard !text.contains("!!!") else { throw APIError(description: "the server refuses posts that shout") }
        let post = Post(id: posts.count + 1, author: "ada", text: text)
        posts.insert(post, at: 0)
        return post
    }

    /// The next feed call reads the posts, then waits for ``releaseHeldFeed()``.
    func holdNextFeed() {
        holdsNextFeed = true
    }

    /// Returns once the held feed call read the posts.
    func heldFeedStarted() async {
        if held != nil { return }
        await withCheckedContinuation { heldWaiter = $0 }
    }

    func releaseHeldFeed() {
        held?.resume()
        held = nil
    }
}

private enum PostServerKey: DependencyKey {
    static let defaultValue = PostServer()
}

extension Dependencies {
    /// The server of scenario 7.
    var postServer: PostServer {
        get { self[PostServerKey.self] }
        set { self[PostServerKey.self] = newValue }
    }
}
