@_spi(OresReduxInternals) import OresRedux

/// The query cache's API for a store whose state keeps a ``QueryCache`` at `cache`: fetch,
/// observe, invalidate, mutate. Every change it makes to the cache is a sync action through the
/// store's pipeline; every call is an async action or a graph of the store.
///
/// ```swift
/// let queries = QueryClient(\AppState.cache)
/// let store = Store(initialState: AppState(), reducer: .combine(queries.reducer, appReducer))
///
/// let feed = queries.observe(Feed(userID: 7), in: store)   // kept while the screen holds it
/// store.subscribe({ $0.cache[Feed(userID: 7)] }) { entry in render(entry) }
/// queries.mutate(AddPost(post: draft), in: store)
/// ```
///
/// Each method takes the store (or an `ActionContext`, or a `TestStore`) it works in.
public struct QueryClient<State: Sendable>: Sendable {
    /// Where the cache is in the state.
    public let cache: WritableKeyPath<State, QueryCache> & Sendable

    /// The API for the cache at `cache`.
    public init(_ cache: WritableKeyPath<State, QueryCache> & Sendable) {
        self.cache = cache
    }

    /// The cache's reducer: combine it with the app's (`Reducer.queries(_:)` is the same).
    public var reducer: Reducer<State> { .queries(cache) }

    /// The data of `endpoint`: the cached one when it is fresh, or else the answer of a call
    /// (joined with the one in flight, when that one's answer will be applied).
    @discardableResult
    public func fetch<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> ActionTask<Endpoint.Response> where Endpoint.State == State {
        store.dispatch(FetchQuery(endpoint, cache: cache))
    }

    /// Fetches `endpoint` ahead of a screen that will show it, if it is not fresh; nothing waits
    /// for it. The entry is kept for its `keepUnobservedFor` after the call, unless observed.
    public func prefetch<Endpoint: QueryEndpoint>(_ endpoint: Endpoint, in store: some ActionDispatcher<State>)
    where Endpoint.State == State {
        store.dispatch(FetchQuery(endpoint, cache: cache).because(.prefetch))
    }

    /// Calls `endpoint` even if its entry is fresh (a pull to refresh, a poll), joining a call in
    /// flight whose answer will be applied.
    @discardableResult
    public func refetch<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> ActionTask<Endpoint.Response> where Endpoint.State == State {
        store.dispatch(FetchQuery(endpoint, cache: cache, force: true).because(.refetch))
    }

    /// Observes `endpoint`'s entry: it is kept (and fetched, unless fresh) while the returned
    /// observation lives, and removed its `keepUnobservedFor` after the last observation ends.
    /// If a call is in flight when the last observation ends, it is cancelled or finishes into the
    /// cache, as the endpoint's `callWhenUnobserved` says. Observed through a `WorkOwner`, the
    /// observation also ends when the owner ends, and its call in flight follows the same rule;
    /// through an owner that has ended, it comes back ended, nothing is fetched, and the store
    /// reports the refusal (`StoreDiagnostic.Kind.dispatchRefusedByOwner`).
    public func observe<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> QueryObservation where Endpoint.State == State {
        observe(endpoint, polling: nil, in: store) { app in
            app.dispatch(FetchQuery(endpoint, cache: cache).because(.observed))
        }
    }

    /// Observes `endpoint`'s entry as `observe(_:in:)` does, and refetches it every `interval` on
    /// the store's clock while someone polls it. One poll serves every observer of the entry, at the
    /// shortest interval they asked for (a new interval counts from the poll's next tick); a poll
    /// joins a call in flight whose answer will be applied. When the last observer that polls
    /// leaves, the poll makes no call any more and ends at its next tick; the next observer that
    /// polls starts it again.
    public func observe<Endpoint: QueryEndpoint>(
        _ endpoint: Endpoint, polling interval: Duration, in store: some ActionDispatcher<State>
    ) -> QueryObservation where Endpoint.State == State {
        observe(endpoint, polling: Optional(interval), in: store) { app in
            app.dispatch(FetchQuery(endpoint, cache: cache).because(.observed))
        }
    }

