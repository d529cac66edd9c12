import Synchronization

/// The store's machinery: its two locks, the state, the subscriber list and the pending queue.
///
/// ## Locks
/// - `pipelineLock` (recursive) is held by the one thread that is applying sync actions: middleware,
///   reducer and subscribers all run under it, so actions are applied one at a time and every
///   subscriber sees states in commit order, never two at once. A dispatch made while it is held *by
///   the same thread* (from a subscriber or a middleware) finds `depth > 0` and is queued in
///   `pending` instead; the outermost dispatch drains the queue, FIFO, before it returns.
/// - `stateLock` guards `state` and `subscribers` for the short moments they are read or changed, so
///   reading `state` from another thread never waits for subscribers to finish.
///
/// Work in flight (tasks, runs, shared calls) is tracked under `registryLock` so that releasing the
/// ``Store`` can cancel it.
@usableFromInline
// Why this is safe to share: every `var` below is guarded by the lock named beside it; `let`s are immutable or
// themselves thread-safe. `@exclusivity(unchecked)`: those locks already serialize every access,
// and the dynamic exclusivity check cost ~400 instructions per dispatch (measured with callgrind).
final class StoreCore<State: Sendable>: @unchecked Sendable {

    @usableFromInline let pipelineLock = Lock(recursive: true)
    @usableFromInline let stateLock = Lock(recursive: true)
    let registryLock = Lock()

    @usableFromInline @exclusivity(unchecked) var state: State                                        // stateLock
    @usableFromInline @exclusivity(unchecked) var subscribers: ContiguousArray<SubscriberBox<State>> = [] // stateLock
    /// `subscribers.count`, readable without the generic array's metadata on the hot path.
    @usableFromInline @exclusivity(unchecked) var subscriberCount = 0                                 // stateLock
    @usableFromInline @exclusivity(unchecked) var depth = 0                                           // pipelineLock
    @usableFromInline @exclusivity(unchecked) var isReducing = false                                  // pipelineLock
    @usableFromInline @exclusivity(unchecked) var pending = FIFO<PendingWork>()                       // pipelineLock

    @usableFromInline let reducer: Reducer<State>
    @usableFromInline let middleware: [Middleware<State>]
    @usableFromInline let hasMiddleware: Bool
    let options: StoreOptions
    @usableFromInline let closed = Atomic<Bool>(false)

    private var nextWorkID: UInt64 = 0                                        // registryLock
    private var inFlight: [UInt64: @Sendable () -> Void] = [:]               // registryLock: cancels
    private var sharedCalls: [SharedCallKey: any CancellableWork] = [:]      // registryLock
    let keyedTypes = LockedValue<[ObjectIdentifier: Bool]>([:])

