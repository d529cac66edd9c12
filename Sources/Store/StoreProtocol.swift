/// What feature code needs from a store: read the state, dispatch sync actions, async actions and
/// graphs, and subscribe. Both ``Store`` and ``TestStore`` conform, so a view model written once
/// against `some StoreProtocol<AppState>` runs on the app's store and is tested with a test store.
///
/// ```swift
/// final class HomeModel<S: StoreProtocol<AppState>> {
///     let store: S
///     init(store: S) { self.store = store }
///     func appear() { store.dispatch(homeGraph().graph) }
///     var title: String { store.state.profile?.name ?? "Loading…" }
/// }
///
/// let live = HomeModel(store: Store(initialState: AppState(), reducer: appReducer))
/// let tested = HomeModel(store: TestStore(initialState: AppState(), reducer: appReducer))
/// ```
///
/// Every member keeps the meaning it has on ``Store``. On a ``TestStore`` the work dispatched through
/// this protocol is tracked like the test store's own dispatches: sync actions are recorded for
/// `receive`, and async actions and graph runs count as in flight until they end, so `receive` and
/// `finish` wait for them (and name them when they time out).
public protocol StoreProtocol<State>: AnyObject, Sendable {
    /// The state the store holds.
    associatedtype State: Sendable

    /// The current state: the last committed one.
    var state: State { get }

    /// Applies a sync action (middleware, reducer, subscribers) before it returns; see
    /// `Store.dispatch(_:)`.
    func dispatch(_ action: some Action)

    /// Starts an async action and returns a handle on its response.
    @discardableResult
    func dispatch<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State

    /// Starts running a graph and returns the run.
    @discardableResult
    func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State>

    /// Calls `observer` at once with the current state, then after every committed action.
    func subscribe(_ observer: @escaping @Sendable (State) -> Void) -> Subscription

    /// Calls `observer` at once with the selected value, then whenever a committed action changes it.
    func subscribe<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @Sendable (Value) -> Void
    ) -> Subscription

    /// The current state, then every committed state, as an async sequence.
    func states() -> AsyncStream<State>

    /// Starts an async action as the one piece of work under `id`; see `Store.dispatch(_:id:policy:)`.
    @discardableResult
    func dispatch<A: AsyncAction>(
        _ action: A, id: some Hashable & Sendable, policy: InFlightPolicy
    ) -> ActionTask<A.Response> where A.State == State

    /// Starts a graph as the one piece of work under `id`; see `Store.dispatch(_:id:policy:)`.
    @discardableResult
    func dispatch(_ graph: ActionGraph<State>, id: some Hashable & Sendable, policy: InFlightPolicy) -> GraphRun<State>

    /// Cancels the work dispatched with `id`; see `Store.cancel(id:)`.
    func cancel(id: some Hashable & Sendable)
}

extension StoreProtocol {
    /// Starts an async action under `id`, cancelling the earlier work under it (take latest).
    @discardableResult
    public func dispatch<A: AsyncAction>(_ action: A, id: some Hashable & Sendable) -> ActionTask<A.Response>
    where A.State == State {
        dispatch(action, id: id, policy: .takeLatest)
    }

    /// Starts a graph under `id`, cancelling the earlier work under it (take latest).
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>, id: some Hashable & Sendable) -> GraphRun<State> {
        dispatch(graph, id: id, policy: .takeLatest)
    }
}

/// The app's store is a ``StoreProtocol`` as it is.
extension Store: StoreProtocol {}
