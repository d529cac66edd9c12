// The app of the durable mutation kill test (Tests/Query/QueryDurableMutationTests.swift): a feed
// and a post published as a durable mutation. The child (main.swift) and the test build it alike,
// so that the test resumes, with the same types, the run the killed child journaled.

import OresRedux
import OresReduxQuery

struct PostingState: Equatable, Sendable {
    var cache = QueryCache()
}

struct Post: Codable, Equatable, Sendable {
    let id: Int
    let text: String
}

/// The server, given to the store as a dependency: the child's hangs in the post and dies there.
protocol PostingServer: Sendable {
    func feed() async throws -> [Post]
    func add(_ post: Post, key: IdempotencyKey?) async throws -> Post
}

struct NoPostingServer: PostingServer {
    struct NotSet: Error {}
    func feed() async throws -> [Post] { throw NotSet() }
    func add(_ post: Post, key: IdempotencyKey?) async throws -> Post { throw NotSet() }
}

enum PostingServerKey: DependencyKey {
    static let defaultValue: any PostingServer = NoPostingServer()
}

extension Dependencies {
    var postingServer: any PostingServer {
        get { self[PostingServerKey.self] }
        set { self[PostingServerKey.self] = newValue }
    }
}

struct PostingFeed: QueryEndpoint {
    var key: QueryKey { QueryKey("feed") }
    var tags: Set<QueryTag> { [QueryTag("Post")] }
    func run(_ context: ActionContext<PostingState>) async throws -> [Post] {
        try await context.dependencies.postingServer.feed()
    }
}

/// Publishes a post, shown at the top of the feed at once; `retriedInDoubt` says whether the server
/// dedupes by idempotency key (a call in doubt is then made again) or not (it fails in doubt).
struct PublishPost: QueryDurableMutation {
    static let durableName = "publishPost"
    let post: Post
    let retriedInDoubt: Bool
    var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
    var optimisticChanges: [QueryPatch] { [PostingFeed().patch { posts in posts.insert(post, at: 0) }] }
    var inDoubt: InDoubtPolicy<Post> { retriedInDoubt ? .rerunWithSameKey : .failInDoubt }
    func run(_ context: ActionContext<PostingState>) async throws -> Post {
        try await context.dependencies.postingServer.add(post, key: context.idempotencyKey)
    }
}

let postingQueries = QueryClient(\PostingState.cache)
let hello = Post(id: 1, text: "hello")
let draft = Post(id: 2, text: "first!")
