import OresRedux

/// A query whose answer is a list the server gives page after page: the endpoint fetches one page
/// (its `run` makes one call, so a `TestStore` stubs it like any other), and one cache entry
/// keeps every page fetched, in order, as ``QueryPages``.
///
/// ```swift
/// struct Timeline: QueryPagedEndpoint {
///     var cursor: String? = nil
///     var key: QueryKey { QueryKey("timeline") }   // the same for every page
///     var firstPage: Timeline { Timeline() }
///     func nextPage(after page: TimelinePage) -> Timeline? { page.next.map { Timeline(cursor: $0) } }
///     func run(_ context: ActionContext<AppState>) async throws -> TimelinePage {
///         try await context.dependencies.api.timeline(after: cursor)
///     }
/// }
/// ```
///
/// `QueryClient/fetchNextPage(_:in:)` appends a page; a refetch (a poll, an invalidation, the
/// app's signal) fetches again as many pages as the list had when it started, from the first,
/// each after the page before it, and replaces the list in one write, so a view never shows pages
/// of two fetches. A page is appended only to the list it was fetched after: if the list was
/// replaced meanwhile (a refetch, an invalidation, a clear), the page is discarded.
public protocol QueryPagedEndpoint: QueryDeclaring {
    /// The endpoint of the list's first page (this endpoint, with its cursor at the start); its
    /// `key` is the list's, the same for every page.
    var firstPage: Self { get }
    /// The endpoint of the page after `page`, or `nil` when `page` is the last.
    func nextPage(after page: Response) -> Self?
}

extension QueryPagedEndpoint {
    /// An optimistic change to this endpoint's list.
    public func patch(_ change: @escaping @Sendable (inout QueryPages<Self>) -> Void) -> QueryPatch {
        QueryPatch(key, as: QueryPages<Self>.self, change)
    }
}

/// One call for a paged list, stamped in the cache when it starts and answered into it when it
/// ends: every page again from the first (``Pages/all``), or the next page (``Pages/next``).
///
/// Keyed as ``QueryCall`` is, by the entry, its last write, and which pages: the same request in
/// flight is one call.
public struct QueryPagesCall<Endpoint: QueryPagedEndpoint>: KeyedAsyncAction, CoordinatingAsyncAction {
    /// The endpoint's store's state.
    public typealias State = Endpoint.State

    /// Which pages a call fetches.
    public enum Pages: Hashable, Sendable {
        /// As many pages as the list has when the call starts (one, at least), from the first.
        case all
        /// The page after the list's last one (the first, when the list has none yet).
        case next
    }

    /// What identifies a call that others may join.
    public struct Key: Hashable, Sendable {
        /// The entry.
        public let key: QueryKey
        /// The entry's ``QueryEntry/version`` when the call was asked for.
        public let basis: UInt64
        /// Which pages.
        public let pages: Pages
    }

    /// The list's endpoint (any of its pages).
    public let endpoint: Endpoint
    /// The entry's ``QueryEntry/version`` when the call was asked for.
    public let basis: UInt64
    /// Which pages.
    public let pages: Pages
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable
    /// Why the call is made (not part of its key: a call that joins keeps the first one's reason);
    /// a call for the next page says ``QueryCallReason/nextPage`` whatever this is.
    public var reason: QueryCallReason = .fetch
    /// Whether a fetch asked for the call because the list was not fresh (not a forced one): the
    /// call then asks again when it starts (see `run`).
    var isAskedByUnforcedFetch = false

    /// The entry, its last write, and which pages.
    public var key: Key { Key(key: endpoint.key, basis: basis, pages: pages) }

    /// Stamps the call, reads the list as it is at that commit, fetches the pages one after the
    /// other, and hands the new list to the cache: a whole list (applied only if nothing newer was
    /// written meanwhile), or the list read with the next page appended (applied only if the list
    /// is still the one read). Returns the new list either way.
    public func run(_ context: ActionContext<State>) async throws -> QueryPages<Endpoint> {
        if isAskedByUnforcedFetch,
            let list = context.dataAnswered(since: basis, of: endpoint.key, in: cache, as: QueryPages<Endpoint>.self)
        {
            return list
        }
        return try await context.answerCall(
            of: endpoint, isNextPage: pages == .next, reason: pages == .next ? .nextPage : reason
        ) { call in
            // Read after the start's commit: any write after this read is newer than the call.
            let entry = context.state[keyPath: cache][endpoint.key]
            let list = entry?.confirmed?.value(as: QueryPages<Endpoint>.self)
            if pages == .next, let list, let version = entry?.version {
                guard let next = list.nextPage else { return QueryAnswerValue(list, tags: entry?.tags ?? []) }
                let page = try await next.callServer(as: call, context)
                return QueryAnswerValue(
                    list.appending(page, after: next), tags: (entry?.tags ?? []).union(next.tags(for: page)),
                    extends: version)
            }
            var fetched = QueryPages<Endpoint>(pages: [], nextPage: endpoint.firstPage)
            var tags = endpoint.tags
            while fetched.pages.count < max(1, list?.pages.count ?? 0), let next = fetched.nextPage {
                let page = try await next.callServer(as: call, context)
                fetched = fetched.appending(page, after: next)
                tags.formUnion(next.tags(for: page))
            }
            return QueryAnswerValue(fetched, tags: tags)
        }
    }
}

/// A fetch of a paged list: the list when it is fresh (no call), or else a call (joined when the
/// same one is in flight) for every page again (``QueryPagesCall/Pages/all``) or the next one.
public struct FetchQueryPages<Endpoint: QueryPagedEndpoint>: CoordinatingAsyncAction {
    /// The endpoint's store's state.
    public typealias State = Endpoint.State

    /// The list's endpoint.
    public let endpoint: Endpoint
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable
    /// Which pages.
    public let pages: QueryPagesCall<Endpoint>.Pages
    /// Whether to call even when the list is fresh (a poll, a pull to refresh, the next page).
    public let force: Bool
    /// Why a call, if one is made, is made.
    public var reason: QueryCallReason = .fetch

    /// Fetches `pages` of `endpoint`'s list into the cache at `cache`; with `force`, calls even
    /// when fresh.
    public init(
        _ endpoint: Endpoint, cache: WritableKeyPath<State, QueryCache> & Sendable,
        pages: QueryPagesCall<Endpoint>.Pages = .all, force: Bool = false
    ) {
        self.endpoint = endpoint
        self.cache = cache
        self.pages = pages
        self.force = force
    }

    /// The fresh list, or the answer of the (joined) call.
    public func run(_ context: ActionContext<State>) async throws -> QueryPages<Endpoint> {
        try await context.fetch(endpoint.key, cache: cache, force: force, as: QueryPages<Endpoint>.self) { basis in
            var call = QueryPagesCall(endpoint: endpoint, basis: basis, pages: pages, cache: cache, reason: reason)
            call.isAskedByUnforcedFetch = !force
            return context.dispatch(call)
        }
    }
}

extension FetchQueryPages {
    /// This fetch, saying why its call, if one is made, is made.
    func because(_ reason: QueryCallReason) -> Self {
        var fetch = self
        fetch.reason = reason
        return fetch
    }
}
