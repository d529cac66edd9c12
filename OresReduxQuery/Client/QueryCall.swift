import OresRedux

/// One call to an endpoint, stamped in the cache when it starts and answered into it when it ends.
///
/// A keyed async action: while a call of an endpoint is in flight, another one for the same entry
/// and the same last write joins it instead of calling again. A call for an entry written to since
/// (a mutation's success, an invalidation) does not join: the answer of the call in flight will
/// not be applied, so it starts a call of its own.
public struct QueryCall<Endpoint: QueryEndpoint>: KeyedAsyncAction {
    /// The endpoint's store's state.
    public typealias State = Endpoint.State

    /// What identifies a call that others may join: the entry, and the entry's last write.
    public struct Key: Hashable, Sendable {
        /// The entry.
        public let key: QueryKey
        /// The entry's ``QueryEntry/version`` when the call was asked for.
        public let basis: UInt64
    }

    /// The endpoint to call.
    public let endpoint: Endpoint
    /// The entry's ``QueryEntry/version`` when the call was asked for.
    public let basis: UInt64

    /// The entry and its last write.
    public var key: Key { Key(key: endpoint.key, basis: basis) }

    /// Stamps the call in the cache, runs the endpoint, and hands its answer to the cache (which
    /// applies it only if nothing newer was written meanwhile); returns the response either way.
    public func run(_ context: ActionContext<State>) async throws -> Endpoint.Response {
        let call = QueryCallID.next()
        context.dispatch(QueryCallStarted(key: endpoint.key, call: call, declaration: endpoint.declaration))
        // Under an id of its own, so that the last observer's leave can cancel exactly this call.
        let task = context.dispatch(endpoint, id: QueryCallWork(call: call))
        do {
            let response = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            let answer = QueryAnswered.Answer.response(QueryValue(response), tags: endpoint.tags(for: response))
            context.dispatch(answered(call, answer, context))
            return response
        } catch is CancellationError {
            context.dispatch(answered(call, .cancelled, context))
            throw CancellationError()
        } catch {
            context.dispatch(answered(call, .failure(QueryError(error)), context))
            throw error
        }
    }

    private func answered(_ call: QueryCallID, _ answer: QueryAnswered.Answer, _ context: ActionContext<State>)
        -> QueryAnswered
    {
        QueryAnswered(key: endpoint.key, call: call, answer: answer, at: QueryClock.now(context.clock))
    }
}

/// The work id of one call's endpoint, for `cancel(id:)` when the entry's last observer leaves.
struct QueryCallWork: Hashable, Sendable {
    let call: QueryCallID
}

/// A fetch: the entry's data when it is fresh (no call), or else the answer of a call, joined
/// when one that will be applied is in flight. An entry that nobody observes once the call ended
/// is removed after its `keepUnobservedFor`, unless observed meanwhile.
public struct FetchQuery<Endpoint: QueryEndpoint>: AsyncAction {
    /// The endpoint's store's state.
    public typealias State = Endpoint.State

    /// The endpoint.
    public let endpoint: Endpoint
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable
    /// Whether to call even when the entry is fresh (a poll, a pull to refresh).
    public let force: Bool

    /// Fetches `endpoint` into the cache at `cache`; with `force`, calls even when fresh.
    public init(_ endpoint: Endpoint, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool = false) {
        self.endpoint = endpoint
        self.cache = cache
        self.force = force
    }

    /// The fresh data, or the answer of the (joined) call.
    public func run(_ context: ActionContext<State>) async throws -> Endpoint.Response {
        let entry = context.state[keyPath: cache][endpoint.key]
        if !force, let entry, entry.isFresh(at: QueryClock.now(context.clock)),
            let data = entry.data(as: Endpoint.Response.self)
        {
            return data
        }
        let task = context.dispatch(QueryCall(endpoint: endpoint, basis: entry?.version ?? 0))
        defer {
            // Fetched for nobody (a prefetch, a fetch from a graph): kept for its keepUnobservedFor.
            if context.state[keyPath: cache][endpoint.key]?.observers == 0 {
                context.dispatch(QueryUpkeep(.collect(endpoint.key), cache: cache))
            }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
