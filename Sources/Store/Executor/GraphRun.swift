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
/// The run's bookkeeping is a value-type state machine (`RunStateMachine`) that makes every decision.
/// This class is its shell: it takes the run's lock, feeds the machine one event, lets the run's
/// observers (`RunObserver`: the durable journal, the event recorder) see the steps the machine
/// returned, releases the lock and performs the steps in order with one `switch` (start async nodes
/// on tasks, put the run in the store's pipeline, resume waiters). No user code (reducer, middleware,
/// subscriber, `make` or fallback closure, async action) runs while the run's lock is held. Every
/// sync node and fallback reaches the state through the store's one pipeline. When an async node's
/// end releases async nodes, its task runs one of them next instead of a new task (a chain of calls
/// costs one task); ``cancel()`` reaches whichever node a task runs.
public final class GraphRun<State: Sendable>: Sendable {
    /// The store whose pipeline the run goes through (a scoped store's root).
    let core: any RunHost
    /// What the graph's nodes see: the store, or the scope the graph was dispatched to.
    let backend: any StoreBackend<State>
    /// The graph's nodes, read without the generic wrapper: unspecialized code would look up
    /// `ActionGraph<State>`'s metadata on every read, copy and destroy.
    let storage: GraphStorage
    /// The graph the run executes, wrapped again for the test store's messages.
    package var graph: ActionGraph<State> { ActionGraph(storage: storage) }
    /// The run's machine behind its lock; `nil` for a run born finished (a graph with no nodes that
    /// nobody watches): it has no machine, registration, task or waiter, and `read` answers for it.
    private let locked: LockedValue<RunLockedState>?
    /// The lock and machine of a run that has them: the only runs with nodes, owner, journal or events.
    @inline(__always) var state: LockedValue<RunLockedState> { locked! }  // a call would retain the lock
    @usableFromInline var isBornFinished: Bool { locked == nil }
    /// The store's clock, time since creation, count of its work and stubs (a test store's two).
    let time: RunTime
    var clock: any Clock<Duration> { time.clock }
    /// Read at every event: held here, not called through `time`, which would retain it per call.
    let sinceCreation: @Sendable () -> Duration
    private let createdAt: Duration
    /// A durable run's journal, which its journaled nodes' attempts go through; `nil` for a plain run.
    let journal: DurableRunJournal?
    let ownerName: String?  // the name of the owner the run was dispatched under, for its events

    /// Runs the nodes `storage` holds (an `ActionGraph<State>`'s) on the store's `time`; a run
    /// `bornFinished` (a graph with no nodes that nobody watches) needs no start.
    init(
        host core: any RunHost, backend: any StoreBackend<State>, storage: borrowing GraphStorage, time: RunTime,
        durable journal: DurableRunJournal? = nil, owner: String? = nil, bornFinished: Bool = false
    ) {
        (self.core, self.backend, self.journal, self.ownerName) = (core, backend, journal, owner)
        self.storage = copy storage  // borrowed: an owned one is copied as the caller's generic graph
        (self.time, sinceCreation, createdAt) = (time, time.sinceCreation, bornFinished ? .zero : time.sinceCreation())
        locked =
            bornFinished
            ? nil
            : LockedValue(
                RunLockedState(graph: self.storage, counter: time.workCounter, createdAt: createdAt, journal: journal))
    }

    /// Reads the machine under the run's lock; a run born finished answers `bornFinished`.
    // Always inlined, so its callers' closures need no context.
    @inline(__always)
    func read<T>(bornFinished: @autoclosure () -> T, _ body: (inout RunLockedState) -> T) -> T {
        guard let locked else { return bornFinished() }
        return locked.withLock(body)  // in place: a borrowed state would be copied out of the lock
    }

    /// Time since the run was created, on the store's clock: the times of its report and its events.
    func elapsed() -> Duration { sinceCreation() - createdAt }

    /// Records the run's events when the store is observed. Called before the run's first event.
    func observe(ifStoreIsObserved isObserved: Bool) {
        guard isObserved,
            let recorder = RunEventRecorder.ifObserved(
                isObserved, hub: core.events, storage: storage, owner: ownerName)
        else {
            return
        }
        state.withLock { state in
            state.observers.append(recorder)
            state.machine.isObserved = true
        }
    }

    /// Registers the run with its store (so that releasing the store cancels it) and starts it.
    func start(atCreation: Bool = false) {  // at dispatch: at the run's time zero, with no second clock read
        guard let (id, isObserved) = core.registerObserved(run: self) else {
            core.report(
                .dispatchAfterRelease,
                "a graph of \(storage.count) nodes was dispatched after its store was released; it was cancelled.")
            cancel()
            return
        }
        observe(ifStoreIsObserved: isObserved)
        let (now, insidePipeline) = (atCreation ? .zero : elapsed(), core.isInsidePipeline)
        let earlier = journal?.earlierLaunches ?? EarlierLaunches()
        perform(
            state.withLock { state in
                state.registration = id
                return state.handle(.start(now: now, earlier: earlier), insidePipeline: insidePipeline)
            })
    }

