/// A store seen through a part of its state: what a child feature (a game screen inside an app) is
/// written against, so that it knows only its own state.
///
/// Make one with `Store.scope(_:)`. It has no state of its own: ``state`` reads the part of the root
/// store's state its key path names, and everything it dispatches goes to the root store, through
/// its one pipeline (middleware, reducer, subscribers), in one order of commits. The root reducer
/// handles the child's actions, usually by running the child's reducer on the same key path.
///
/// ```swift
/// let game = appStore.scope(\.game)            // ScopedStore<GameState>
/// game.dispatch(FlipCard(index: 3))            // applied by the app's reducer
/// game.dispatch(gameGraph())                   // an ActionGraph<GameState>
/// ```
///
/// Async actions and graphs dispatched here have the child's state type: their context reads the
/// child state, and a graph's state-built nodes see the child state. They are the root store's work
/// like any other: take-latest ids are shared with the root store, releasing the root store cancels
/// them, and they use the root store's clock and options. A scoped store keeps its root store alive.
public final class ScopedStore<State: Sendable>: Sendable {
    let backend: any StoreBackend<State>
    /// The root ``Store``, kept alive while a scope of it is in use.
    let root: AnyObject & Sendable

    init(backend: any StoreBackend<State>, root: AnyObject & Sendable) {
        self.backend = backend
        self.root = root
    }

    /// The part of the root store's state this scope sees, as last committed.
    public var state: State { backend.currentState }

    /// Where this scope's dispatches go: the root store, through its one pipeline (see
    /// ``ActionDispatcher`` for `dispatch` and `cancel(id:)`). Async actions and graphs dispatched
    /// here have this scope's state type; ids are shared with the root store and its other scopes.
    @_spi(OresReduxInternals)
    public var dispatchTarget: DispatchTarget<State> { DispatchTarget(backend: backend) }

    /// Calls `observer` at once with this scope's state, then after every action the root store
    /// commits (whether or not it changed this part; use the `select` form to skip repeats).
    public func subscribe(_ observer: @escaping @Sendable (State) -> Void) -> Subscription {
        backend.subscribe(receive: observer, onStoreClosed: nil)
    }

    /// Calls `observer` at once with the selected value, then whenever a committed action changes it.
    public func subscribe<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @Sendable (Value) -> Void
    ) -> Subscription {
        let last = SelectedValue<Value>()
        return backend.subscribe(
            receive: { state in
                let value = select(state)
                if last.update(value) { observer(value) }
            }, onStoreClosed: nil)
    }

    /// This scope's state now, then after every action the root store commits, as an async sequence.
    public func states() -> AsyncStream<State> {
        states(bufferingPolicy: .unbounded)
    }

    /// The same, with a buffering policy of your choice.
    public func states(bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy) -> AsyncStream<State> {
        stateStream(of: backend, bufferingPolicy: bufferingPolicy)
    }

    /// A scope of this scope: a part of its state.
    public func scope<Child: Sendable>(_ path: WritableKeyPath<State, Child> & Sendable) -> ScopedStore<Child> {
        ScopedStore<Child>(backend: backend.scope(path), root: root)
    }
}

/// A scoped store is written against like the app's store.
extension ScopedStore: StoreProtocol {}

extension Store {
    /// A view of this store on a part of its state, for a child feature written against its own
    /// state (see ``ScopedStore``).
    /// - Parameter path: where the child's state lives in this store's state.
    public func scope<Child: Sendable>(_ path: WritableKeyPath<State, Child> & Sendable) -> ScopedStore<Child> {
        ScopedStore<Child>(backend: core.scope(path), root: self)
    }
}

/// The state stream of `states()`, for a store's backend or a scope's: the backend's state now, then
/// after every commit, ending when the store is released.
func stateStream<State: Sendable>(
    of backend: any StoreBackend<State>, bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy
) -> AsyncStream<State> {
    let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: bufferingPolicy)
    let subscription = backend.subscribe(
        receive: { continuation.yield($0) },
        onStoreClosed: { continuation.finish() })
    continuation.onTermination = { _ in subscription.cancel() }
    if backend.isClosed { continuation.finish() }
    return stream
}
