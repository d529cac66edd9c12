import OresRedux

// The sync actions the cache's reducer applies: every change to a `QueryCache` is one of these,
// so the recorder, the inspector and a `TestStore` see each step. `QueryClient` dispatches them;
// an app dispatches `QueryInvalidated` and `QueryCacheCleared` itself when it wants to.

/// Someone observes an entry (a screen, a subscription): it is kept, and created if missing.
public struct QueryObserved: Action {
    /// The entry.
    public let key: QueryKey
    /// What the entry's endpoint declares.
    let declaration: QueryDeclaration
    /// How often this observer wants the entry refetched, or `nil` when it does not poll.
    let polling: Duration?
}

/// An observer of an entry left; the last one starts the entry's time to removal, and cancels the
/// entry's calls in flight if its endpoint says so (``QueryUnobservedCall``).
public struct QueryUnobserved: Action {
    /// The entry.
    public let key: QueryKey
    /// The interval this observer polled at, or `nil` when it did not poll.
    let polling: Duration?

    /// An observer of the entry at `key` left.
    public init(key: QueryKey) {
        self.init(key: key, polling: nil)
    }

    init(key: QueryKey, polling: Duration?) {
        self.key = key
        self.polling = polling
    }
}

/// A poll of an entry asks to be the one that polls it: granted when no other poll is, and someone
/// observing the entry asked for polling. One poll an entry, however many observers ask.
public struct QueryPollClaimed: Action {
    /// The entry.
    public let key: QueryKey
    /// The poll, by a number no other poll of this process had.
    public let poll: UInt64
}

/// The removal of an entry nobody observed for its `keepUnobservedFor`: applied only if nobody
/// observed it since the last observer left (`unobservedAt`, the stamp of that moment).
public struct QueryCollected: Action {
    /// The entry.
    public let key: QueryKey
    /// The stamp of the moment the last observer left, as the entry held it then.
    let unobservedAt: UInt64
}

/// A call to an endpoint starts: stamped, so that its answer can be ordered against every write.
public struct QueryCallStarted: Action {
    /// The entry.
    public let key: QueryKey
    /// The call.
    public let call: QueryCallID
    /// What the entry's endpoint declares.
    let declaration: QueryDeclaration
    /// Whether the call fetches a page to append to the list (``QueryPagedEndpoint``): such a call
    /// does not stand for a fetch of the entry, so an invalidation still refetches the list.
    var isNextPage = false
    /// Why the call was made.
    public var reason: QueryCallReason = .fetch
}

/// A call's answer: applied only if nothing newer was written to the entry after the call started.
public struct QueryAnswered: Action {
    /// What a call ended with.
    public enum Answer: Equatable, Sendable {
        /// A response, and the tags it provides.
        case response(QueryValue, tags: Set<QueryTag>)
        /// An error.
        case failure(QueryError)
        /// The call was cancelled: nothing is written, the call is only forgotten.
        case cancelled
    }

    /// The entry.
    public let key: QueryKey
    /// The call.
    public let call: QueryCallID
    /// What it ended with.
    public let answer: Answer
    /// When it ended, on the store's clock.
    public let at: QueryTime
    /// For a page appended to a list: the entry's ``QueryEntry/version`` the list had when the
    /// call read it. The answer is then applied only if the entry is still at that version (the
    /// list was not replaced since), so a page is never appended to pages it does not follow.
    var extends: UInt64? = nil
}

/// A mutation's optimistic changes, shown from this commit until the mutation's own commit.
public struct QueryOptimisticChangeAdded: Action {
    /// The mutation.
    public let mutation: QueryMutationID
    /// Its changes. A change to an entry that is not cached creates the entry to hold it (shown
    /// on its first answer), removed when the mutation settles if nothing else keeps it.
    public let patches: [QueryPatch]
}

/// A mutation succeeded: its optimistic changes are settled (kept until an answer newer than this
/// commit replaces them) and what it invalidates is marked stale, at this commit's stamp.
public struct QueryMutationSucceeded: Action {
    /// The mutation.
    public let mutation: QueryMutationID
    /// What it invalidates.
    public let invalidates: [QueryInvalidation]
}

/// A mutation failed (or its run was cancelled before it succeeded): exactly its optimistic
/// changes are removed. After its success, its changes stay.
public struct QueryMutationFailed: Action {
    /// The mutation.
    public let mutation: QueryMutationID
}

/// Entries are marked stale at this commit: answers of calls started before it are not applied,
/// and the observed ones are refetched after it.
public struct QueryInvalidated: Action {
    /// Which entries.
    public let invalidations: [QueryInvalidation]

    /// Invalidates the entries that `invalidations` match.
    public init(_ invalidations: [QueryInvalidation]) {
        self.invalidations = invalidations
    }
}

/// Everything is forgotten (log-out): data, optimistic changes and calls in flight, whose answers
/// are then discarded. Observed entries stay, empty, with their observers.
public struct QueryCacheCleared: Action {
    /// Clears the cache.
    public init() {}
}

/// What an endpoint declares about its entry, carried by the actions that may create the entry.
struct QueryDeclaration: Sendable {
    var tags: Set<QueryTag> = []
    var staleTime: Duration = .zero
    var keepUnobservedFor: Duration = .seconds(60)
    var callWhenUnobserved: QueryUnobservedCall = .cancel
    var recipe: QueryRecipe?
}

/// How to call an entry's endpoint again: the endpoint itself, a value (its type and arguments).
struct QueryRecipe: Equatable, Sendable {
    let endpoint: any Hashable & Sendable

    static func == (lhs: QueryRecipe, rhs: QueryRecipe) -> Bool {
        AnyHashable(lhs.endpoint) == AnyHashable(rhs.endpoint)
    }
}
