/// The store's machinery: its locks, the state, the subscribers, and the one pipeline every sync
/// action (dispatched, or a graph's node or fallback) goes through: middleware, reducer, subscribers.
///
/// ## Locks
/// - `stateLock` guards `committed` (the state), `subscribers` and `pipeline`, the
///   ``PipelineMachine`` that decides which thread applies sync work and in what order (see
///   `Pipeline/StoreCore+Pipeline.swift`). It is held while the machine decides, while the state or the
///   subscriber list is read or changed, and for the reducer's in-place update (reducing a copy
///   would copy the state's storage on every action); never while middleware or a subscriber runs.
///   One lock for both, so that a dispatch with no middleware and no subscriber enters the
///   pipeline, reduces and leaves in one critical section. A thread that must wait for the
///   pipeline waits on `pipelineFree`. Reading `state` from another thread never waits for
///   subscribers or middleware. Recursive: code a reducer calls may take it again (a run's
///   `cancel()` waits on it for the reducer calls in progress).
/// - `registryLock` guards the work in flight (tasks, runs, shared calls) that releasing the
///   ``Store`` cancels.
///
/// Lock order: state, then a run's lock (taking held waiters as the applier leaves; a fallback's
/// admission). A run never takes the state lock while holding its own.
///
/// The dispatch path (`dispatch`, `apply`, `commit`) is `@inlinable`, so that an app's
/// `Store<AppState>` is specialized in the app's module, where its state type is known: an
/// unspecialized dispatch looks up generic metadata at every step.
@usableFromInline
// Why this is safe to share: every `var` below is read and written only under the lock named beside
// it; the `let`s are immutable or thread-safe themselves. `@exclusivity(unchecked)`: those locks
// already serialize every access, so a dynamic exclusivity check could never fail, and would run on
// every access of the dispatch path.
final class StoreCore<State: Sendable>: @unchecked Sendable {
    @usableFromInline let pipelineFree = Condition()
    @usableFromInline let stateLock = Lock(recursive: true)
    private let registryLock = Lock()

    @usableFromInline @exclusivity(unchecked) var committed: CommittedState  // stateLock
    @usableFromInline @exclusivity(unchecked) var subscribers: [SubscriberBox<State>] = [] {  // stateLock
        didSet { hasSubscribers = !subscribers.isEmpty }
    }
    /// Whether `subscribers` has any: every commit asks, and a graph run's sync node is applied by
    /// unspecialized code, which would look up the array's generic metadata to ask the array.
    @usableFromInline @exclusivity(unchecked) var hasSubscribers = false  // stateLock
    @usableFromInline @exclusivity(unchecked) var pipeline = PipelineMachine<ThreadID>()  // stateLock

    @usableFromInline let reducer: Reducer<State>
    /// Where a dispatch reads this thread's `PureCall` mark.
    @usableFromInline let pureCalls = PureCall.Slot()
    @usableFromInline let middleware: [Middleware<State>]
    /// Whether `middleware` has any: every apply asks, and unspecialized code (a graph run's sync
    /// nodes, applied through `RunHost`) would look up the array's generic metadata to ask the array.
    @usableFromInline let hasMiddleware: Bool
    let options: StoreOptions
    /// The clock, time since creation and count of work that every run reads: one object, so
    /// that a run takes them with one reference.
    let runTime: RunTime
    /// The work dispatched with an id (take-latest, debounce, throttle).
    let latest: LatestWork
    /// Event observers, and the queue that delivers events to them (see `StoreEvent`).
    let events: EventHub
    /// The durable sync work the state holds (see ``DurableMarks``).
    let durableMarks: DurableMarksTable

    @exclusivity(unchecked) private var closed = false  // registryLock
    @exclusivity(unchecked) private var inFlight = InFlightSlots()  // registryLock
    private var sharedCalls: [SharedCallKey: any CancellableWork] = [:]  // registryLock
    /// How many event observers the store has: read with a registration, under the same lock, so an
    /// unobserved run or async action pays no second lock to learn it (see `StoreEvent`).
    @exclusivity(unchecked) private var eventObservers = 0  // registryLock

