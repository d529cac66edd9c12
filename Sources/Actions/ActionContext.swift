/// What an async action or a middleware gets from the store it runs in.
///
/// A context keeps the store's machinery alive but not the ``Store`` itself: when the store is
/// released, `state` still answers with the last committed state, and `dispatch` drops the action
/// and reports a ``StoreDiagnostic`` instead of crashing.
public struct ActionContext<State: Sendable>: ActionDispatcher, Sendable {
    /// The store, or the scope of a store, this context belongs to.
    let core: any StoreBackend<State>
    /// Closed when the work this context belongs to was cancelled (an async action dispatched with
    /// an id or under an owner, a graph's async node): its sync dispatches are then dropped. `nil`
    /// for other work.
    let gate: DispatchGate?

    /// The key of this attempt when it is an attempt of a durable async node, for a server to
    /// recognise a repeated request (send it, for example, in an `Idempotency-Key` header).
    ///
    /// Every attempt of one node of one durable run carries the same key, in this process and
    /// after a relaunch (see ``IdempotencyKey``); `nil` outside a durable run.
    public let idempotencyKey: IdempotencyKey?

    @usableFromInline
    init(core: StoreCore<State>) {
        self.core = core
        self.gate = nil
        self.idempotencyKey = nil
    }

    init(core: StoreCore<State>, gate: CancellationGate) {
        self.core = core
        self.gate = .cancellation(gate)
        self.idempotencyKey = nil
    }

    init(backend: any StoreBackend<State>, gate: DispatchGate? = nil, idempotencyKey: IdempotencyKey? = nil) {
        self.core = backend
        self.gate = gate
        self.idempotencyKey = idempotencyKey
    }

    /// The store's state at the moment of reading. Read it again after an `await`: it may have changed.
    public var state: State { core.currentState }

    /// Where this context's dispatches go: the same store (see ``ActionDispatcher`` for `dispatch`
    /// and `cancel(id:)`). In an async action dispatched with an id or under an owner, or a graph's
    /// async node, sync actions dispatched through it are dropped once that work (that node) was
    /// cancelled or replaced: a stale response never reaches the state.
    @_spi(OresReduxInternals)
    public var dispatchTarget: DispatchTarget<State> { DispatchTarget(backend: core, gate: gate) }

    /// Whether the store this context belongs to has been released; work that sees `true` can stop early.
    public var isStoreReleased: Bool { core.isClosed }
}
