import OresRedux

/// The poll of one entry: refetches it at its ``QueryEntry/pollInterval`` on the store's clock
/// while someone observing it asks for polling.
///
/// Every observer that polls starts one, and only the first to claim the entry polls
/// (``QueryPollClaimed``, decided by the cache's reducer); the others end at once. The poll ends at
/// the first tick after the last observer that polled left, without calling.
public struct QueryPoll<State: Sendable>: CoordinatingAsyncAction {
    /// The entry.
    public let key: QueryKey
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable

    /// A poll of the entry at `key` in the cache at `cache`.
    public init(_ key: QueryKey, cache: WritableKeyPath<State, QueryCache> & Sendable) {
        self.key = key
        self.cache = cache
    }

    /// Claims the entry, then sleeps and refetches, each tick, until the entry is no longer its to
    /// poll (nobody polls, another poll claimed it since, or the entry was removed).
    ///
    /// - Throws: `CancellationError` when cancelled while it sleeps.
    public func run(_ context: ActionContext<State>) async throws {
        let poll = QueryCounters.shared.next()
        context.dispatch(QueryPollClaimed(key: key, poll: poll))
        while let interval = polled(poll, context)?.pollInterval {
            try await context.clock.sleep(for: interval)
            guard let entry = polled(poll, context),
                let answer = context.refetch(entry.recipe, cache: cache, force: true, because: .poll)
            else { return }
            await answer()
        }
    }

    /// The entry, while this poll is the one that polls it.
    private func polled(_ poll: UInt64, _ context: ActionContext<State>) -> QueryEntry? {
        context.state[keyPath: cache][key].flatMap { entry in entry.poll == poll ? entry : nil }
    }
}
