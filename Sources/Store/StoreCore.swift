/// The store's machinery: its locks, the state, the subscribers, and the one pipeline every sync
/// action (dispatched, or a graph's node or fallback) goes through: middleware, reducer, subscribers.
///
/// ## Locks
/// - `pipelineLock` (recursive) is held by the one thread that is applying sync actions: middleware,
///   reducer and subscribers run under it, so actions are applied one at a time and every subscriber
///   sees states in commit order, never two at once. A dispatch made while it is held *by the same
///   thread* (from a subscriber or a middleware) finds `isApplying` set and is queued in `queue`; the
///   outermost dispatch applies the queue, FIFO, before it returns. A graph run with ready sync nodes
///   waits in the same queue (see `GraphRun.applySyncItems`).
/// - `stateLock` guards `state` and `subscribers` for the short moments they are read or changed,
///   and the reducer's in-place update (reducing a copy would copy the state's storage on every
///   action). Reading `state` from another thread never waits for subscribers or middleware.
/// - `registryLock` guards the work in flight (tasks, runs, shared calls) that releasing the
///   ``Store`` cancels.
///
/// Lock order: pipeline, then state, then a run's lock. A run never takes the pipeline or state
/// lock while holding its own.
///
/// The dispatch path (`dispatch`, `apply`, `commit`) is `@inlinable`, so that an app's
/// `Store<AppState>` is specialized in the app's module: unspecialized, generic metadata lookups
/// cost several times the reducer itself (see the Benchmarks' dispatch figures).
@usableFromInline
// Why this is safe to share: every `var` below is read and written only under the lock named beside
// it; the `let`s are immutable or thread-safe themselves. `@exclusivity(unchecked)`: those locks
// already serialize every access, and the dynamic exclusivity checks were most of a dispatch's cost.
final class StoreCore<State: Sendable>: @unchecked Sendable {
    @usableFromInline let pipelineLock = Lock(recursive: true)
    @usableFromInline let stateLock = Lock(recursive: true)
    private let registryLock = Lock()

    @usableFromInline @exclusivity(unchecked) var committed: CommittedState<State>  // stateLock
    @usableFromInline @exclusivity(unchecked) var subscribers: [SubscriberBox<State>] = []  // stateLock
    @usableFromInline @exclusivity(unchecked) var isApplying = false  // pipelineLock
    @usableFromInline @exclusivity(unchecked) var queue = FIFO<QueuedWork>()  // pipelineLock
    @usableFromInline @exclusivity(unchecked) var isClosedForDispatch = false  // pipelineLock
    /// Events were recorded, or runs hold waiters, while this thread applied actions: deliver and
    /// resume them when it leaves.
    @usableFromInline @exclusivity(unchecked) var workAwaitsPipelineExit = false  // pipelineLock
    /// Runs that finished nodes inside the pipeline and hold those nodes' waiters until it is left
    /// (see `resumeAtPipelineExit(_:)`).
    @exclusivity(unchecked) var runsAwaitingPipelineExit: [any PipelineRun] = []  // pipelineLock

    @usableFromInline let reducer: Reducer<State>
    @usableFromInline let middleware: [Middleware<State>]
    let options: StoreOptions
    /// Time since the store was created, on its clock: what runs measure their times against, so
    /// that a run reads the clock without a stopwatch of its own.
    let sinceCreation: @Sendable () -> Duration
    /// The work dispatched with an id (take-latest, debounce, throttle).
    let latest: LatestWork
    /// Event observers, and the queue that delivers events to them (see `StoreEvent`).
    let events: EventHub

    private var closed = false  // registryLock
    private var nextWorkID: UInt64 = 0  // registryLock
    private var inFlight: [UInt64: InFlightWork] = [:]  // registryLock
    private var sharedCalls: [SharedCallKey: any CancellableWork] = [:]  // registryLock
    /// How many event observers the store has: read with a registration, under the same lock, so an
    /// unobserved run or async action pays no second lock to learn it (see `StoreEvent`).
    private var eventObservers = 0  // registryLock

