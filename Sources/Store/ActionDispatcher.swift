/// Anything that dispatches into a store: a ``Store``, a ``ScopedStore``, an ``ObservedStore``, an
/// ``ActionContext``, and a test store. Its dispatch methods are written once, here, for all of
/// them. Only the library's types conform: to wrap a store, hold it (or take
/// `some StoreProtocol<State>`) and dispatch through it.
///
/// Feature code rarely names this protocol; it calls `dispatch` on whatever it holds, and the call
/// means the same everywhere: a sync action is applied through the store's one pipeline, an async
/// action or a graph starts in the store, work under an id follows its ``InFlightPolicy``.
///
/// ```swift
/// func refresh(_ dispatcher: some ActionDispatcher<AppState>) {
///     dispatcher.dispatch(FeedRequested())
///     dispatcher.dispatch(FetchFeed(), id: "feed")
/// }
/// ```
public protocol ActionDispatcher<State>: Sendable {
    /// The state type of the store (or the part of it) this dispatcher dispatches into.
    associatedtype State: Sendable

    /// Where this dispatcher's actions go: the store, or the scope of it, and the rules of this
    /// dispatcher (an ``ActionContext`` of cancelled work drops what it dispatches; a test store
    /// tracks the work it starts).
    @_spi(OresReduxInternals)
    var dispatchTarget: DispatchTarget<State> { get }
}

extension ActionDispatcher {
    /// Applies a sync action: middleware, then reducer, then subscribers.
    ///
    /// Returns once the action is applied, except when called from a subscriber or middleware of
    /// the same store: then it is queued and applied right after the current action, before any
    /// work that other threads or runs handed to the applying thread meanwhile (first in, first out).
    /// A dispatch from inside a reducer (or a graph's `make` or fallback closure) is dropped and
    /// reported as a ``StoreDiagnostic``: reducers must be pure. Through the context of an async
    /// action dispatched with an id or under an owner, or of a graph's async node, the action is
    /// dropped once that work was cancelled or replaced: a stale response never reaches the state.
    /// (A ``KeyedAsyncAction``'s shared call is the work of every dispatch that joined it: through
    /// its context, an action is dropped once all of theirs would drop it.)
    public func dispatch(_ action: some Action) {
        dispatchTarget.dispatch(action)
    }

    /// Starts an async action and returns a handle on its response.
    ///
    /// `run` starts at once on a new task. If the action is a ``KeyedAsyncAction`` and a call with
    /// the same key is in flight, this dispatch joins it instead of starting a second one.
    @discardableResult
    public func dispatch<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        dispatchTarget.dispatchAsync(action)
    }

    /// Starts running a graph and returns the run.
    ///
    /// Nodes without prerequisites start at once; each other node starts when all its prerequisites
    /// succeeded. Sync nodes ready together reach the reducer in the order they were added. Keep the
    /// run to await values, the report, or to cancel; dropping it does not stop it.
    ///
    /// A graph with no nodes finishes as it starts. When nobody watches it (no event observers,
    /// owner or journal), `Store.dispatch(_:)` may return the same finished run for every such
    /// dispatch: those runs would differ in nothing but their identity.
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State> {
        dispatchTarget.dispatchGraph(graph)
    }

    /// Starts an async action as the one piece of work under `id`: by default it cancels the work
    /// dispatched earlier with the same id that has not finished ("take latest"), so only the newest
    /// search, refresh or screen load can reach the state.
    ///
    /// ```swift
    /// store.dispatch(Search(query: text), id: SearchID(), policy: .debounce(.milliseconds(300)))
    /// ```
    ///
    /// Work the policy cancels ends as cancelled work does (its ``ActionTask`` throws
    /// `CancellationError`, unless its `run` had started and returned anyway), and from then on every
    /// sync action its `run` dispatches through its context is dropped, even when `run` ignores
    /// cancellation: a stale response never reaches the state. Waits (debounce, throttle) are on the
    /// store's clock (`StoreOptions.clock`), so a test clock drives them in tests. A
    /// ``KeyedAsyncAction`` still shares its call with other dispatches of the same key. Ids are
    /// shared by a store and all its scopes.
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
        dispatchTarget.dispatchAsync(action, id: id, policy: policy)
    }

    /// Starts a graph as the one piece of work under `id`, with the same policies as async actions:
    /// a run the policy cancels ends with its unfinished nodes `.cancelled`, so its sync nodes (the
    /// place its responses reach the state) never apply, and from then on every sync action its
    /// cancelled nodes dispatch through their context is dropped, as a replaced async action's is.
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
        dispatchTarget.dispatchGraph(graph, id: id, policy: policy)
    }

    /// Cancels the work dispatched with `id` that has not finished, waiting or running. Once this
    /// returns, nothing that work dispatches reaches the state. Nothing happens if there is none.
    public func cancel(id: some Hashable & Sendable) {
        dispatchTarget.backend.cancelWork(id: WorkID(id))
    }
}
