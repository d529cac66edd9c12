/// Where an entry stands.
public enum QueryStatus: Hashable, Sendable, Codable {
    /// Never fetched: no answer, no call in flight.
    case idle
    /// No answer yet, and a call is in flight.
    case loading
    /// The last applied answer was a response (``QueryEntry/data``).
    case succeeded
    /// The last applied answer was an error (``QueryEntry/error``); earlier data is kept.
    case failed
}

/// One cached response, with what is known about it: the value a view reads.
///
/// Only the cache's reducer changes an entry (see ``QueryCache``). An entry is `Equatable`, so a
/// view that selects one entry is redrawn when that entry changes, and never for another.
public struct QueryEntry: Equatable, Sendable {
    /// The response with every optimistic change still in progress applied on top, or `nil`
    /// before the first response.
    public internal(set) var data: QueryValue?
    /// Why the last applied answer failed, or `nil` when it was a response.
    public internal(set) var error: QueryError?
    /// When the last applied response arrived, on the store's clock.
    public internal(set) var fetchedAt: QueryTime?
    /// The tags the entry provides: its endpoint's, and its response's.
    public internal(set) var tags: Set<QueryTag> = []
    /// How many observers keep the entry; at zero, it is removed once ``keepUnobservedFor`` passed.
    public internal(set) var observers = 0
    /// The stamp of the last write to the entry (an applied answer, a mutation's success, an
    /// invalidation, its creation): an answer is applied only if its call started after it.
    public internal(set) var version: UInt64
    /// Whether the entry was invalidated (or cleared) since its last applied response.
    public internal(set) var isInvalidated = false
    /// Why the entry's last call was made; `nil` before its first.
    public internal(set) var lastCallReason: QueryCallReason?
    /// How long a response stays fresh: a fetch within that time is served without a call.
    public internal(set) var staleTime: Duration = .zero
    /// How long the entry is kept once nobody observes it.
    public internal(set) var keepUnobservedFor: Duration = .seconds(60)
    /// What becomes of the entry's calls in flight when its last observer leaves.
    public internal(set) var callWhenUnobserved: QueryUnobservedCall = .cancel

    /// The last applied response, without optimistic changes.
    var confirmed: QueryValue?
    /// The calls in flight, each with the stamp of its start.
    var calls: [QueryCallID: UInt64] = [:]
    /// Those of `calls` that fetch a next page.
    var nextPageCalls: Set<QueryCallID> = []
    /// The optimistic changes over `confirmed`, in the order they were added.
    var layers: [QueryLayer] = []
    /// How to call the endpoint again (for refetches decided from the state alone).
    var recipe: QueryRecipe?
    /// The stamp of the moment the last observer left, while nobody observes the entry.
    var unobservedAt: UInt64?
    /// The intervals the observers that poll asked for, one per such observer.
    var pollIntervals: [Duration] = []
    /// The poll that refetches the entry, while one does (see ``QueryPollClaimed``).
    var poll: UInt64?
    /// The calls the last observer's leave abandoned: forgotten by the entry (their answers are
    /// discarded), to be cancelled by the shell; each is dropped from here when its answer comes.
    var cancelledCalls: Set<QueryCallID> = []

    init(version: UInt64) {
        self.version = version
    }

    /// Where the entry stands: failed if the last applied answer was an error, succeeded if it
    /// was a response, loading while the first call is in flight, idle otherwise.
    public var status: QueryStatus {
        if error != nil { return .failed }
        if confirmed != nil { return .succeeded }
        return calls.isEmpty ? .idle : .loading
    }

    /// How often the entry is refetched while observed: the shortest interval its polling
    /// observers asked for, or `nil` when none polls.
    public var pollInterval: Duration? { pollIntervals.min() }

    /// Whether a call for this entry is in flight (in the background, when ``data`` is there).
    public var isFetching: Bool { !calls.isEmpty }

    /// The response as a `T`, optimistic changes included.
    public func data<T>(as type: T.Type) -> T? {
        data?.value(as: type)
    }

    /// The optimistic changes shown, by mutation, in the order they were added.
    public var optimisticChanges: [QueryMutationID] { layers.map(\.mutation) }

    /// Whether a response is there, not invalidated, and younger than ``staleTime`` at `now`.
    public func isFresh(at now: QueryTime) -> Bool {
        guard error == nil, confirmed != nil, !isInvalidated, let fetchedAt else { return false }
        return fetchedAt.advanced(by: staleTime) > now
    }

    /// Whether a fetch of the entry started since the last write is in flight: its answer will be
    /// applied. (A next page's call is no fetch of the list: it only extends it.)
    var hasCurrentCall: Bool { calls.contains { call, started in started > version && !nextPageCalls.contains(call) } }

    /// `data`: `confirmed` with every layer applied, in order.
    mutating func showLayers() {
        data = confirmed.map { confirmed in layers.reduce(confirmed) { value, layer in layer.change(value) } }
    }
}