    init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>], options: StoreOptions) {
        self.committed = CommittedState(value: initialState)
        self.reducer = reducer
        self.middleware = middleware
        self.options = options
        self.sinceCreation = stopwatch(on: options.clock)
        self.latest = LatestWork(clock: options.clock)
        self.events = EventHub(permanent: options.onEvent)
        self.eventObservers = options.onEvent == nil ? 0 : 1
    }

    /// Whether the ``Store`` has been released.
    var isClosed: Bool { registryLock.withLock { closed } }

    /// The last committed state.
    @inlinable
    var currentState: State {
        stateLock.lock()
        defer { stateLock.unlock() }
        return committed.value
    }

    // MARK: The pipeline

    /// Applies a sync action, or queues it when this thread is already applying one (a subscriber or
    /// middleware dispatched); the outermost call returns once everything queued during it is applied.
    @inlinable
    func dispatch(_ action: some Action) {
        dispatch(action, admit: nil)
    }

    /// `dispatch(_:)`, with a check made right before the reducer (under the state lock): the action
    /// is dropped when `admit` says no. Work dispatched with an id uses it to drop what it dispatches
    /// once it was cancelled.
    @inlinable
    func dispatch(_ action: any Action, admit: (@Sendable () -> Bool)?) {
        if let context = PureCall.current {
            reportImpureDispatch(action, from: context)
            return
        }
        pipelineLock.lock()
        if isClosedForDispatch {
            pipelineLock.unlock()
            report(
                .dispatchAfterRelease,
                "\(type(of: action)) was dispatched after its store was released; it was dropped.")
            return
        }
        if isApplying {
            queue.append(.action(action, admit: admit))
        } else {
            isApplying = true
            apply(action, admit: admit)
            if !queue.isEmpty { applyQueue() }
            isApplying = false
            if workAwaitsPipelineExit { return leavePipeline() }
        }
        pipelineLock.unlock()
    }

    @usableFromInline
    func reportImpureDispatch(_ action: any Action, from context: PureCall.Context) {
        report(
            .dispatchFromReducer,
            """
            \(type(of: action)) was dispatched from \(context); it was dropped. Reducers and a graph's \
            make and fallback closures must be pure: dispatch from a middleware, a subscriber or an \
            async action instead.
            """)
    }

    /// Puts a run with ready sync nodes in the pipeline: applied now, or after the current action
    /// when this thread is already applying one. The run's state machine asks for this once per
    /// stretch of ready work, and the run leaves the queue only when its machine says it is idle.
    func schedule(_ run: any PipelineRun) {
        pipelineLock.lock()
        queue.append(.run(run))
        if !isApplying {
            isApplying = true
            applyQueue()
            isApplying = false
            if workAwaitsPipelineExit { return leavePipeline() }
        }
        pipelineLock.unlock()
    }

    /// Whether work is queued behind the current action. Called by a run inside the pipeline.
    var hasQueuedWork: Bool { !queue.isEmpty }

    /// Puts a run that yielded back at the end of the queue. Called by the run inside the pipeline.
    func requeue(_ run: any PipelineRun) {
        queue.append(.run(run))
    }

    /// Applies everything queued, FIFO, including what the work applied here queues in turn.
    @usableFromInline
    func applyQueue() {
        while let work = queue.popFirst() {
            switch work {
            case .action(let action, let admit): apply(action, admit: admit)
            case .run(let run): run.applySyncItems()
            }
        }
    }

    /// Middleware, then reducer, then subscribers; the pipeline lock is held.
    ///
    /// - Parameter admit: asked (under the state lock, right before the reducer) whether the action
    ///   may still be applied; a graph's fallback is refused once its run was cancelled.
    @inlinable
    func apply(_ action: any Action, admit: (@Sendable () -> Bool)?) {
        if let admit, !admit() { return }
        if middleware.isEmpty {
            commit(action, admit: admit)
        } else {
            runMiddleware(from: 0, action, context: ActionContext(core: self), admit: admit)
        }
    }

    @usableFromInline
    func runMiddleware(
        from index: Int, _ action: any Action, context: ActionContext<State>,
        admit: (@Sendable () -> Bool)?
    ) {
        if index == middleware.count {
            commit(action, admit: admit)
            return
        }
        middleware[index].body(action, context) { next in
            self.runMiddleware(from: index + 1, next, context: context, admit: admit)
        }
    }

    @inlinable
    func commit(_ action: any Action, admit: (@Sendable () -> Bool)?) {
        stateLock.lock()
        if let admit, !admit() {
            stateLock.unlock()
            return
        }
        PureCall.run(.reducer) { reducer(&committed.value, action) }
        committed.count += 1
        if subscribers.isEmpty {
            stateLock.unlock()
            return
        }
        let receivers = subscribers
        let newState = committed.value
        stateLock.unlock()
        for receiver in receivers { receiver.receive(newState) }
    }

    // MARK: Subscribers

    @usableFromInline
    func subscribe(
        receive: @escaping @Sendable (State) -> Void,
        onStoreClosed: (@Sendable () -> Void)? = nil
    ) -> Subscription {
        let box = SubscriberBox(receive: receive, onStoreClosed: onStoreClosed)
        let subscription = Subscription { [weak self, box] in
            self?.unsubscribe(box)
        }
        box.subscription = subscription
        // Holding the pipeline lock orders the first call before any later commit's call and keeps
        // it from running beside one.
        pipelineLock.lock()
        if isClosedForDispatch {
            pipelineLock.unlock()
            subscription.cancel()
            onStoreClosed?()
            return subscription
        }
        let current: State = stateLock.withLock {
            box.index = subscribers.count
            subscribers.append(box)
            return committed.value
        }
        // The first call is a subscriber call like any other: what it dispatches is queued and
        // applied after it returns, never inside it.
        if isApplying {
            box.receive(current)
        } else {
            isApplying = true
            box.receive(current)
            applyQueue()
            isApplying = false
            if workAwaitsPipelineExit {
                leavePipeline()
                return subscription
            }
        }
        pipelineLock.unlock()
        return subscription
    }

    /// How many subscriptions are active.
    var subscriberCount: Int { stateLock.withLock { subscribers.count } }

    /// O(1): the last subscriber takes the removed one's place.
    private func unsubscribe(_ box: SubscriberBox<State>) {
        // Succeeds when no thread is applying actions, or when this one is (from an observer or a
        // middleware): then a notification under way must not call the box again. Another thread
        // applying an action may still call it once for that action; never blocks on it.
        if pipelineLock.tryLock() {
            box.isEnded = true
            pipelineLock.unlock()
        }
        stateLock.withLock {
            let index = box.index
            guard index >= 0 else { return }
            let last = subscribers.removeLast()
            if last !== box {
                subscribers[index] = last
                last.index = index
            }
            box.index = -1
        }
    }

    // MARK: Diagnostics

    @usableFromInline
    func report(_ kind: StoreDiagnostic.Kind, _ message: String) {
        options.onDiagnostic(StoreDiagnostic(kind: kind, message: message))
    }

    // MARK: Work in flight

    /// Registers work so that closing the store cancels it; `nil` when the store is already closed.
    func register(cancel: @escaping @Sendable () -> Void) -> UInt64? {
        registerObserved(cancel: cancel)?.id
    }

    /// `register(cancel:)`, also telling whether the store has event observers, under one lock.
    func registerObserved(cancel: @escaping @Sendable () -> Void) -> (id: UInt64, isObserved: Bool)? {
        registerObserved(.closure(cancel))
    }

    /// `registerObserved(cancel:)` for a graph run, which closing the store cancels with
    /// `cancelForStoreRelease()`. The registry holds the run until it unregisters, as its tasks
    /// and the pipeline do while it has work, so no `[weak self]` closure is needed.
    func registerObserved(run: any PipelineRun) -> (id: UInt64, isObserved: Bool)? {
        registerObserved(.run(run))
    }

    private func registerObserved(_ work: InFlightWork) -> (id: UInt64, isObserved: Bool)? {
        registryLock.withLock {
            guard !closed else { return nil }
            nextWorkID += 1
            inFlight[nextWorkID] = work
            return (nextWorkID, eventObservers > 0)
        }
    }

    /// Whether the store has event observers now.
    var hasEventObservers: Bool { registryLock.withLock { eventObservers > 0 } }

    /// Counts an event observer in (`1`) or out (`-1`).
    func countEventObservers(_ change: Int) {
        registryLock.withLock { eventObservers += change }
    }

    func unregister(_ id: UInt64) {
        _ = registryLock.withLock { inFlight.removeValue(forKey: id) }
    }

    /// The call in flight for `key`, or `start()`'s new one registered under it.
    func sharedCall<Call: CancellableWork>(
        for key: SharedCallKey, join: (Call) -> Bool,
        start: () -> Call
    ) -> (call: Call, isNew: Bool)? {
        registryLock.withLock {
            guard !closed else { return nil }
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

    /// Called once, when the ``Store`` is released: cancels everything in flight and ends every
    /// subscription, which releases its observer.
    func close() {
        let (cancels, calls) = registryLock.withLock {
            closed = true
            defer {
                inFlight.removeAll()
                sharedCalls.removeAll()
            }
            return (Array(inFlight.values), Array(sharedCalls.values))
        }
        pipelineLock.withLock { isClosedForDispatch = true }
        for work in cancels {
            switch work {
            case .closure(let cancel): cancel()
            case .run(let run): run.cancelForStoreRelease()
            }
        }
        for call in calls { call.cancel() }
        let boxes = stateLock.withLock {
            defer { subscribers.removeAll() }
            for box in subscribers { box.index = -1 }
            return subscribers
        }
        for box in boxes {
            box.subscription?.cancel()
            box.onStoreClosed?()
        }
        events.close()
    }
}

/// Work queued in the pipeline behind the action being applied. Not generic over the state (nothing
/// in it depends on it), so that the store's generic code finds the queue's type without a lookup.
@usableFromInline
enum QueuedWork {
    /// A sync action, and the check it must pass right before the reducer, if any.
    case action(any Action, admit: (@Sendable () -> Bool)?)
    /// A run with ready sync nodes (it holds one place in the queue at most).
    case run(any PipelineRun)
}

/// Work in flight that closing the store cancels: its cancel closure, or a graph run.
enum InFlightWork: Sendable {
    case closure(@Sendable () -> Void)
    case run(any PipelineRun)
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

/// The state, and how many actions the reducer has applied to it.
///
/// The count also keeps the store's stored property from being empty when `State` is (a store of
/// `struct Nothing {}`): ThreadSanitizer places an in-place update of an empty stored property at
/// the object's first byte, and then reports a race with any thread that reads the object's header
/// to call one of its methods, a race that is not there.
@usableFromInline
struct CommittedState<State> {
    @usableFromInline var value: State
    @usableFromInline var count: UInt64 = 0

    @usableFromInline
    init(value: State) { self.value = value }
}
