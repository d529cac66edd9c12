/// What an async action or a middleware gets from the store it runs in.
///
/// A context keeps the store's machinery alive but not the ``Store`` itself: when the store is
/// released, `state` still answers with the last committed state, and `dispatch` drops the action
/// and reports a ``StoreDiagnostic`` instead of crashing.
public struct ActionContext<State: Sendable>: Sendable {
    /// The store, or the scope of a store, this context belongs to.
    let core: any StoreBackend<State>
    /// Closed when the work this context belongs to was cancelled by a later dispatch with the same
    /// id (or by `cancel(id:)`): its sync dispatches are then dropped. `nil` for other work.
    let gate: DispatchGate?

    @usableFromInline
    init(core: StoreCore<State>) {
        self.core = core
        self.gate = nil
    }

    init(core: StoreCore<State>, gate: DispatchGate) {
        self.core = core
        self.gate = gate
    }

    init(backend: any StoreBackend<State>, gate: DispatchGate? = nil) {
        self.core = backend
        self.gate = gate
    }

    /// The store's state at the moment of reading. Read it again after an `await`: it may have changed.
    public var state: State { core.currentState }

    /// Dispatches a sync action into the same store.
    ///
    /// From inside a middleware or a subscriber it is queued and applied right after the current
    /// action; from anywhere else it returns once the action is applied (see ``Store``).
    ///
    /// In an async action dispatched with an id (`Store.dispatch(_:id:policy:)`), the action is
    /// dropped once that work was cancelled or replaced: a stale response never reaches the state.
    public func dispatch(_ action: some Action) {
        if let gate {
            core.dispatch(action, admit: { gate.isOpen })
        } else {
            core.dispatch(action, admit: nil)
        }
    }

    /// Starts an async action in the same store (see `Store.dispatch(_:)` for async actions).
    @discardableResult
    public func dispatch<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        core.dispatchAsync(action)
    }

    /// Starts an action graph in the same store (see `Store.dispatch(_:)` for graphs).
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State> {
        core.dispatchGraph(graph)
    }

    /// Whether the store this context belongs to has been released; work that sees `true` can stop early.
    public var isStoreReleased: Bool { core.isClosed }
}
