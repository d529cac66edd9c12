/// What feature code needs from a store: read the state, dispatch sync actions, async actions and
/// graphs, and subscribe. Both ``Store`` and `TestStore` conform, so a view model written once
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
/// Its dispatch methods come from ``ActionDispatcher``. Every member keeps the meaning it has on
/// ``Store``. On a `TestStore` the work dispatched through
/// this protocol is tracked like the test store's own dispatches: sync actions are recorded for
/// `receive`, and async actions and graph runs count as in flight until they end, so `receive` and
/// `finish` wait for them (and name them when they time out).
public protocol StoreProtocol<State>: ActionDispatcher, AnyObject {
    /// The current state: the last committed one.
    var state: State { get }

    /// Calls `observer` at once with the current state, then after every committed action.
    func subscribe(_ observer: @escaping @Sendable (State) -> Void) -> Subscription

    /// Calls `observer` at once with the selected value, then whenever a committed action changes it.
    func subscribe<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @Sendable (Value) -> Void
    ) -> Subscription

    /// The current state, then every committed state, as an async sequence.
    func states() -> AsyncStream<State>
}

/// The app's store is a ``StoreProtocol`` as it is.
extension Store: StoreProtocol {}
