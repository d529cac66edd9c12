extension Store {
    /// Starts an async action as the one piece of work under `id`: by default it cancels the work
    /// dispatched earlier with the same id that has not finished ("take latest"), so only the newest
    /// search, refresh or screen load can reach the state.
    ///
    /// ```swift
    /// store.dispatch(Search(query: text), id: SearchID(), policy: .debounce(.milliseconds(300)))
    /// ```
    ///
    /// Work the policy cancels ends as cancelled work does (its ``ActionTask`` throws
    /// `CancellationError`, unless its `run` had started and returned anyway), and from then on every sync action its `run` dispatches through its
    /// context is dropped, even when `run` ignores cancellation: a stale response never reaches the
    /// state. Waits (debounce, throttle) are on the store's clock, so a ``VirtualClock`` drives them
    /// in tests. A ``KeyedAsyncAction`` still shares its call with other dispatches of the same key.
    /// - Parameters:
    ///   - action: the async action.
    ///   - id: any hashable value naming the work, such as a type of its own or a string; ids are
    ///     compared with `==` across action types and graphs.
    ///   - policy: what this dispatch does to earlier work under `id`, and when it starts.
    /// - Returns: the action's handle; cancelling it also drops what the action dispatches afterwards.
    @discardableResult
    public func dispatch<A: AsyncAction>(
        _ action: A, id: some Hashable & Sendable, policy: InFlightPolicy = .takeLatest
    ) -> ActionTask<A.Response> where A.State == State {
        core.dispatchAsync(action, id: WorkID(id), policy: policy)
    }

    /// Starts a graph as the one piece of work under `id`, with the same policies as async actions:
    /// a run the policy cancels ends with its unfinished nodes `.cancelled`, so its sync nodes (the
    /// place its responses reach the state) never apply.
    ///
    /// A run that waits (debounce, throttle) is returned at once and has not started yet: its
    /// report's times count from this dispatch.
    /// - Parameters:
    ///   - graph: the graph to run.
    ///   - id: any hashable value naming the work; shared with async actions dispatched by id.
    ///   - policy: what this dispatch does to earlier work under `id`, and when it starts.
    @discardableResult
    public func dispatch(
        _ graph: ActionGraph<State>, id: some Hashable & Sendable, policy: InFlightPolicy = .takeLatest
    ) -> GraphRun<State> {
        core.dispatchGraph(graph, id: WorkID(id), policy: policy)
    }

    /// Cancels the work dispatched with `id` that has not finished, waiting or running. Once this
    /// returns, nothing that work dispatches reaches the state. Nothing happens if there is none.
    public func cancel(id: some Hashable & Sendable) {
        core.cancelWork(id: WorkID(id))
    }
}

extension ActionContext {
    /// Starts an async action under `id` in the same store; see `Store.dispatch(_:id:policy:)`.
    @discardableResult
    public func dispatch<A: AsyncAction>(
        _ action: A, id: some Hashable & Sendable, policy: InFlightPolicy = .takeLatest
    ) -> ActionTask<A.Response> where A.State == State {
        core.dispatchAsync(action, id: WorkID(id), policy: policy)
    }

    /// Starts a graph under `id` in the same store; see `Store.dispatch(_:id:policy:)`.
    @discardableResult
    public func dispatch(
        _ graph: ActionGraph<State>, id: some Hashable & Sendable, policy: InFlightPolicy = .takeLatest
    ) -> GraphRun<State> {
        core.dispatchGraph(graph, id: WorkID(id), policy: policy)
    }

    /// Cancels the work dispatched with `id` in the same store; see `Store.cancel(id:)`.
    public func cancel(id: some Hashable & Sendable) {
        core.cancelWork(id: WorkID(id))
    }
}
