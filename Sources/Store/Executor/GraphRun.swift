/// One execution of an ``ActionGraph`` in a store: await its nodes, read its report, or cancel it.
///
/// A run starts when the graph is dispatched and ends when every node is terminal (succeeded, failed,
/// skipped or cancelled) and every fallback was applied. It always ends: a failure skips what
/// depended on it, and ``cancel()`` ends every node that has not finished at once. Dropping the run
/// does not stop it.
///
/// Thread-safe: every method may be called from any thread or task.
///
/// ## How it runs
/// The run's bookkeeping is a value-type state machine (`RunStateMachine`) that makes every
/// decision. This class is its shell: it takes the run's lock, feeds the machine one event, releases
/// the lock and performs what the machine returned (start async nodes on tasks, put the run in the
/// store's pipeline, resume waiters). No user code (reducer, middleware, subscriber, `make` or
/// fallback closure, async action) runs while the run's lock is held. Every sync node and fallback
/// reaches the state through the store's one pipeline: middleware, reducer, subscribers. When an
/// async node's end releases async nodes, its task runs one of them next instead of a new task (a
/// chain of calls costs one task); ``cancel()`` reaches whichever node a task runs.
public final class GraphRun<State: Sendable>: Sendable {
    typealias Machine = RunStateMachine

    /// The store whose pipeline the run goes through (a scoped store's root).
    let core: any RunHost
    /// What the graph's nodes see: the store, or the scope the graph was dispatched to.
    let backend: any StoreBackend<State>
    /// The graph's nodes, read without the generic wrapper: unspecialized code would look up
    /// `ActionGraph<State>`'s metadata on every read, copy and destroy.
    private let storage: GraphStorage
    /// The graph the run executes, wrapped again for the test store's messages.
    package var graph: ActionGraph<State> { ActionGraph(storage: storage) }
    private let protected: LockedValue<Protected>
    /// The store's clock, its time since creation and its count of work, read from its options
    /// once per run instead of once per node.
    private let clock: any Clock<Duration>
    private let sinceCreation: @Sendable () -> Duration
    private let workCounter: WorkCounter?
    /// When the run was created, on the store's clock (see `elapsed()`).
    private let createdAt: Duration
    /// What a durable run journals; `nil` for a plain run, which pays one check per node for it.
    private let durable: DurableRunJournal?

    /// Runs the graph whose nodes `storage` holds (an `ActionGraph<State>`'s).
    init(
        host core: any RunHost, backend: any StoreBackend<State>, storage: GraphStorage,
        durable: DurableRunJournal? = nil
    ) {
        self.core = core
        self.backend = backend
        self.durable = durable
        self.storage = storage
        // Lazily: the machine copies each flag into its node's state, so an array of them would
        // be allocated only to be dropped.
        let machine = Machine(
            isSync: storage.bodies.lazy.map { $0.isSync },
            prerequisites: storage.prerequisites, prerequisiteEnds: storage.prerequisiteEnds,
            nodesWithFallback: Set(storage.settings.compactMap { $0.value.fallback == nil ? nil : $0.key }),
            hasCancelAction: storage.hooks?.cancelAction != nil, problems: storage.nodeProblems)
        let options = core.options
        self.clock = options.clock
        self.workCounter = options.workCounter
        self.sinceCreation = core.sinceCreation
        self.protected = LockedValue(Protected(machine: machine, counter: options.workCounter))
        self.createdAt = sinceCreation()
    }

    /// Time since the run was created, on the store's clock: the times of its report and its events.
    private func elapsed() -> Duration {
        sinceCreation() - createdAt
    }

    /// The store is observed: record this run's events. Called before the run's first event; apart
    /// from the common path, so that an unobserved run stays as small as before.
    @inline(never)
    func startRecording() {
        let recorder = RunRecorder(
            hub: core.events, nodeCount: storage.count, shape: GraphShape(storage), settings: storage.settings)
        protected.withLock { protected in
            protected.recorder = recorder
            protected.machine.reportsEndedNodes = true
        }
    }