    /// Cancels the run: async nodes in flight get task cancellation and, like every node that has not
    /// started, end `.cancelled` at once; no fallback, and nothing their actions dispatch through their
    /// contexts, reaches the reducer after this returns. A sync node being applied at this moment
    /// completes. State already committed stays committed. Calling it again does nothing, nor does a
    /// cancel that finds nothing else to end: the run finishes as it would have (so a subscriber of
    /// its last action may cancel it as its screen closes).
    ///
    /// If the graph has a cancel action (``ActionGraph/setCancelAction(_:)``) and the cancel ended
    /// part of a run that had started, that action is the one action of the run that still reaches
    /// the reducer: once, after the sync node being applied at this moment (if any), through the
    /// store's pipeline like any dispatch, before ``wait()`` returns (await that to know it was);
    /// `cancel()` never waits for another thread's middleware or subscribers. With no sync work of
    /// the run scheduled and no other thread applying actions, this thread applies it before
    /// returning (from a subscriber or middleware: right after the current action); otherwise the
    /// applying thread does, before it leaves the pipeline. The one wait: a reducer call in progress
    /// on another thread (reducers are pure) completes first, so none of this run's fallbacks is being
    /// reduced once `cancel()` returns.
    public func cancel() { cancel(byStoreRelease: false) }

    /// The store is being released: cancels the run without sending its cancel action.
    @usableFromInline
    func cancelForStoreRelease() { cancel(byStoreRelease: true) }

    private func cancel(byStoreRelease: Bool) {
        guard let locked else { return }  // finished: nothing to cancel, no fallback to wait for
        let (now, insidePipeline) = (elapsed(), core.isInsidePipeline)
        perform(
            locked.withLock {
                $0.handle(.cancel(now: now, byStoreRelease: byStoreRelease), insidePipeline: insidePipeline)
            })
    }

    /// The response of `node`, once it is terminal and what its end released was applied (``outcome(of:)``).
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
        await park("waiting for node #\(node.index) of a run to end") { .awaitNode(node.index, $0) }
        switch state.withLock({ $0.machine.outcome(of: node.index) }) {
        case .succeeded(let value): return .succeeded(unwrapResponse(value))
        case .failed(let error): return .failed(error)
        case .skipped: return .skipped
        case .cancelled: return .cancelled
        case nil: preconditionFailure("OresRedux: node #\(node.index) was woken before it ended")
        }
    }

    /// Waits until every node is terminal and every fallback was applied, then reports the run.
    /// Always returns. Cancelling the task that waits does not cancel the run (call ``cancel()``).
    ///
    /// Like `dispatch`, it returns only once what subscribers and middleware dispatched in answer
    /// to the run's sync nodes (queued behind them) was applied too: the state read after it holds
    /// those actions.
    // Inlinable: in the caller, a run born finished answers with no async call and no hop.
    @discardableResult @inlinable
    public func wait() async -> GraphReport {
        isBornFinished ? .bornFinished : await waitToFinish()
    }

    /// `wait()` of a run not born finished: a finished run's waiter needs no continuation.
    @usableFromInline func waitToFinish() async -> GraphReport {
        if let report = read(bornFinished: report, { $0.reportIfWaitReturnsAtOnce(storage) }) { return report }
        await park("waiting for a run to finish") { .awaitFinish($0) }
        return report
    }

    /// Waits until the steps of the machine's answer to `event` resume the waiter.
    private func park(_ reason: @autoclosure () -> String, _ event: (RunStateMachine.Waiter) -> RunEvent) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = ParkedWaiter(continuation, parkingOn: reason())
            let performable = state.withLock { $0.wait(waiter, event) }
            perform(performable)
            // `.resumeCaller`, a wait's last step, is this waiter's: it is resumed here, where it is
            // held (an unobserved run's with no list built for it).
            if performable.steps.resumesCaller {
                if performable.steps.observed { resume([waiter], behindEvents: true) } else { waiter.resume() }
            }
            waiter.park()
        }
    }

    /// Whether every node is terminal and every fallback was applied.
    public var isFinished: Bool { read(bornFinished: true) { $0.machine.isFinished } }
    /// Whether the run has started (or ended); `false` while a debounced or throttled dispatch waits.
    var hasStarted: Bool { read(bornFinished: true) { $0.machine.phase != .notStarted } }

    /// The run as it stands now: a node that has not ended shows `nil` for its outcome.
    public var report: GraphReport {
        read(bornFinished: .bornFinished) { $0.machine.report(shape: GraphShape(storage)) }
    }

    /// Performs the steps the machine decided, in order, with the run's lock released; returns
    /// what the caller goes on with (a node handed on to its task, an item to apply).
    @discardableResult
    func perform(_ performable: StepsToPerform) -> NextForCaller {
        var next = NextForCaller.none
        for kind in performable.steps.kinds {
            switch kind {
            case .runCancelled, .attemptStarted, .nodeEnded, .runFinished: break  // the observers' steps
            case .awaitReducerInProgress: core.stateLock.withLock {}
            case .startTask: startTasks(performable.steps.startAsync)
            case .cancelTasks: for task in performable.tasks { task.cancel() }
            case .handOn: next = performable.steps.handedOn.map { .handOn($0) } ?? .none
            case .deliverEvents: core.deliverEvents()
            case .schedule: core.schedule(self)
            case .holdWaitersUntilPipelineExit: core.resumeAtPipelineExit(self)
            case .resume: resume(performable.steps.resumedWaiters)
            case .resumeCaller: break  // see `park`
            case .leaveRegistry: if let id = performable.registration { core.unregister(id) }
            case .apply:
                if case .apply(let item) = performable.steps.syncStep {
                    next = .apply(item, fallbackError: performable.steps.fallbackError, performable.observers)
                }
            case .yieldToQueuedWork: core.requeue(self)
            }
        }
        return next
    }

    /// Resumes `waiters`, behind the events queued so far when the run is observed.
    func resume(_ waiters: [ParkedWaiter], behindEvents: Bool) {
        if behindEvents {
            core.events.enqueue([.resume(waiters)])
            core.deliverEvents()
        } else {
            for waiter in waiters { waiter.resume() }
        }
    }
}
