import OresRedux

/// What every endpoint, paged (``QueryPagedEndpoint``) or not (``QueryEndpoint``), declares about
/// its cache entry: its key, its tags, how long an answer is fresh, how long the entry is kept
/// unobserved, and what becomes of a call when nobody observes the entry any more.
///
/// An endpoint is an async action whose `run` makes one call, so a `TestStore` stubs it like any
/// other; conform to ``QueryEndpoint`` or ``QueryPagedEndpoint``, not to this protocol alone.
public protocol QueryDeclaring: AsyncAction, Hashable where Response: Equatable {
    /// The cache entry: the call and its arguments.
    var key: QueryKey { get }
    /// The tags every answer of this endpoint provides; none by default.
    var tags: Set<QueryTag> { get }
    /// The tags `response` provides: ``tags`` by default; add one per item to let a mutation of an
    /// item invalidate exactly the lists that show it.
    func tags(for response: Response) -> Set<QueryTag>
    /// How long an answer is fresh, served without a call; zero by default (every fetch calls,
    /// but joins a call in flight).
    var staleTime: Duration { get }
    /// How long the entry is kept once its last observer left; 60 seconds by default.
    var keepUnobservedFor: Duration { get }
    /// What becomes of a call in flight when the entry's last observer leaves: cancelled (the
    /// default) or finished into the cache.
    var callWhenUnobserved: QueryUnobservedCall { get }
}

extension QueryDeclaring {
    /// No tags.
    public var tags: Set<QueryTag> { [] }
    /// ``tags``.
    public func tags(for response: Response) -> Set<QueryTag> { tags }
    /// Zero: an answer is stale at once.
    public var staleTime: Duration { .zero }
    /// 60 seconds.
    public var keepUnobservedFor: Duration { .seconds(60) }
    /// ``QueryUnobservedCall/cancel``: nobody needs the answer any more.
    public var callWhenUnobserved: QueryUnobservedCall { .cancel }

    /// What the cache keeps of this endpoint with its entry.
    var declaration: QueryDeclaration {
        QueryDeclaration(
            tags: tags, staleTime: staleTime, keepUnobservedFor: keepUnobservedFor,
            callWhenUnobserved: callWhenUnobserved, recipe: QueryRecipe(endpoint: self))
    }

    /// Runs this endpoint as (a part of) call `call`: under a work id of that call, so that the
    /// last observer's leave cancels exactly it, and cancelled with the task that awaits it.
    func callServer(as call: QueryCallID, _ context: ActionContext<State>) async throws -> Response {
        let task = context.dispatch(self, id: QueryCallWork(call: call))
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}

/// The work id of one call's endpoint, for `cancel(id:)` when the entry's last observer leaves.
struct QueryCallWork: Hashable, Sendable {
    let call: QueryCallID
}
