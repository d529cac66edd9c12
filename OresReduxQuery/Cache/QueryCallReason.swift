/// Why a call of an entry's endpoint was made: carried by ``QueryCallStarted`` (so the inspector's
/// list of actions says it beside each call) and kept on the entry as
/// ``QueryEntry/lastCallReason``.
///
/// A call that joins another one in flight keeps the reason of the call it joined.
public enum QueryCallReason: String, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `fetch`, or a fetch from a graph: the entry was missing, stale, invalidated or failed.
    case fetch
    /// A screen observed the entry, and it was missing, stale, invalidated or failed.
    case observed
    /// `prefetch`: fetched before any screen asked for it.
    case prefetch
    /// `refetch`: asked for even if the entry was fresh (a pull to refresh).
    case refetch
    /// The entry's poll ticked.
    case poll
    /// An invalidation (or a mutation's) marked the observed entry stale.
    case invalidated
    /// `refetchStale`: the app's signal (foreground, network back) found the observed entry stale.
    case appSignal
    /// The next page of a paged list.
    case nextPage

    /// The reason in a few words, as the inspector shows it.
    public var description: String {
        switch self {
        case .fetch: "fetched: missing or stale"
        case .observed: "observed: missing or stale"
        case .prefetch: "prefetched"
        case .refetch: "refetched on request"
        case .poll: "polled"
        case .invalidated: "refetched after an invalidation"
        case .appSignal: "refetched on the app's signal"
        case .nextPage: "next page"
        }
    }
}