    /// Registers the run with its store (so that releasing the store cancels it) and starts it.
    func start() {
        guard let (id, isObserved) = core.registerObserved(run: self) else {
            core.report(
                .dispatchAfterRelease,
                "a graph of \(storage.count) nodes was dispatched after its store was released; it was cancelled.")
            cancel()
            return
        }
        if isObserved { startRecording() }
        let now = elapsed()
        let insidePipeline = core.isInsidePipeline
        perform(
            protected.withLock { protected in
                protected.registration = id
                let endedBefore = durable?.endedBefore ?? []
                return protected.handle(insidePipeline: insidePipeline) { $0.start(now: now, endedBefore: endedBefore) }
            })
    }

    // MARK: Public

    /// Cancels the run: async nodes in flight get task cancellation and, like every node that has not
    /// started, end `.cancelled` at once; no fallback reaches the reducer after this returns. A sync
    /// node being applied at this moment completes. State already committed stays committed. Calling
    /// it again does nothing.
    ///
    /// If the graph has a cancel action (``ActionGraph/setCancelAction(_:)``) and the run had started
    /// and not finished, that action is the one action of the run that still reaches the reducer:
    /// once, after the sync node being applied at this moment (if any), through the store's pipeline
    /// like any dispatch. It is applied before ``wait()`` returns (await that to know it was);
    /// `cancel()` itself never waits for another thread's middleware or subscribers. When none of
    /// the run's sync work is scheduled at that moment and no other thread is applying actions, this
    /// thread applies it before `cancel()` returns (or, called from a subscriber or middleware of the
    /// store, right after the current action); otherwise the thread that applies actions applies it,
    /// after the run's sync work in hand, before it leaves the pipeline. The only wait: a reducer
    /// call in progress on another thread at this moment (one call; reducers are pure) completes
    /// first, so that none of this run's fallbacks is being reduced once `cancel()` returns.
    public func cancel() {
        cancel(byStoreRelease: false)
    }

    /// The store is being released: cancels the run without sending its cancel action.
    @usableFromInline
    func cancelForStoreRelease() {
        cancel(byStoreRelease: true)
    }

    /// `cancel()`, telling the machine whether the store's release is the cause (then no cancel
    /// action is sent).
    private func cancel(byStoreRelease: Bool) {
        if let durable {
            if byStoreRelease { durable.storeReleased() } else { durable.cancelled() }
        }
        let now = elapsed()
        let insidePipeline = core.isInsidePipeline
        let effects = protected.withLock {
            $0.handle(insidePipeline: insidePipeline) { $0.cancel(now: now, byStoreRelease: byStoreRelease) }
        }
        // A fallback the pipeline is reducing right now holds the state lock: waiting for the lock
        // once means none is being reduced when this returns, and none can start (it checks the
        // machine, which is cancelled, under that lock).
        core.stateLock.withLock {}
        perform(effects)
    }

    /// The response of `node`, once it is terminal and what its end released was applied (see
    /// ``outcome(of:)``).
    /// - Throws: the node's own error if it failed; ``GraphError/skipped`` if it was skipped;
    ///   `CancellationError` if it was cancelled; ``GraphError/foreignNode(index:)`` if `node` is not
    ///   a node of this run's graph.
    public func value<R>(of node: Node<R>) async throws -> R {
        switch await outcome(of: node) {
        case .succeeded(let value): return value
        case .failed(let error): throw error
        case .skipped: throw GraphError.skipped
        case .cancelled: throw CancellationError()
        }
    }

