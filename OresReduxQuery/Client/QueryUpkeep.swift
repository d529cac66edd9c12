import OresRedux

/// The cache's upkeep, decided from the state alone: the refetch of observed entries after an
/// invalidation or on the app's signal, and the removal of an entry nobody observes any more.
public struct QueryUpkeep<State: Sendable>: AsyncAction {
    /// What to do.
    public enum Work: Sendable, Equatable {
        /// Refetch the observed entries invalidated and not being refetched
        /// (``QueryCache/keysToRefetch()``).
        case refetchInvalidated
        /// Refetch the observed entries that are stale (``QueryCache/keysStale(at:)``).
        case refetchStale
        /// Remove the entry at this key once its `keepUnobservedFor` passed, if nobody observed it
        /// meanwhile.
        case collect(QueryKey)
        /// Refetch the entry at this key every `interval` on the store's clock, while someone
        /// observes it; ends at the first tick that finds nobody (or when cancelled).
        case poll(QueryKey, every: Duration)
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

    /// Does the work; a refetch returns once every call it started has ended (their errors are in
    /// the entries), a removal once it was applied or was no longer due.
    public func run(_ context: ActionContext<State>) async throws {
        let cache = context.state[keyPath: self.cache]
        switch work {
        case .collect(let key):
            guard let entry = cache[key], entry.observers == 0, let unobservedAt = entry.unobservedAt else { return }
            try await context.clock.sleep(for: entry.keepUnobservedFor)
            context.dispatch(QueryCollected(key: key, unobservedAt: unobservedAt))
        case .poll(let key, let interval):
            while true {
                try await context.clock.sleep(for: interval)
                let entry = context.state[keyPath: self.cache][key]
                guard let entry, entry.observers > 0, let endpoint = entry.recipe?.endpoint as? any QueryEndpoint,
                    let answer = refetch(endpoint, context, force: true)
                else { return }
                await answer()
            }
        case .refetchInvalidated, .refetchStale:
            let keys =
                work == .refetchInvalidated ? cache.keysToRefetch() : cache.keysStale(at: QueryClock.now(context.clock))
            var answers: [@Sendable () async -> Void] = []
            for key in keys {
                guard let endpoint = cache[key]?.recipe?.endpoint as? any QueryEndpoint,
                    let answer = refetch(endpoint, context)
                else { continue }
                answers.append(answer)
            }
            for answer in answers { await answer() }
        }
    }

    /// Fetches `endpoint` again, if it belongs to this store's state (an entry's endpoint always
    /// does: it was declared through a client of this cache).
    private func refetch<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, _ context: ActionContext<State>, force: Bool = false
    ) -> (@Sendable () async -> Void)? {
        guard let context = context as? ActionContext<Endpoint.State>,
            let cache = CachePath(cache) as? CachePath<Endpoint.State>
        else { return nil }
        let fetch = context.dispatch(FetchQuery(endpoint, cache: cache.keyPath, force: force))
        return { _ = try? await fetch.value }
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
