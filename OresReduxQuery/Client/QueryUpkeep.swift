import OresRedux

/// The cache's upkeep, decided from the state alone: the refetch of observed entries after an
/// invalidation or on the app's signal, and, once an entry's last observer left, the cancellation
/// of the calls that leave abandoned and the removal of the entry.
public struct QueryUpkeep<State: Sendable>: CoordinatingAsyncAction {
    /// What to do.
    public enum Work: Sendable, Equatable {
        /// Refetch the observed entries invalidated: those without a call started since
        /// (``QueryCache/keysToRefetch()``) are called again, the others' calls are joined.
        case refetchInvalidated
        /// Refetch the observed entries that are stale (``QueryCache/keysStale(at:)``).
        case refetchStale
        /// Cancel the calls of the entry at this key that its last observer's leave abandoned, then
        /// remove the entry once its `keepUnobservedFor` passed, if nobody observed it meanwhile.
        case collect(QueryKey)
    }

    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable
    /// What to do.
    public let work: Work

    /// Upkeep of the cache at `cache`.
    public init(_ work: Work, cache: WritableKeyPath<State, QueryCache> & Sendable) {
        self.work = work
        self.cache = cache
    }

    /// Does the work; a refetch returns once every call it started or joined has ended (their
    /// errors are in the entries), a removal once it was applied or was no longer due.
    ///
    /// - Throws: `CancellationError` when cancelled while it waits.
    public func run(_ context: ActionContext<State>) async throws {
        // What is read of the cache is read before the first wait, and no copy of the cache is kept
        // across a wait: the store's next write to the cache would copy every entry.
        switch work {
        case .collect(let key):
            let entry = context.state[keyPath: cache][key]
            for call in entry?.cancelledCalls ?? [] { context.cancel(id: QueryCallWork(call: call)) }
            guard let entry, entry.observers == 0, let unobservedAt = entry.unobservedAt else { return }
            try await context.clock.sleep(for: entry.keepUnobservedFor)
            context.dispatchUnlessReleased(QueryCollected(key: key, unobservedAt: unobservedAt))
        case .refetchInvalidated, .refetchStale:
            for answer in refetches(context) { await answer() }
        }
    }

    /// Starts (or joins) the refetches the work asks for, each the closure that waits for its end.
    /// A call that started after the invalidation is joined (its answer will be applied), so that
    /// the refetch ends when every observed entry it covers was answered.
    private func refetches(_ context: ActionContext<State>) -> [@Sendable () async -> Void] {
        let cache = context.state[keyPath: self.cache]
        let keys =
            work == .refetchInvalidated
            ? cache.keysInvalidatedAndObserved()
            : cache.keysStale(at: QueryClock.now(context.clock))
        let reason: QueryCallReason = work == .refetchInvalidated ? .invalidated : .appSignal
        return keys.compactMap { key in context.refetch(cache[key]?.recipe, cache: self.cache, because: reason) }
    }
}

extension ActionContext {
    /// Fetches an entry's endpoint again (its `recipe`, paged or not) into the cache at `cache`;
    /// the closure returned waits for the fetch's end. `nil` when the entry has no endpoint of this
    /// store's state (an entry's endpoint always is: it was declared through a client of this cache).
    func refetch(
        _ recipe: QueryRecipe?, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool = false,
        because reason: QueryCallReason
    ) -> (@Sendable () async -> Void)? {
        if let endpoint = recipe?.endpoint as? any QueryEndpoint {
            return refetch(endpoint, cache: cache, force: force, because: reason)
        }
        if let endpoint = recipe?.endpoint as? any QueryPagedEndpoint {
            return refetchPages(endpoint, cache: cache, force: force, because: reason)
        }
        return nil
    }

    private func refetch<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool,
        because reason: QueryCallReason
    ) -> (@Sendable () async -> Void)? {
        start(in: Endpoint.State.self, cache: cache) { context, cache in
            context.dispatch(FetchQuery(endpoint, cache: cache, force: force).because(reason))
        }
    }

    private func refetchPages<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, cache: WritableKeyPath<State, QueryCache> & Sendable, force: Bool,
        because reason: QueryCallReason
    ) -> (@Sendable () async -> Void)? {
        start(in: Endpoint.State.self, cache: cache) { context, cache in
            context.dispatch(FetchQueryPages(endpoint, cache: cache, force: force).because(reason))
        }
    }

    /// Starts `fetch` with this context and its cache's key path as the endpoint's state names them,
    /// and returns the closure that waits for its end; `nil` when the endpoint's state is not this one.
    private func start<EndpointState: Sendable, Response: Sendable>(
        in state: EndpointState.Type, cache: WritableKeyPath<State, QueryCache> & Sendable,
        _ fetch: (ActionContext<EndpointState>, WritableKeyPath<EndpointState, QueryCache> & Sendable) ->
            ActionTask<Response>
    ) -> (@Sendable () async -> Void)? {
        guard let context = self as? ActionContext<EndpointState>,
            let cache = CachePath(cache) as? CachePath<EndpointState>
        else { return nil }
        let task = fetch(context, cache.keyPath)
        return { _ = try? await task.value }
    }
}

/// A cache's key path in a value whose generic type a cast can name (a cast cannot name
/// `& Sendable`).
struct CachePath<State>: Sendable {
    let keyPath: WritableKeyPath<State, QueryCache> & Sendable

    init(_ keyPath: WritableKeyPath<State, QueryCache> & Sendable) {
        self.keyPath = keyPath
    }
}