    /// How `node` ended, once it is terminal.
    ///
    /// It returns once the sync nodes and fallback that `node`'s end released were applied (and,
    /// as ``wait()``, what subscribers and middleware dispatched in answer to them), even when
    /// called after `node` ended: the state read after it holds them. A node of another graph
    /// answers `.failed(GraphError.foreignNode(index:))` at once.
    public func outcome<R>(of node: Node<R>) async -> Outcome<R> {
        guard graph.owns(node) else { return .failed(GraphError.foreignNode(index: node.index)) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = ParkedWaiter(continuation, parkingOn: "waiting for node #\(node.index) of a run to end")
            let (resumeNow, deliver) = protected.withLock { $0.wait(waiter) { $0.awaitNode(node.index, $1) } }
            resumeNow?.resume()
            if deliver { core.deliverEvents() }
            waiter.park()
        }
        return protected.withLock { protected in
            let machine = protected.machine
            switch machine.status(of: node.index) {
            case .succeeded: return .succeeded(unwrapResponse(machine.response(of: node.index)))
            case .failed: return .failed(machine.errors[node.index] ?? GraphError.skipped)
            case .skipped: return .skipped
            case .cancelled: return .cancelled
            case .waiting, .ready, .running:
                preconditionFailure("OresRedux: node #\(node.index) was woken before it ended")
            }
        }
    }

