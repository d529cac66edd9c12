import OresRedux

/// One call to an endpoint, stamped in the cache when it starts and answered into it when it ends.
///
/// A keyed async action: while a call of an endpoint is in flight, another one for the same entry
/// and the same last write joins it instead of calling again. A call for an entry written to since
/// (a mutation's success, an invalidation) does not join: the answer of the call in flight will
/// not be applied, so it starts a call of its own.
public struct QueryCall<Endpoint: QueryEndpoint>: KeyedAsyncAction, CoordinatingAsyncAction {
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
    /// Why the call is made (not part of its key: a call that joins keeps the first one's reason).
    public var reason: QueryCallReason = .fetch
    /// Where the cache is, for a call a fetch asked for because the entry was not fresh (not a
    /// forced one): the call asks again when it starts (see `run`).
    var cacheOfUnforcedFetch: (WritableKeyPath<State, QueryCache> & Sendable)?

    /// The entry and its last write.
    public var key: Key { Key(key: endpoint.key, basis: basis) }

    /// Stamps the call in the cache, runs the endpoint, and hands its answer to the cache (which
    /// applies it only if nothing newer was written meanwhile); returns the response either way.
    public func run(_ context: ActionContext<State>) async throws -> Endpoint.Response {
        if let cache = cacheOfUnforcedFetch,
            let data = context.dataAnswered(since: basis, of: endpoint.key, in: cache, as: Endpoint.Response.self)
        {
            return data
        }
        return try await context.answerCall(of: endpoint, reason: reason) { call in
            let response = try await endpoint.callServer(as: call, context)
            return QueryAnswerValue(response, tags: endpoint.tags(for: response))
        }
    }
}

extension ActionContext {
    /// What a fetch that read `key`'s entry at `basis`, found it stale and asked for a call would be
    /// served if it asked again now: the entry's data, when a write since `basis` made it fresh.
    ///
    /// A call the fetch would have joined may have answered and ended between the fetch's read and
    /// the start of the call it asked for: that call returns this instead of calling the server a
    /// second time.
    func dataAnswered<Value>(
        since basis: UInt64, of key: QueryKey, in cache: KeyPath<State, QueryCache>, as type: Value.Type
    ) -> Value? {
        guard let entry = state[keyPath: cache][key], entry.version > basis, entry.isFresh(at: QueryClock.now(clock))
        else { return nil }
        return entry.data(as: type)
    }
}

/// What a call hands to the cache when it succeeded: the entry's new value, the tags it provides,
/// and, for a page appended to a list, the write of the list it extends.
struct QueryAnswerValue<Value: Equatable & Sendable> {
    let value: Value
    let tags: Set<QueryTag>
    var extends: UInt64?

    init(_ value: Value, tags: Set<QueryTag>, extends: UInt64? = nil) {
        self.value = value
        self.tags = tags
        self.extends = extends
    }
}

extension ActionContext {
    /// Dispatches the cache's own bookkeeping, which has nothing left to keep once the store was
    /// released (the cache went with its state): it is then skipped, where a dispatch would tell
    /// the app of a dispatch after release that the app never made.
    func dispatchUnlessReleased(_ action: some Action) {
        if !isStoreReleased { dispatch(action) }
    }

    /// Starts the cache's own async bookkeeping, unless the store was released; `nil` then.
    @discardableResult
    func dispatchUnlessReleased<A: AsyncAction>(_ action: A) -> ActionTask<A.Response>? where A.State == State {
        isStoreReleased ? nil : dispatch(action)
    }

    /// Stamps a call of `endpoint`'s entry (``QueryCallStarted``), runs `body` with the call's id,
    /// and hands what it ended with (a value, an error, a cancellation) to the cache.
    func answerCall<Endpoint: QueryDeclaring, Value: Equatable & Sendable>(
        of endpoint: Endpoint, isNextPage: Bool = false, reason: QueryCallReason,
        _ body: (QueryCallID) async throws -> QueryAnswerValue<Value>
    ) async throws -> Value {
        let call = QueryCallID.next()
        let key = endpoint.key
        dispatch(
            QueryCallStarted(
                key: key, call: call, declaration: endpoint.declaration, isNextPage: isNextPage, reason: reason))
        func answered(_ answer: QueryAnswered.Answer, extends: UInt64? = nil) {
            dispatchUnlessReleased(
                QueryAnswered(key: key, call: call, answer: answer, at: QueryClock.now(clock), extends: extends))
        }
        do {
            let answer = try await body(call)
            answered(.response(QueryValue(answer.value), tags: answer.tags), extends: answer.extends)
            return answer.value
        } catch is CancellationError {
            answered(.cancelled)
            throw CancellationError()
        } catch {
            answered(.failure(QueryError(error)))
            throw error
        }
    }

    /// The entry at `key`'s data when it is fresh (and `force` is not set), or else the value of
    /// the call `call` starts for the entry's last write (`basis`). An entry that nobody observes
    /// once the call ended (a prefetch, a fetch from a graph) is removed after its
    /// `keepUnobservedFor`, unless observed meanwhile.
    func fetch<Value: Sendable>(
        _ key: QueryKey, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool, as type: Value.Type,
        call: (_ basis: UInt64) -> ActionTask<Value>
    ) async throws -> Value {
        let entry = state[keyPath: cache][key]
        if !force, let entry, entry.isFresh(at: QueryClock.now(clock)), let data = entry.data(as: Value.self) {
            return data
        }
        let task = call(entry?.version ?? 0)
        defer {
            if state[keyPath: cache][key]?.observers == 0 {
                dispatchUnlessReleased(QueryUpkeep(.collect(key), cache: cache))
            }
        }
        let value = try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
        // A fetch cancelled while the call it joined answered (the call went on for another
        // fetch) ends cancelled, as cancelled work does: the answer is in the cache for whoever
        // still wants it, and an owner's end does not see its fetch finish after it.
        try Task.checkCancellation()
        return value
    }
}

/// A fetch: the entry's data when it is fresh (no call), or else the answer of a call, joined
/// when one that will be applied is in flight. An entry that nobody observes once the call ended
/// is removed after its `keepUnobservedFor`, unless observed meanwhile.
public struct FetchQuery<Endpoint: QueryEndpoint>: CoordinatingAsyncAction {
    /// The endpoint's store's state.
    public typealias State = Endpoint.State

    /// The endpoint.
    public let endpoint: Endpoint
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable
    /// Whether to call even when the entry is fresh (a poll, a pull to refresh).
    public let force: Bool
    /// Why a call, if one is made, is made.
    public var reason: QueryCallReason = .fetch

    /// Fetches `endpoint` into the cache at `cache`; with `force`, calls even when fresh.
    public init(_ endpoint: Endpoint, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool = false) {
        self.endpoint = endpoint
        self.cache = cache
        self.force = force
    }

    /// The fresh data, or the answer of the (joined) call.
    public func run(_ context: ActionContext<State>) async throws -> Endpoint.Response {
        try await context.fetch(endpoint.key, cache: cache, force: force, as: Endpoint.Response.self) { basis in
            var call = QueryCall(endpoint: endpoint, basis: basis, reason: reason)
            if !force { call.cacheOfUnforcedFetch = cache }
            return context.dispatch(call)
        }
    }
}

extension FetchQuery {
    /// This fetch, saying why its call, if one is made, is made.
    func because(_ reason: QueryCallReason) -> Self {
        var fetch = self
        fetch.reason = reason
        return fetch
    }
}
