/// Work that belongs to a screen: graphs and async actions dispatched here end when the owner ends.
///
/// A screen (a view model, a presented child feature) makes an owner and dispatches its work
/// under it; when the screen goes away it calls ``end()``, or simply releases the owner, and the
/// work it started ends with it, node by node as each node's ``OwnerEndPolicy`` says: cancelled (the
/// default), finished with its answer kept, or finished and applied as if the screen were still
/// there.
///
/// ```swift
/// let owner = store.makeOwner("Log-in screen")
/// let run = owner.dispatch(logInGraph)     // ends when the screen does
/// // the user closes the screen
/// owner.end()
/// ```
///
/// What it promises:
/// - When ``end()`` returns, nothing it cancelled is applied, now or later: no node, fallback or
///   dispatch of a cancelled async action reaches the reducer, and none is being reduced. What
///   outlives the owner applies in the usual order.
/// - Work dispatched after the owner ended is refused, never run silently: a graph's run comes back
///   with every node `.cancelled` (none ran), an async action's ``ActionTask`` throws
///   `CancellationError` without starting, and the store reports a ``StoreDiagnostic`` of kind
///   ``StoreDiagnostic/Kind/dispatchRefusedByOwner``.
/// - Durable runs belong to the app: a graph with durable nodes is refused here the same way.
/// - An owner made from a scope of an optional state (``ScopedStore/makeOwner(_:)`` on a
///   `ScopedStore<GameState?>`) also ends at the commit that makes that state `nil`, before any
///   later action is applied.
///
/// It is an ``ActionDispatcher``: code that takes one (`some ActionDispatcher<State>`, a query
/// client's `fetch`, `observe` or `mutate`) dispatches under the owner, and work dispatched by id
/// (`dispatch(_:id:policy:)`) is the owner's too, ending with it as well as by its policy.
///
/// Sync actions dispatched here are applied as the store applies them, whether or not the owner
/// has ended: they are not work that runs on. Thread-safe: every method may be called from any
/// thread or task, and from a subscriber or middleware.
public final class WorkOwner<State: Sendable>: ActionDispatcher, Sendable {
    let backend: any StoreBackend<State>
    let core: OwnerCore
    /// The root ``Store``, kept alive while the owner is.
    private let root: AnyObject & Sendable
    /// The store, when the owner's work sees the whole of it (not a scope).
    @usableFromInline let store: Store<State>?
    /// What ends the owner when its scope's optional state becomes `nil`; `nil` for other owners.
    private let presence = LockedValue<Subscription?>(nil)
    /// Where the owner's work goes: the store or its scope, as this owner's work; what a test
    /// store's owner starts, its tracker follows.
    @_spi(OresReduxInternals)
    public let dispatchTarget: DispatchTarget<State>

    convenience init(name: String, backend: any StoreBackend<State>, root: AnyObject & Sendable) {
        self.init(core: OwnerCore(name: name), backend: backend, root: root, tracker: nil)
    }

    /// An owner of `store`'s work whose dispatches the tracker `makeTracker` makes follows; it is
    /// given whether the owner has ended (a test store's owner).
    package convenience init(
        store: Store<State>, name: String,
        tracker makeTracker: (_ isEnded: @escaping @Sendable () -> Bool) -> any DispatchTracker<State>
    ) {
        let core = OwnerCore(name: name)
        self.init(core: core, backend: store.core, root: store, tracker: makeTracker { core.isEnded })
    }

    private init(
        core: OwnerCore, backend: any StoreBackend<State>, root: AnyObject & Sendable,
        tracker: (any DispatchTracker<State>)?
    ) {
        self.backend = backend
        self.core = core
        self.root = root
        self.store = root as? Store<State>
        self.dispatchTarget = DispatchTarget(backend: backend, owner: core, tracker: tracker)
    }

    deinit {
        presence.withLock { $0 }?.cancel()
        core.end()
    }

    /// The name the owner was made with, as diagnostics and test failures show it.
    public var name: String { core.name }