    /// Waits until every node is terminal and every fallback was applied, then reports the run.
    /// Always returns. Cancelling the task that waits does not cancel the run (call ``cancel()``).
    ///
    /// Like `dispatch`, it returns only once what subscribers and middleware dispatched in answer
    /// to the run's sync nodes (queued behind them) was applied too: the state read after it holds
    /// those actions.
    @discardableResult
    public func wait() async -> GraphReport {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = ParkedWaiter(continuation, parkingOn: "waiting for a run to finish")
            let (resumeNow, deliver) = protected.withLock { $0.wait(waiter) { $0.awaitFinish($1) } }
            resumeNow?.resume()
            if deliver { core.deliverEvents() }
            waiter.park()
        }
        return report
    }

    /// Whether every node is terminal and every fallback was applied.
    public var isFinished: Bool { protected.withLock { $0.machine.isFinished } }

    /// Whether the run has started (or ended); `false` while a debounced or throttled dispatch waits.
    var hasStarted: Bool { protected.withLock { $0.machine.phase != .notStarted } }

    /// The run as it stands now: a node that has not ended shows `nil` for its outcome.
    public var report: GraphReport {
        let machine = protected.withLock { $0.machine }
        return GraphReport(
            shape: GraphShape(storage), nodes: machine.nodes, errors: machine.errors,
            retriedAttempts: machine.retriedAttempts,
            finishedAt: machine.isFinished ? machine.lastEnd : nil)
    }

    // MARK: Sync nodes (called by the store's pipeline, on the thread that applies its work)

    /// Applies this run's ready sync items one by one through the pipeline, until the machine says
    /// it has none left (`.idle`) or that work the store has queued goes first (`.yield`: the run
    /// goes back in line behind it, still scheduled).
    @usableFromInline
    func applySyncItems() {
        var step = nextItem()
        while case .apply(let item) = step {
            if let action = action(for: item) {
                let admit: (@Sendable () -> Bool)? =
                    if case .fallback = item {
                        { [self] in protected.withLock { $0.machine.mayApplyFallback } }
                    } else {
                        nil
                    }
                durable?.willApply(item, asCommit: core.commitCount + 1)
                if let origin = protected.withLock({ $0.recorder?.origin(of: item) }) {
                    SyncOrigin.$current.withValue(origin) { core.apply(action, admit: admit) }
                } else {
                    core.apply(action, admit: admit)
                }
                if let durable, case .node(let node) = item { durable.syncApplied(node, commitCount: core.commitCount) }
            }
            let now = elapsed()
            let queuedWork = core.hasFollowUps
            var next = Machine.SyncStep.idle
            perform(
                protected.withLock { protected in
                    protected.handle(insidePipeline: true) { machine in
                        let (effects, step) = machine.syncItemApplied(item, now: now, queuedWork: queuedWork)
                        next = step
                        return effects
                    } andThen: { protected in
                        if case .apply(.node(let node)) = next { protected.recorder?.recordStart(of: node, time: now) }
                    }
                })
            step = next
        }
        if step == .yield { core.requeue(self) }
    }

    private func nextItem() -> Machine.SyncStep {
        let now = elapsed()
        let (item, observed) = protected.withLock { protected in
            let wasScheduled = protected.machine.isScheduled
            defer { protected.countScheduling(wasScheduled: wasScheduled) }
            let item = protected.machine.takeSyncItem(now: now)
            guard let recorder = protected.recorder else { return (item, false) }
            if case .node(let node) = item { recorder.recordStart(of: node, time: now) }
            return (item, true)
        }
        if observed { core.deliverEvents() }
        return item.map { .apply($0) } ?? .idle
    }

    /// The action to apply for `item`, built outside the run's lock: a `make` or fallback closure is
    /// user code. `nil` when a fallback was refused because the run was cancelled. The cancel action
    /// is a value, built with the graph: no user code.
    private func action(for item: Machine.SyncItem) -> (any Action)? {
        switch item {
        case .node(let node):
            switch storage.bodies[node] {
            case .action(let action):
                return action
            case .makeAction(let make, _):
                let inputs = self.inputs(of: node)
                return PureCall.run(.makeClosure) { make(inputs, self) }
            case .async, .delay, .join:
                preconditionFailure("OresRedux: node #\(node) is not a sync node")
            }
        case .fallback(let node):
            let error = protected.withLock { $0.machine.errors[node] }
            guard let error, let fallback = storage.settings[node]?.fallback else { return nil }
            return PureCall.run(.fallbackClosure) { fallback(error) }
        case .cancelAction:
            return storage.hooks?.cancelAction
        }
    }

    /// The responses of `node`'s prerequisites, which have all succeeded.
    private func inputs(of node: Int) -> NodeInputs {
        let prerequisites = storage.prerequisites(of: node)
        return protected.withLock { $0.inputs(from: prerequisites) }
    }

    // MARK: Async nodes

    /// Runs an async, delay or join node on a task of its own, recorded so that `cancel()` reaches it.
    /// The task may go on with async nodes that the node's end releases (see `runAsync`).
    private func startAsync(_ node: Int) {
        let unit = workCounter.begin(unitName(of: node))
        let task = Task { await self.runAsyncNodes(from: node, as: unit) }
        let cancelNow = protected.withLock { protected in
            guard protected.machine.mayRun(node) else { return true }
            if protected.tasks.isEmpty { protected.tasks = Array(repeating: nil, count: protected.machine.count) }
            protected.tasks[node] = task
            return false
        }
        if cancelNow { task.cancel() }
    }

    private func unitName(of node: Int) -> String {
        "\(storage.label(of: node)) (node #\(node)) of a run"
    }

    /// A task's whole body: runs `first`, then each node that the one before handed on, one after
    /// the other, each counted as a unit of its own (a test store's count of its work).
    private func runAsyncNodes(from first: Int, as firstUnit: WorkCounter.Unit?) async {
        var next: (node: Int, unit: WorkCounter.Unit?)? = (first, firstUnit)
        while let (node, unit) = next {
            next = await WorkCounter.run(unit) { await self.runAsync(node, as: unit) }
        }
    }

    /// Runs `node`'s attempts and reports its end.
    ///
    /// - Parameter unit: the store's count of this node's work, when it counts its work (a test store's).
    /// - Returns: an async node that the end released for this task to run next, with its unit
    ///   begun (while this node's still counts, so that the store never looks quiet in between);
    ///   `nil` when the task is done.
    private func runAsync(_ node: Int, as unit: WorkCounter.Unit?) async -> (node: Int, unit: WorkCounter.Unit?)? {
        // What comes before and after the attempts is in sync functions: the task keeps this frame
        // while the node's action runs, and every local of an async function takes room in it. A
        // task's frames that outgrow its allocator's slab make it malloc another.
        guard let start = start(of: node) else { return nil }
        let plan = attempts(of: node, start)
        unit?.note("started its attempts")
        let (result, count) = await Attempts.run(plan, clock: clock)
        unit?.note("ended its attempts")
        guard let next = asyncFinished(node, result, attempts: count) else { return nil }
        return (next, workCounter.begin(unitName(of: next)))
    }

    /// Whether `node` may still run, its inputs, and whether the run is observed, in one look: a
    /// recorder is set before the run's first event, so whether there is one never changes while a
    /// node runs. `nil` when the node may no longer run (the run was cancelled).
    private func start(of node: Int) -> (inputs: NodeInputs?, isObserved: Bool)? {
        let readsResponses = if case .async(_, _, readsResponses: true) = storage.bodies[node] { true } else { false }
        let prerequisites = readsResponses ? storage.prerequisites(of: node) : nil
        return protected.withLock { protected -> (inputs: NodeInputs?, isObserved: Bool)? in
            guard protected.machine.mayRun(node) else { return nil }
            return (prerequisites.map { protected.inputs(from: $0) }, protected.recorder != nil)
        }
    }

    /// What `node`'s attempts need: its work bound to the store, the gate each attempt asks, its
    /// timeout and retry policy.
    private func attempts(
        of node: Int, _ start: (inputs: NodeInputs?, isObserved: Bool)
    ) -> AttemptPlan<ResponseSlot, NodeGate> {
        let operation: @Sendable () async throws -> ResponseSlot
        switch storage.bodies[node] {
        case .async(let bind, _, _):
            var inputs = start.inputs ?? NodeInputs(responses: [])
            if let durable, let codec = storage.settings[node]?.durable {
                inputs.idempotencyKey = durable.key(of: node)
                let attempt = PureCall.run(.makeClosure) { bind(inputs, self) }.attempt
                operation = durable.journaled(attempt, node: node, codec: codec)
            } else {
                operation = PureCall.run(.makeClosure) { bind(inputs, self) }.attempt
            }
        case .delay(let duration):
            let clock = self.clock
            operation = {
                try await clock.sleep(for: duration)
                return nil
            }
        case .join(let wait, _):
            // The host store, not the run: a join that never ends must not keep its run alive.
            let host = core
            operation = { try await Attempts.untilCancelled { try await wait(host) } }
        case .action, .makeAction:
            preconditionFailure("OresRedux: node #\(node) is not an async node")
        }
        let settings = storage.settings[node]
        var retry = settings?.retry ?? .never
        if let durable { retry = durable.retryLeft(of: node, retry) }
        let time: (@Sendable () -> Duration)? = if start.isObserved { { self.elapsed() } } else { nil }
        return AttemptPlan(
            operation: operation, gate: NodeGate(protected: protected, node: node, host: core, elapsed: time),
            timeout: settings?.timeout, retry: retry)
    }

    /// Reports the end of `node`'s attempts; returns the node the machine handed on to this task.
    private func asyncFinished(_ node: Int, _ result: Result<ResponseSlot, any Error>, attempts: Int) -> Int? {
        let now = elapsed()
        var next: Int?
        perform(
            protected.withLock { protected in
                let handsOn = protected.holdsTask(of: node)
                let performable = protected.handle(insidePipeline: false) {
                    $0.asyncFinished(node, result, attempts: attempts, now: now, handsOn: handsOn)
                }
                next = protected.handOn(from: node, to: performable.effects.handedOn)
                return performable
            })
        return next
    }

    // MARK: Effects

    /// Performs what the machine decided, with the run's lock released. Sync nodes released here
    /// reach the state before the waiters resume (unless this thread is already inside the store's
    /// pipeline, which then applies them right after its current action). Waiters of nodes that
    /// ended inside the pipeline are held until it is left (see `Protected.handle`).
    ///
    /// When the run is observed, the event's store events are delivered first, so that a log shows a
    /// node's failure before the fallback it sends (when no other thread is delivering at that
    /// moment), and the waiters are queued behind them, so none resumes before its events.
    private func perform(_ performable: Performable) {
        let effects = performable.effects
        for node in effects.startAsync { startAsync(node) }
        for task in performable.cancel { task.cancel() }
        if performable.observed { core.deliverEvents() }
        if effects.schedule { core.schedule(self) }
        if effects.finished, let durable { durable.finished() }
        if performable.holdsWaiters { core.resumeAtPipelineExit(self) }
        if performable.observed, !performable.resume.isEmpty {
            core.events.enqueue([.resume(performable.resume)])
            core.deliverEvents()
        } else {
            for waiter in performable.resume { waiter.resume() }
        }
        if effects.finished, let id = protected.withLock({ $0.registration }) {
            core.unregister(id)
        }
    }
}

