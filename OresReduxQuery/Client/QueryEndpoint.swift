import OresRedux

/// A query: one call to the server, with its arguments, whose typed response the cache keeps.
///
/// An endpoint is an async action (its `run` makes the call, so a `TestStore` stubs it like any
/// other) that also names its cache entry and says how long an answer is good for:
///
/// ```swift
/// struct Feed: QueryEndpoint {
///     let userID: Int
///     var key: QueryKey { QueryKey("feed", "user", "\(userID)") }
///     var tags: Set<QueryTag> { [QueryTag("Post")] }
///     var staleTime: Duration { .seconds(30) }
///     func run(_ context: ActionContext<AppState>) async throws -> [Post] {
///         try await context.dependencies.api.feed(userID)
///     }
/// }
/// ```
///
/// Two endpoints are the same query when their keys are equal; keep `key` a function of the
/// endpoint's fields, so that equal endpoints have equal keys. What it declares (``QueryDeclaring``)
/// all has defaults but `key`.
public protocol QueryEndpoint: QueryDeclaring {}

/// A change on the server, run as a graph by ``QueryClient/mutate(_:in:)``: its optimistic
/// changes, the call, then the rollback of exactly those changes if it fails, or else the
/// invalidation of what it changed and the refetch of what is observed.
///
/// ```swift
/// struct AddPost: QueryMutation {
///     let post: Post
///     var invalidates: [QueryInvalidation] { [.tag(QueryTag("Post"))] }
///     var optimisticChanges: [QueryPatch] {
///         [Feed(userID: post.author).patch { posts in posts.insert(post, at: 0) }]
///     }
///     func run(_ context: ActionContext<AppState>) async throws -> Post {
///         try await context.dependencies.api.add(post)
///     }
/// }
/// ```
public protocol QueryMutation: AsyncAction {
    /// What the mutation makes stale when it succeeds; nothing by default.
    var invalidates: [QueryInvalidation] { get }
    /// What it changes in cached entries before the server answers; nothing by default.
    var optimisticChanges: [QueryPatch] { get }
}

extension QueryMutation {
    /// Nothing.
    public var invalidates: [QueryInvalidation] { [] }
    /// Nothing.
    public var optimisticChanges: [QueryPatch] { [] }
}

extension QueryEndpoint {
    /// An optimistic change to this endpoint's entry.
    public func patch(_ change: @escaping @Sendable (inout Response) -> Void) -> QueryPatch {
        QueryPatch(key, as: Response.self, change)
    }
}

extension QueryCache {
    /// The entry of `endpoint` (a page of a paged one names the whole list's entry), or `nil`
    /// when none is cached: what a view selects.
    ///
    /// ```swift
    /// store.subscribe({ $0.cache[Feed(userID: 7)] }) { entry in render(entry) }
    /// ```
    public subscript<Endpoint: QueryDeclaring>(endpoint: Endpoint) -> QueryEntry? { self[endpoint.key] }
}