    init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>], options: StoreOptions) {
        self.state = initialState
        self.reducer = reducer
        self.middleware = middleware
        self.hasMiddleware = !middleware.isEmpty
        self.options = options
    }

    @inlinable
    var isClosed: Bool { closed.load(ordering: .relaxed) }

    @inlinable
    var currentState: State {
        stateLock.lock()
        defer { stateLock.unlock() }
        return state
    }

    // MARK: Sync dispatch

    @inlinable
    func dispatch(_ action: some Action) {
        pipelineLock.lock()
        if depth > 0 {
            enqueueNested(.action(action))
            pipelineLock.unlock()
            return
        }
        if isClosed {
            pipelineLock.unlock()
            reportDispatchAfterRelease(action)
            return
        }
        depth = 1
        apply(action)
        if !pending.isEmpty { drainPending() }
        depth = 0
        pipelineLock.unlock()
    }

    /// Queues work from a subscriber or middleware (the pipeline lock is held by this thread).
    @usableFromInline
    func enqueueNested(_ work: PendingWork) {
        if isReducing {
            pipelineLock.unlock()
            preconditionFailure("""
                OresRedux: a reducer dispatched \(work). Reducers must be pure: they change the state \
                they are given and dispatch nothing. Dispatch from a middleware, a subscriber, or an \
                async action instead.
                """)
        }
        pending.append(work)
    }

    /// Hands a run's ready sync nodes to the pipeline: applied now, or after the current action when
    /// this thread is already inside the pipeline.
    func schedule(_ run: any ReadySyncWork) {
        pipelineLock.lock()
        if depth > 0 {
            enqueueNested(.run(run))
            pipelineLock.unlock()
            return
        }
        depth = 1
        pending.append(.run(run))
        drainPending()
        depth = 0
        pipelineLock.unlock()
    }

    /// Applies everything queued, FIFO, including what the work applied here queues in turn.
    @usableFromInline
    func drainPending() {
        while let work = pending.popFirst() {
            switch work {
            case .action(let action):
                apply(action)
            case .run(let run):
                // A run applies its ready sync nodes until it has none left, or until one of them
                // queued something (then it goes to the back of the line, after that).
                if run.applyReadySyncNodes() {
                    pending.append(.run(run))
                }
            }
        }
    }

    /// Middleware, then reducer, then subscribers. The pipeline lock is held.
    @inlinable
    func apply(_ action: any Action) {
        if !hasMiddleware {
            commit(action)
        } else {
            runMiddleware(from: 0, action, context: ActionContext(core: self))
        }
    }

    @usableFromInline
    func runMiddleware(from index: Int, _ action: any Action, context: ActionContext<State>) {
        if index == middleware.count {
            commit(action)
            return
        }
        middleware[index].body(action, context) { next in
            self.runMiddleware(from: index + 1, next, context: context)
        }
    }

    @inlinable
    func commit(_ action: any Action) {
        stateLock.lock()
        isReducing = true
        reducer.reduce(&state, action)
        isReducing = false
        if subscriberCount == 0 {
            stateLock.unlock()
            return
        }
        let receivers = subscribers
        let committed = state
        stateLock.unlock()
        for receiver in receivers where receiver.isActive {
            receiver.receive(committed)
        }
    }

    @usableFromInline
    func reportDispatchAfterRelease(_ action: any Action) {
        options.onDiagnostic(StoreDiagnostic(
            kind: .dispatchAfterRelease,
            message: "\(type(of: action)) was dispatched after its store was released; it was dropped."))
    }

    // MARK: Subscribers

    @usableFromInline
    func subscribe(receive: @escaping (State) -> Void,
                   onStoreClosed: (@Sendable () -> Void)? = nil) -> Subscription {
        let box = SubscriberBox(receive: receive, onStoreClosed: onStoreClosed)
        // Holding the pipeline lock orders the first call before any later commit's call and keeps
        // it from running beside one.
        pipelineLock.lock()
        defer { pipelineLock.unlock() }
        let current: State = stateLock.withLock {
            box.index = subscribers.count
            subscribers.append(box)
            subscriberCount = subscribers.count
            return state
        }
        // The first call is a subscriber call like any other: what it dispatches is queued and
        // applied after it returns, never inside it.
        let outermost = depth == 0
        if outermost { depth = 1 }
        box.receive(current)
        if outermost {
            if !pending.isEmpty { drainPending() }
            depth = 0
        }
        return Subscription { [weak self] in self?.unsubscribe(box) }
    }

    /// O(1): the last subscriber takes the removed one's place.
    func unsubscribe(_ box: SubscriberBox<State>) {
        box.active.store(false, ordering: .releasing)
        stateLock.withLock {
            let index = box.index
            guard index >= 0 else { return }
            let last = subscribers.removeLast()
            if last !== box {
                subscribers[index] = last
                last.index = index
            }
            subscriberCount = subscribers.count
            box.index = -1
        }
    }

    // MARK: Work in flight

    /// Registers work so that closing the store cancels it; `nil` when the store is already closed.
    func register(cancel: @escaping @Sendable () -> Void) -> UInt64? {
        registryLock.withLock {
            guard !isClosed else { return nil }
            nextWorkID &+= 1
            inFlight[nextWorkID] = cancel
            return nextWorkID
        }
    }

    func unregister(_ id: UInt64) {
        _ = registryLock.withLock { inFlight.removeValue(forKey: id) }
    }

    /// The call in flight for `key`, or `start()`'s new one registered under it.
    func sharedCall<Call: CancellableWork>(for key: SharedCallKey, join: (Call) -> Bool,
                                            start: () -> Call) -> (call: Call, isNew: Bool)? {
        registryLock.withLock {
            guard !isClosed else { return nil }
            if let existing = sharedCalls[key] as? Call, join(existing) {
                return (existing, false)
            }
            let call = start()
            sharedCalls[key] = call
            return (call, true)
        }
    }

    func removeSharedCall(_ key: SharedCallKey, ifItIs call: AnyObject) {
        registryLock.withLock {
            if let current = sharedCalls[key], current === call {
                sharedCalls.removeValue(forKey: key)
            }
        }
    }

    /// Called once, when the ``Store`` is released: cancels everything in flight and ends `states()` streams.
    func close() {
        let (cancels, calls) = registryLock.withLock {
            closed.store(true, ordering: .releasing)
            defer {
                inFlight.removeAll()
                sharedCalls.removeAll()
            }
            return (Array(inFlight.values), Array(sharedCalls.values))
        }
        for cancel in cancels { cancel() }
        for call in calls { call.cancel() }
        let boxes = stateLock.withLock { subscribers }
        for box in boxes { box.onStoreClosed?() }
    }
}

/// Work queued behind the action being applied. Not generic, so queueing needs no type metadata.
@usableFromInline
enum PendingWork {
    case action(any Action)
    case run(any ReadySyncWork)
}

/// A graph run with sync nodes ready for the pipeline.
@usableFromInline
protocol ReadySyncWork: AnyObject {
    /// Applies ready sync work (the pipeline lock is held); `true` if some is left for later.
    func applyReadySyncNodes() -> Bool
}

/// Anything in flight that closing the store cancels.
protocol CancellableWork: AnyObject, Sendable {
    func cancel()
}

/// "The same call": the action type and its key.
// Why this is safe to share: `key` wraps a `KeyedAsyncAction.Key`, which is required to be `Sendable`;
// `AnyHashable` itself is not marked so.
struct SharedCallKey: Hashable, @unchecked Sendable {
    let actionType: ObjectIdentifier
    let key: AnyHashable
}