/// The machine, and what the shell keeps for it, behind the run's lock.
// Not nested in the generic `GraphRun`: a nested type would be generic too, and unspecialized code
// would look up its metadata on every event.
private struct Protected {
    var machine: RunStateMachine
    /// The store's count of its work, when it keeps one (a test store's).
    let counter: WorkCounter?
    var registration: UInt64?
    /// The continuations of `outcome(of:)` and `wait()`, by the number the machine knows them by.
    var waiters: [RunStateMachine.Waiter: ParkedWaiter] = [:]
    var nextWaiter: RunStateMachine.Waiter = 0
    /// The task of each async node in flight, by node; empty until the first one starts (then one
    /// slot per node: one allocation for the run, and no hashing).
    var tasks: [Task<Void, Never>?] = []
    /// Records the run's events when the store was observed at dispatch; `nil` otherwise. A class,
    /// so that an unobserved run's locked state grows by one word only.
    var recorder: RunRecorder? = nil
    /// While the run's sync work waits for or is in the pipeline, the unit that counts it as
    /// running work of a store that counts its work (see `WorkCounter`).
    var scheduledUnit: WorkCounter.Unit? = nil

    /// Feeds the machine one event, and takes out of the shell's tables what its effects name. When
    /// the run is observed, queues the event's store events in the store's event queue (in the order
    /// the machine decided them, since the run's lock is held).
    ///
    /// - Parameter insidePipeline: whether the thread is applying actions in the store's pipeline;
    ///   the machine decides which waiters it then holds until the thread leaves it
    ///   (`holdsWaiters` asks the shell to tell the store, once).
    mutating func handle(
        insidePipeline: Bool, _ event: (inout RunStateMachine) -> RunStateMachine.Effects,
        andThen record: (inout Protected) -> Void = { _ in }
    ) -> Performable {
        let wasScheduled = machine.isScheduled
        var effects = event(&machine)
        machine.holdWaiters(insidePipeline: insidePipeline, &effects)
        countScheduling(wasScheduled: wasScheduled)
        recorder?.record(effects, of: machine)
        record(&self)
        return Performable(
            effects: effects,
            cancel: effects.cancelWorkers.compactMap { node in tasks.isEmpty ? nil : tasks[node].take() },
            resume: effects.resume.compactMap { waiters.removeValue(forKey: $0) },
            holdsWaiters: effects.holdsWaiters, observed: recorder != nil)
    }