    init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>], options: StoreOptions) {
        self.committed = CommittedState(value: initialState)
        self.reducer = reducer
        self.middleware = middleware
        self.hasMiddleware = !middleware.isEmpty
        self.options = options
        self.runTime = RunTime(options)
        self.latest = LatestWork(clock: options.clock)
        self.events = EventHub(permanent: options.onEvent)
        self.durableMarks = DurableMarksTable(options.durableMarks)
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

    /// How many actions the store has committed so far.
    var commitCount: UInt64 { stateLock.withLock { committed.count } }

    // MARK: The pipeline (see Pipeline/StoreCore+Pipeline.swift for how work enters and leaves it)

    /// Middleware, then reducer, then subscribers, on the applier's thread (no lock held).
    ///
    /// - Parameter admit: asked (under the state lock, right before the reducer) whether the action
    ///   may still be applied; a graph's fallback is refused once its run was cancelled.
    @inlinable
    func apply(_ action: any Action, admit: (@Sendable () -> Bool)?) {
        if let admit, !admit() { return }
        if !hasMiddleware {
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
        let mark = pureCalls.thisThreadsMark
        stateLock.lock()
        if reduce(action, admit: admit, marking: mark), hasSubscribers {
            notifyReleasingLock()
        } else {
            stateLock.unlock()
        }
    }

    /// The reducer, with the state lock held, marked as pure code on this thread's `mark`; returns
    /// whether the action was committed (`admit`, if any, said yes).
    @inlinable
    func reduce(_ action: any Action, admit: (@Sendable () -> Bool)?, marking mark: PureCall.Mark) -> Bool {
        if let admit, !admit() { return false }
        mark.run(.reducer) { reducer(&committed.value, action) }
        committed.count += 1
        return true
    }

    /// Calls the subscribers with the state just committed; the state lock is held on entry and
    /// released before the first call.
    @inlinable
    func notifyReleasingLock() {
        let receivers = subscribers
        let newState = committed.value
        stateLock.unlock()
        // `receivers` holds every box until the loop ends, so a call needs no reference of its own:
        // a box taken out of the array as a value would be retained and released around its call.
        for index in receivers.indices {
            Unmanaged.passUnretained(receivers[index])._withUnsafeGuaranteedRef { $0.receive(newState) }
        }
        withExtendedLifetime(receivers) {}
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
        // The first call is a subscriber call like any other, made as the pipeline's applier: it
        // comes before any later commit's call and never beside one, and what it dispatches is
        // queued and applied after it returns, never inside it.
        switch enterPipeline({ $0.subscribe(on: $1) }) {
        case .closed:
            subscription.cancel()
            onStoreClosed?()
        case .queued:
            box.receive(register(box))
        case .apply, .wait, .handedOff:
            box.receive(register(box))
            drainAndLeavePipeline()
        }
        return subscription
    }

    private func register(_ box: SubscriberBox<State>) -> State {
        stateLock.withLock {
            box.index = subscribers.count
            subscribers.append(box)
            return committed.value
        }
    }

    /// How many subscriptions are active.
    var subscriberCount: Int { stateLock.withLock { subscribers.count } }

    /// O(1): the last subscriber takes the removed one's place.
    private func unsubscribe(_ box: SubscriberBox<State>) {
        // When no thread is applying actions, or this one is (from an observer or a middleware), a
        // notification under way must not call the box again. Another thread applying an action may
        // still call it once for that action; never waits for it.
        let me = currentThreadID()
        stateLock.withLock {
            if pipeline.isApplying(on: me) || !pipeline.isApplyingOnAnyThread { box.isEnded = true }
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
            return (inFlight.insert(work), eventObservers > 0)
        }
    }

    /// Whether the store has event observers now.
    var hasEventObservers: Bool { registryLock.withLock { eventObservers > 0 } }

    /// Whether the store is open and has no event observers, under one lock: work that needs no
    /// registration (a graph with no nodes) then starts without any.
    var acceptsUnobservedWork: Bool { registryLock.withLock { !closed && eventObservers == 0 } }

    /// Counts an event observer in (`1`) or out (`-1`).
    func countEventObservers(_ change: Int) {
        registryLock.withLock { eventObservers += change }
    }

    /// Ends the registration `id` (once: the slot it names may hold other work afterwards).
    func unregister(_ id: UInt64) {
        _ = registryLock.withLock { inFlight.remove(id) }
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
            defer { sharedCalls.removeAll() }
            return (inFlight.removeAll(), Array(sharedCalls.values))
        }
        if stateLock.withLock({ pipeline.close() }) { pipelineFree.broadcast() }
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

    /// The state, and how many actions the reducer has applied to it.
    ///
    /// The count also keeps the store's stored property from being empty when `State` is (a store
    /// of `struct Nothing {}`): ThreadSanitizer places an in-place update of an empty stored property
    /// at the object's first byte, and then reports a race with any thread that reads the object's
    /// header to call one of its methods, a race that is not there.
    @usableFromInline
    struct CommittedState {
        @usableFromInline var value: State
        @usableFromInline var count: UInt64 = 0

        @usableFromInline
        init(value: State) { self.value = value }
    }
}

/// Work in flight that closing a store cancels: its cancel closure, or a graph run.
// Not nested in the generic `StoreCore`: a nested type would be generic too, and the registry's
// table of it would look up generic metadata on every registration.
private enum InFlightWork: Sendable {
    case closure(@Sendable () -> Void)
    case run(any PipelineRun)
}

/// The work in flight, each in a slot whose index is its registration: registering takes a free
/// slot (or a new one at the end), unregistering frees it, with no hashing and, once the table has
/// grown to the most work the store has had in flight at once, no allocation.
private struct InFlightSlots {
    private var slots: [InFlightWork?] = []
    /// Slots whose work unregistered, for the next registrations.
    private var free: [Int] = []

    /// Keeps `work`; returns its registration.
    mutating func insert(_ work: InFlightWork) -> UInt64 {
        if let slot = free.popLast() {
            slots[slot] = work
            return UInt64(slot)
        }
        slots.append(work)
        return UInt64(slots.count - 1)
    }

    /// Drops the work registered as `id`, if it is still kept.
    mutating func remove(_ id: UInt64) -> InFlightWork? {
        guard id < slots.count, let work = slots[Int(id)] else { return nil }
        slots[Int(id)] = nil
        free.append(Int(id))
        return work
    }

    /// Drops every work kept; returns them.
    mutating func removeAll() -> [InFlightWork] {
        defer { (slots, free) = ([], []) }
        return slots.compactMap { $0 }
    }
}