    /// The part of the store's state the owner's work sees, as last committed.
    public var state: State { backend.currentState }

    /// Whether ``end()`` was called (or the owner's optional state became `nil`).
    public var isEnded: Bool { core.isEnded }

    /// Ends the owner and the work it started, as each node's ``OwnerEndPolicy`` says. From now on
    /// the owner refuses new work. Releasing the owner ends it too; calling it again does nothing.
    /// Called on two threads at once, each call returns only once what follows holds.
    ///
    /// When it returns, nothing it cancelled is applied or being reduced: a sync node being applied
    /// at this moment completes first (its dependents that do not outlive the owner are cancelled),
    /// and no fallback of a node it cancelled reaches the reducer. It never waits for other
    /// threads' middleware or subscribers, nor for an async call to notice its cancellation.
    public func end() {
        presence.withLock { $0.take() }?.cancel()
        core.end()
    }

    /// Applies a sync action, as the store's `dispatch(_:)` does (ended or not).
    // Inlinable, straight into the store's own inlinable dispatch for an owner of a whole store, so
    // that it is specialized in the caller as `Store.dispatch` is; through the scope's existential
    // it is not (the Benchmarks' owners group pairs the two).
    @inlinable
    public func dispatch(_ action: some Action) {
        if let store { store.dispatch(action) } else { dispatchToScope(action) }
    }

    @usableFromInline
    func dispatchToScope(_ action: any Action) {
        backend.dispatch(action, admit: nil)
    }

    /// Starts running `graph` as the owner's work (see ``ActionDispatcher``'s `dispatch(_:)` for
    /// graphs). Refused when the owner has ended or the graph has durable nodes: the run comes
    /// back with every node `.cancelled`, and the store reports why.
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State> {
        dispatchTarget.dispatchGraph(graph)
    }

    /// Starts an async action as the owner's work. When the owner ends, the action gets task
    /// cancellation and what its `run` dispatches through its context from then on is dropped.
    /// Refused when the owner has ended: the returned task throws `CancellationError`, `run` is
    /// never called, and the store reports why.
    @discardableResult
    public func dispatch<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        dispatchTarget.dispatchAsync(action)
    }
}

extension Store {
    /// Makes an owner for work that belongs to a screen (see ``WorkOwner``).
    /// - Parameter name: what a person calls it ("Log-in screen"), for diagnostics and tests.
    public func makeOwner(_ name: String) -> WorkOwner<State> {
        WorkOwner(name: name, backend: core, root: self)
    }
}

extension ScopedStore {
    /// Makes an owner for work of the child feature this scope shows (see ``WorkOwner``).
    ///
    /// When this scope's state is optional (a presented child, `app.scope(\.game)` of a
    /// `GameState?`), the owner also ends at the commit that makes it `nil` (or at once if it is
    /// `nil` already), before the store applies any later action: the app writes no `cancel(id:)`.
    /// - Parameter name: what a person calls it ("Game"), for diagnostics and tests.
    public func makeOwner(_ name: String) -> WorkOwner<State> {
        let owner = WorkOwner(name: name, backend: backend, root: root)
        guard State.self is any PresentedState.Type else { return owner }
        let core = owner.core
        let subscription = backend.subscribe(
            receive: { state in
                if (state as? any PresentedState)?.isAbsent == true { core.end() }
            }, onStoreClosed: nil)
        owner.keepPresence(subscription)
        return owner
    }
}

extension WorkOwner {
    /// Keeps the subscription that ends the owner when its optional state becomes `nil`.
    fileprivate func keepPresence(_ subscription: Subscription) {
        if core.isEnded {
            subscription.cancel()
        } else {
            presence.withLock { $0 = subscription }
        }
    }
}

/// An optional state, seen without its wrapped type: whether a presented child is gone.
protocol PresentedState {
    var isAbsent: Bool { get }
}

extension Optional: PresentedState {
    var isAbsent: Bool { self == nil }
}