    /// Whether the shell holds the handle of `node`'s task: only then may the task run a node its
    /// end releases (a task that outran `startAsync` has no handle yet, and a handle stored late
    /// must not be taken for the next node's).
    func holdsTask(of node: Int) -> Bool {
        !tasks.isEmpty && tasks[node] != nil
    }

    /// After `node`'s task ended it: moves the task's handle to `next`, the node the machine handed
    /// on to the same task, so that `cancel()` reaches whichever node the task runs. Returns `next`;
    /// `nil` (the finished node's handle is dropped) when nothing was handed on.
    mutating func handOn(from node: Int, to next: Int?) -> Int? {
        guard !tasks.isEmpty, let task = tasks[node].take(), let next else { return nil }
        tasks[next] = task
        return next
    }

    /// The responses of a node's `prerequisites`, which have all succeeded.
    func inputs(from prerequisites: ArraySlice<Int>) -> NodeInputs {
        NodeInputs(responses: prerequisites.map { machine.response(of: $0) })
    }

    /// Counts the run's sync work as running work of the store from the moment the machine asks
    /// for the pipeline until it says the run is idle: while it waits for the pipeline behind
    /// another thread's actions, no task of the run may run, yet the store is not quiet.
    mutating func countScheduling(wasScheduled: Bool) {
        guard let counter, machine.isScheduled != wasScheduled else { return }
        if machine.isScheduled {
            scheduledUnit = counter.begin("ready sync nodes of a run, waiting for the pipeline", isTask: false)
        } else {
            scheduledUnit.take()?.end()
        }
    }