    /// Observes a paged list's entry as `observe(_:in:)` does: kept (and its first page fetched,
    /// unless the list is fresh) while the returned observation lives.
    public func observe<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> QueryObservation where Endpoint.State == State {
        observe(endpoint, polling: nil, in: store) { app in
            app.dispatch(FetchQueryPages(endpoint, cache: cache).because(.observed))
        }
    }

    /// Observes a paged list's entry as ``observe(_:polling:in:)`` does; each poll fetches again as
    /// many pages as the list has, from the first, and replaces them in one write.
    public func observe<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, polling interval: Duration, in store: some ActionDispatcher<State>
    ) -> QueryObservation where Endpoint.State == State {
        observe(endpoint, polling: Optional(interval), in: store) { app in
            app.dispatch(FetchQueryPages(endpoint, cache: cache).because(.observed))
        }
    }

    /// A paged list: the cached one when it is fresh, or else its pages fetched again, from the first.
    @discardableResult
    public func fetch<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> ActionTask<QueryPages<Endpoint>> where Endpoint.State == State {
        store.dispatch(FetchQueryPages(endpoint, cache: cache))
    }

    /// Fetches the page after the list's last one and appends it (the first page, when the list
    /// has none); the list is returned as it was if it has no next page. The page is discarded if
    /// the list was replaced while it was fetched (a refetch, an invalidation, a clear).
    @discardableResult
    public func fetchNextPage<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> ActionTask<QueryPages<Endpoint>> where Endpoint.State == State {
        store.dispatch(FetchQueryPages(endpoint, cache: cache, pages: .next, force: true))
    }

    /// Fetches a paged list again even if it is fresh: as many pages as it has, from the first,
    /// each after the one before it, replacing them all in one write.
    @discardableResult
    public func refetch<Endpoint: QueryPagedEndpoint>(
        _ endpoint: Endpoint, in store: some ActionDispatcher<State>
    ) -> ActionTask<QueryPages<Endpoint>> where Endpoint.State == State {
        store.dispatch(FetchQueryPages(endpoint, cache: cache, force: true).because(.refetch))
    }

    // Made through a `WorkOwner`, the observation also ends when the owner ends (or at once, if it
    // has): the owner holds it weakly, so the screen still decides how long it lives. The fetch, the
    // poll and the leave are the app's work, not the owner's: the fetch is the observation's, so
    // when the owner ends, the observation's end lets the endpoint's `callWhenUnobserved` decide
    // the call in flight (the owner's cancel would drop an answer `.finishIntoCache` keeps); one
    // poll serves every screen that polls; a leave must reach the cache after the owner ended.
    // Through an owner that has already ended, nothing is observed or fetched: the observation
    // comes back ended, and the store reports the refusal, as the owner does for its own work.
    private func observe<Endpoint: QueryDeclaring>(
        _ endpoint: Endpoint, polling: Duration?, in store: some ActionDispatcher<State>,
        fetch: (TargetDispatcher<State>) -> Void
    ) -> QueryObservation where Endpoint.State == State {
        let key = endpoint.key
        guard !store.dispatchTarget.refusesForEndedOwner("An observation of \(Endpoint.self)") else {
            let refused = QueryObservation(key: key) {}
            refused.cancel()
            return refused
        }
        let app = TargetDispatcher(store.dispatchTarget.withoutOwner)
        store.dispatch(QueryObserved(key: key, declaration: endpoint.declaration, polling: polling))
        fetch(app)
        if polling != nil { app.dispatch(QueryPoll(key, cache: cache)) }
        let cache = cache
        let observation = QueryObservation(key: key) {
            app.dispatch(QueryUnobserved(key: key, polling: polling))
            app.dispatch(QueryUpkeep(.collect(key), cache: cache))
        }
        store.dispatchTarget.endWithOwner(
            { [weak observation] in observation?.cancel() },
            isDone: { [weak observation] in observation?.isCancelled ?? true })
        return observation
    }

    /// Refetches the observed entries that are stale: call it on the app's signals (it came to the
    /// foreground, the network came back); the cache decides which entries need a call.
    @discardableResult
    public func refetchStale(in store: some ActionDispatcher<State>) -> ActionTask<Void> {
        store.dispatch(QueryUpkeep(.refetchStale, cache: cache))
    }

    /// Invalidates the entries `invalidations` match, then refetches those observed; the refetches
    /// start after the invalidation's commit.
    @discardableResult
    public func invalidate(_ invalidations: [QueryInvalidation], in store: some ActionDispatcher<State>)
        -> GraphRun<State>
    {
        var graph = ActionGraph<State>()
        let invalidated = graph.send(QueryInvalidated(invalidations))
        graph.run(QueryUpkeep(.refetchInvalidated, cache: cache), after: invalidated)
        return store.dispatch(graph)
    }

    /// Forgets everything (log-out): data, optimistic changes, calls in flight (their answers are
    /// discarded). Observed entries stay, empty, until the app fetches again.
    public func clear(in store: some ActionDispatcher<State>) {
        store.dispatch(QueryCacheCleared())
    }

    /// Runs `mutation` as a graph: its optimistic changes; the call; then, if it failed (or the run
    /// was cancelled), the removal of exactly those changes, or, if it succeeded, the invalidation
    /// of what it declares and, after that commit, the refetch of the observed entries invalidated.
    @discardableResult
    public func mutate<Mutation: QueryMutation>(_ mutation: Mutation, in store: some ActionDispatcher<State>)
        -> QueryMutationRun<State, Mutation.Response> where Mutation.State == State
    {
        let mutationGraph = graph(of: mutation)
        return QueryMutationRun(
            id: mutationGraph.id, run: store.dispatch(mutationGraph.graph), call: mutationGraph.call)
    }

    /// A mutation's graph, each node labelled (the labels a durable run journals): its optimistic
    /// changes, the call (its fallback and the run's cancel action roll them back), the success's
    /// commit, and the refetch of what it invalidated.
    func graph<Mutation: QueryMutation>(of mutation: Mutation) -> QueryMutationGraph<State, Mutation.Response>
    where Mutation.State == State {
        let id = QueryMutationID.next()
        var graph = ActionGraph<State>()
        let shown = graph.send(QueryOptimisticChangeAdded(mutation: id, patches: mutation.optimisticChanges))
        graph.setLabel("optimistic change", for: shown)
        let call = graph.run(mutation, after: shown)
        graph.setLabel("call", for: call)
        graph.setFallback(for: call) { _ in QueryMutationFailed(mutation: id) }
        graph.setCancelAction(QueryMutationFailed(mutation: id))
        let succeeded = graph.send(QueryMutationSucceeded(mutation: id, invalidates: mutation.invalidates), after: call)
        graph.setLabel("success", for: succeeded)
        let refetch = graph.run(QueryUpkeep(.refetchInvalidated, cache: cache), after: succeeded)
        graph.setLabel("refetch", for: refetch)
        return QueryMutationGraph(id: id, graph: graph, call: call, refetch: refetch)
    }
}

/// A mutation's graph and the nodes a durable run declares.
struct QueryMutationGraph<State: Sendable, Response: Sendable> {
    let id: QueryMutationID
    var graph: ActionGraph<State>
    let call: Node<Response>
    let refetch: Node<Void>
}

/// A mutation's run: its response, and the end of its graph (refetches included).
public struct QueryMutationRun<State: Sendable, Response: Sendable>: Sendable {
    /// The mutation, as the cache's layers name it.
    public let id: QueryMutationID
    /// The graph's run.
    public let run: GraphRun<State>
    let call: Node<Response>

    /// The server's response, or the call's error.
    public var value: Response {
        get async throws { try await run.value(of: call) }
    }

    /// Waits until the graph ended: the commit, and the refetches it started.
    @discardableResult
    public func wait() async -> GraphReport {
        await run.wait()
    }
}
