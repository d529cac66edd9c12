/// The one place an app's state lives, and the only way to change it.
///
/// A store holds a state value, a ``Reducer`` that applies sync actions to it, and ``Middleware``
/// that sees each action first. Sync actions change the state; async actions (``AsyncAction``) run
/// work and return typed responses; an ``ActionGraph`` orders both by declared dependencies.
///
/// ```swift
/// let store = Store(initialState: 0, reducer: .on(Increment.self) { count, action in
///     count += action.amount
/// })
/// store.dispatch(Increment(amount: 2))
/// print(store.state)   // 2
/// ```
///
/// ## Threads
/// Any thread or task may dispatch. Sync actions are applied one at a time: middleware, reducer and
/// subscribers run on the thread that dispatched (or, for graph nodes, the thread that finished
/// their last prerequisite). `dispatch` returns once its action is applied, with one exception: called
/// from inside a subscriber or middleware of the same store, it queues the action to be applied right
/// after the current one, before any work other threads or runs handed over meanwhile, and the
/// outermost `dispatch` returns only when everything queued during it is applied. Subscribers
/// therefore see states in commit order, one at a time. Every order the store promises, and what it
/// does not order, is listed in the Store guide's "Order you can rely on".
///
/// Releasing the store cancels its async actions and graph runs in flight and ends its `states()`
/// streams; a context still held by such work may read the last state but its dispatches are dropped
/// with a ``StoreDiagnostic``.
public final class Store<State: Sendable>: Sendable {
    @usableFromInline
    let core: StoreCore<State>
    /// What `dispatch(_:)` answers for a graph with no nodes that nobody watches: one run,
    /// born finished, for every such dispatch. Such runs do not differ in anything but identity
    /// (no nodes, the same report, nothing to cancel or wait for), and no API promises distinct
    /// runs, so one object saves each dispatch an allocation and its metadata lookups. Held here,
    /// not by the core: the run holds the core, so the core holding it would be a cycle.
    private let bornFinished: GraphRun<State>

    /// Creates a store.
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: applies each sync action.
    ///   - middleware: sees each sync action before the reducer, in this order.
    public convenience init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = []) {
        self.init(initialState: initialState, reducer: reducer, middleware: middleware, options: StoreOptions())
    }

    /// Creates a store with options: the clock that paces graph timeouts, back-off and delays, and
    /// where diagnostics go.
    public init(
        initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = [],
        options: StoreOptions
    ) {
        core = StoreCore(initialState: initialState, reducer: reducer, middleware: middleware, options: options)
        bornFinished = core.bornFinishedRun()
    }

    deinit {
        core.close()
    }

    /// The current state: the last committed one. Never waits for subscribers.
    @inlinable
    public var state: State { core.currentState }

    /// Where this store's dispatch methods send their actions: this store (see ``ActionDispatcher``
    /// for `dispatch` and `cancel(id:)`).
    @_spi(OresReduxInternals)
    public var dispatchTarget: DispatchTarget<State> { DispatchTarget(backend: core) }

    /// Applies a sync action: middleware, then reducer, then subscribers (see
    /// `ActionDispatcher`'s `dispatch(_:)` for when it returns).
    // The one dispatch method not left to ActionDispatcher: a sync dispatch on a Store is the
    // store's hot path, and here it is specialized for the state and inlined into the caller.
    // Through the target, the caller would build and destroy a generic DispatchTarget, and the
    // store's pipeline would run unspecialized, looking up generic metadata at every step.
    @inlinable
    public func dispatch(_ action: some Action) {
        core.dispatch(action)
    }

    /// Starts running a graph and returns the run (see `ActionDispatcher`'s `dispatch(_:)` for
    /// graphs: the same call, through the dispatcher's target).
    // Declared on the store so that a run starts in the store's core, without the dispatcher's
    // target and backend between them. The core makes itself the backend: here, unspecialized,
    // that would look up `StoreCore<State>`'s metadata on every dispatch.
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State> {
        core.dispatchGraph(graph, orBornFinished: bornFinished)
    }

    /// Calls `observer` at once with the current state, then after every committed action.
    ///
    /// Calls are made one at a time, in commit order, on the thread that applied the action. The
    /// observer may dispatch: the action is queued and applied after the current one.
    /// - Returns: the subscription; it ends on `cancel()` or when released.
    public func subscribe(_ observer: @escaping @Sendable (State) -> Void) -> Subscription {
        core.subscribe(receive: observer)
    }

    /// Calls `observer` at once with the selected value, then whenever a committed action changes it.
    ///
    /// `select` runs after every committed action; `observer` only when its result differs (`!=`)
    /// from the last one it was given.
    /// - Returns: the subscription; it ends on `cancel()` or when released.
    @inlinable
    public func subscribe<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @Sendable (Value) -> Void
    ) -> Subscription {
        // Inlinable so that `select` and the `!=` are specialized in the caller's module.
        let last = SelectedValue<Value>()
        return core.subscribe(receive: { state in
            let value = select(state)
            if last.update(value) { observer(value) }
        })
    }

    /// The current state, then every committed state, as an async sequence.
    ///
    /// Nothing is dropped (the buffer is unbounded). The stream ends when the store is released;
    /// the subscription behind it ends when the consumer stops iterating.
    public func states() -> AsyncStream<State> {
        states(bufferingPolicy: .unbounded)
    }

    /// The current state, then every committed state, with a buffering policy of your choice
    /// (`.bufferingNewest(1)` to render only the latest).
    public func states(bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy) -> AsyncStream<State> {
        stateStream(of: core, bufferingPolicy: bufferingPolicy)
    }
}

/// A `select` subscriber's last value.
@usableFromInline
// Why this is safe to share: touched only from that subscriber's calls, which the pipeline's one
// applier makes one at a time; the applier changes hands under the store's state lock, which orders
// one applier's calls before the next one's, so never by two threads at once. `@exclusivity(unchecked)`: for
// the same reason no two accesses overlap, and the dynamic check cost more than the `!=` itself.
final class SelectedValue<Value: Equatable>: @unchecked Sendable {
    @usableFromInline @exclusivity(unchecked) var last: Value?

    @usableFromInline
    init() {}

    /// Stores `value` and says whether it differs from the previous one (always true the first time).
    @inlinable
    func update(_ value: Value) -> Bool {
        if let last, last == value { return false }
        last = value
        return true
    }
}