    /// The waiters held until the pipeline's exit, now that it is left.
    mutating func takeHeldWaiters() -> [ParkedWaiter] {
        machine.pipelineLeft().compactMap { waiters.removeValue(forKey: $0) }
    }

    /// Registers `continuation`. When the machine says it need not wait, returns it to resume at
    /// once, or, when the run is observed, queues it behind the events recorded so far (then
    /// `deliver` is true: the caller delivers once the lock is released).
    mutating func wait(
        _ continuation: ParkedWaiter,
        _ event: (inout RunStateMachine, RunStateMachine.Waiter) -> RunStateMachine.Waiter?
    ) -> (resumeNow: ParkedWaiter?, deliver: Bool) {
        nextWaiter += 1
        guard event(&machine, nextWaiter) != nil else {
            waiters[nextWaiter] = continuation  // waits, or is held until the pipeline is left
            return (nil, false)
        }
        guard let recorder else { return (continuation, false) }
        recorder.hub.enqueue([.resume([continuation])])
        return (nil, true)
    }
}

/// Asks a run, right before each attempt of an async node, whether the node may still run. Not
/// nested in the generic `GraphRun`, for the reason `Protected` gives.
private struct NodeGate: AttemptGate {
    let protected: LockedValue<Protected>
    let node: Int
    let host: any RunHost
    /// The run's time, for the start of an attempt its events report; `nil` when the run is not
    /// observed, which then reads no clock.
    let elapsed: (@Sendable () -> Duration)?

    func mayStart() -> Bool {
        guard let elapsed else { return protected.withLock { $0.machine.mayRun(node) } }
        let now = elapsed()
        let (mayRun, observed) = protected.withLock { protected in
            guard protected.machine.mayRun(node) else { return (false, false) }
            guard let recorder = protected.recorder else { return (true, false) }
            recorder.recordStart(of: node, time: now)
            return (true, true)
        }
        if observed { host.deliverEvents() }
        return mayRun
    }
}

/// An event's effects, with the tasks and continuations they name.
private struct Performable {
    let effects: RunStateMachine.Effects
    let cancel: [Task<Void, Never>]
    let resume: [ParkedWaiter]
    /// The waiters were held until the pipeline's exit, and the store must be told (the first time).
    let holdsWaiters: Bool
    /// The run is observed: deliver the events queued, and resume the waiters behind them.
    let observed: Bool
}

/// Turns a run's machine events into ``StoreEvent``s. Not generic, like `Protected`.
// Used only under the run's lock, as part of `Protected`.
private final class RunRecorder {
    let hub: EventHub
    let info: StoreEvent.RunInfo
    let shape: GraphShape
    let settings: [Int: NodeSettings]
    private var announced = false
    /// Attempts started so far, by node; empty until the first (one slot per node then).
    private var attempts: [Int] = []

    init(hub: EventHub, nodeCount: Int, shape: GraphShape, settings: [Int: NodeSettings]) {
        self.hub = hub
        self.info = StoreEvent.RunInfo(id: hub.nextID(), nodeCount: nodeCount, shape: shape)
        self.shape = shape
        self.settings = settings
    }

    /// Queues the start of `node`'s next attempt (a sync node has one). Comes after the run's
    /// start, since the run starts before any of its nodes.
    func recordStart(of node: Int, time: Duration) {
        if attempts.isEmpty { attempts = Array(repeating: 0, count: info.nodeCount) }
        attempts[node] += 1
        let attempt = attempts[node]
        let backoff =
            attempt > 1 ? (settings[node]?.retry ?? .never).backoff.delay(beforeRetry: attempt - 1) : .zero
        let start = StoreEvent.NodeStartInfo(
            index: node, label: shape.label(node), kind: shape.kind(node), attempt: attempt, time: time,
            backoff: backoff)
        hub.enqueue([.event(.nodeStarted(info, start))])
    }

    /// Where an action applied for `item` comes from, for the inspector's recorder.
    func origin(of item: RunStateMachine.SyncItem) -> SyncOrigin {
        switch item {
        case .node(let node): SyncOrigin(run: info.id, node: node, kind: .node)
        case .fallback(let node): SyncOrigin(run: info.id, node: node, kind: .fallback)
        case .cancelAction: SyncOrigin(run: info.id, node: nil, kind: .cancelAction)
        }
    }

    /// Queues the events `effects` tell of (the run's start before its first event).
    func record(_ effects: RunStateMachine.Effects, of machine: RunStateMachine) {
        var items: [EventHub.Item] = []
        if !announced {
            announced = true
            items.append(.event(.runStarted(info)))
        }
        for node in effects.ended {
            items.append(.event(.nodeFinished(info, nodeInfo(node, machine))))
        }
        if effects.finished {
            let report = GraphReport(
                shape: shape, nodes: machine.nodes, errors: machine.errors,
                retriedAttempts: machine.retriedAttempts, finishedAt: machine.lastEnd)
            items.append(.event(.runFinished(info, report)))
        }
        if !items.isEmpty { hub.enqueue(items) }
    }

    private func nodeInfo(_ node: Int, _ machine: RunStateMachine) -> StoreEvent.NodeInfo {
        let outcome: Outcome<any Sendable> =
            switch machine.status(of: node) {
            case .succeeded: .succeeded(machine.response(of: node) ?? ())
            case .failed: .failed(machine.errors[node] ?? GraphError.skipped)
            case .skipped: .skipped
            case .cancelled: .cancelled
            case .waiting, .ready, .running: preconditionFailure("OresRedux: node #\(node) reported before it ended")
            }
        return StoreEvent.NodeInfo(index: node, label: shape.label(node), kind: shape.kind(node), outcome: outcome)
    }
}

extension GraphRun: PipelineRun {
    @usableFromInline
    func takeWaitersHeldForPipelineExit() -> (waiters: [ParkedWaiter], isObserved: Bool) {
        protected.withLock { ($0.takeHeldWaiters(), $0.recorder != nil) }
    }
}

extension StoreCore {
    /// Starts `graph` in this store's pipeline; its nodes see `backend` (this store, or a scope).
    func startGraph<S: Sendable>(
        _ graph: ActionGraph<S>, backend: any StoreBackend<S>, durable: DurableRunJournal? = nil
    ) -> GraphRun<S> {
        let run = GraphRun(host: self, backend: backend, storage: graph.storage, durable: durable)
        if refusesDispatchFromPureCode("a graph of \(graph.count) nodes", "it was cancelled") {
            if hasEventObservers { run.startRecording() }
            run.cancel()
            return run
        }
        run.start()
        return run
    }
}

/// Time since now on `clock`, as a closure that reads it: the one clock a run's report and its
/// timeouts share (a test clock's run shows virtual times).
func stopwatch(on clock: any Clock<Duration>) -> @Sendable () -> Duration {
    func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
    return start(clock)
}
