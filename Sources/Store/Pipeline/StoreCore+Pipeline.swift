/// The store's pipeline, the shell around ``PipelineMachine``: every sync action, graph node,
/// fallback and subscriber's first call enters here, is applied by one thread at a time, and
/// leaves through `drainAndLeavePipeline()`, the one place where held waiters resume and events
/// recorded inside go out.
///
/// The machine is guarded by the store's state lock, held while it decides (and while a reducer
/// runs); middleware and subscribers run with no lock held. What can wait for what:
/// - `dispatch(_:)` from a thread while another thread applies waits until the pipeline is free,
///   then applies its action on its own thread (the contract: it returns after its action).
/// - A subscriber's first call waits the same way.
/// - A run's ready sync nodes never wait for another thread's work: when another thread applies,
///   that thread applies them. (Taking the lock may wait for a reducer call in progress, as reading
///   `state` does.)
extension StoreCore {
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
        let mark = pureCalls.thisThreadsMark
        if refusesDispatchFromPureCode("\(type(of: action))", "it was dropped", marked: mark.context) { return }
        let me = currentThreadID()
        stateLock.lock()
        var entry = pipeline.dispatch(action, admit: admit, on: me)
        if entry == .wait { entry = waitForPipeline(on: me) }
        switch entry {
        case .queued, .handedOff:
            stateLock.unlock()
        case .closed:
            stateLock.unlock()
            report(
                .dispatchAfterRelease,
                "\(type(of: action)) was dispatched after its store was released; it was dropped.")
        case .apply, .wait:
            guard !hasMiddleware else {
                stateLock.unlock()
                apply(action, admit: admit)
                drainAndLeavePipeline()
                return
            }
            // No middleware: enter, reduce and, with no subscriber, leave in one critical section.
            if reduce(action, admit: admit, marking: mark), hasSubscribers {
                notifyReleasingLock()
                drainAndLeavePipeline()
            } else {
                drainAndLeavePipelineHoldingLock()
            }
        }
    }

    /// The one check of every dispatch (an action, an async action, a graph) against pure code: when
    /// this thread runs a reducer or a graph's `make` or fallback closure, reports that `what` was
    /// dispatched from it and what became of it (`consequence`), and returns `true`: the caller
    /// drops the work (or cancels it). `false`, at the cost of one thread-local read, otherwise.
    @inlinable
    func refusesDispatchFromPureCode(_ what: @autoclosure () -> String, _ consequence: String) -> Bool {
        // Through the store's slot: `PureCall.current` reads the global key, with its once-check.
        refusesDispatchFromPureCode(what(), consequence, marked: pureCalls.thisThreadsMark.context)
    }

    /// `refusesDispatchFromPureCode(_:_:)`, with this thread's mark already read (`context`).
    @inlinable
    func refusesDispatchFromPureCode(
        _ what: @autoclosure () -> String, _ consequence: String, marked context: PureCall.Context?
    ) -> Bool {
        guard let context else { return false }
        reportImpureDispatch(what(), consequence, from: context)
        return true
    }

    @usableFromInline
    func reportImpureDispatch(_ what: String, _ consequence: String, from context: PureCall.Context) {
        report(
            .dispatchFromReducer,
            """
            \(what) was dispatched from \(context); \(consequence). Reducers and a graph's make and \
            fallback closures must be pure: dispatch from a middleware, a subscriber or an async action \
            instead.
            """)
    }

    /// Puts a run with ready sync nodes in the pipeline: applied now when the pipeline is free,
    /// after the current action when this thread applies, and otherwise by the thread that applies,
    /// before it leaves. Never waits for the applier (see the top of this file). The run's state
    /// machine asks for this once per stretch of ready work, and the run leaves the queue only when
    /// its machine says it is idle.
    func schedule(_ run: any PipelineRun) {
        let me = currentThreadID()
        let entry = stateLock.withLock { pipeline.schedule(run, on: me) }
        guard entry == .apply else { return }
        run.applySyncItems()
        drainAndLeavePipeline()
    }

    /// Whether a follow-up of the current action waits (a run yields to it). Called by a run inside
    /// the pipeline.
    var hasFollowUps: Bool { stateLock.withLock { pipeline.hasFollowUps } }

    /// Puts a run that yielded back in line, behind the follow-ups. Called by the run inside the
    /// pipeline.
    func requeue(_ run: any PipelineRun) {
        stateLock.withLock { pipeline.requeue(run) }
    }

    /// Feeds the machine the arrival of work on this thread; when it says wait, waits until the
    /// pipeline is free (or the store closed). Returns `.apply` (this thread applies now; `.wait`
    /// never comes back), `.queued`, `.handedOff` or `.closed`.
    func enterPipeline(
        _ arrive: (inout PipelineMachine<ThreadID>, ThreadID) -> PipelineMachine<ThreadID>.Arrival
    ) -> PipelineMachine<ThreadID>.Arrival {
        let me = currentThreadID()
        stateLock.lock()
        var entry = arrive(&pipeline, me)
        if entry == .wait { entry = waitForPipeline(on: me) }
        stateLock.unlock()
        return entry
    }

    /// Waits until the pipeline is free (or the store closed), with the state lock held; returns
    /// what the machine then says (never `.wait`).
    @usableFromInline
    func waitForPipeline(on me: ThreadID) -> PipelineMachine<ThreadID>.Arrival {
        // Never called inside a reducer of this store (its thread is the applier, which does not
        // wait), so the recursive lock is held once here and the wait releases it.
        var entry = PipelineMachine<ThreadID>.Arrival.wait
        while entry == .wait {
            pipelineFree.wait(releasing: stateLock)
            entry = pipeline.enterAfterWaiting(on: me)
        }
        return entry
    }

    /// The applier applies what is queued in the machine's order (follow-ups of the current action
    /// first, then runs other threads handed over), then leaves: the pipeline's one exit.
    @inlinable
    func drainAndLeavePipeline() {
        stateLock.lock()
        drainAndLeavePipelineHoldingLock()
    }

    /// `drainAndLeavePipeline()`, with the state lock held on entry; released on return.
    // Always inlined: its common case, nothing queued, is a few comparisons and the unlock.
    @inlinable @inline(__always)
    func drainAndLeavePipelineHoldingLock() {
        if pipeline.leaveIfFree() {
            stateLock.unlock()
        } else {
            drainQueuedWorkAndLeave()
        }
    }

    /// The applier's loop over queued work, with the state lock held on entry; released on return.
    /// Not inlined: most dispatches queue nothing, and leave at once.
    @inlinable @inline(never)
    func drainQueuedWorkAndLeave() {
        while true {
            switch pipeline.next() {
            case .apply(let work):
                stateLock.unlock()
                switch work {
                case .action(let action, let admit): apply(action, admit: admit)
                case .run(let run): run.applySyncItems()
                }
                stateLock.lock()
            case .free:
                stateLock.unlock()
                return
            case .leave(let exit):
                return leave(exit)
            }
        }
    }

    /// The exit's work, with the state lock held on entry: takes the waiters runs held (under
    /// the lock, so no new applier adds to them), wakes a waiting thread, releases the lock, then
    /// delivers the events recorded inside and resumes the waiters, those of an observed run behind
    /// its events.
    @usableFromInline
    func leave(_ exit: PipelineMachine<ThreadID>.Exit) {
        var held = SmallList<(run: any PipelineRun, waiters: ResumedWaiters)>()
        for run in exit.runsHoldingWaiters {
            let waiters = run.takeWaitersHeldForPipelineExit()
            if !waiters.numbers.isEmpty { held.append((run, waiters)) }
        }
        if exit.wakesWaitingThread { pipelineFree.signal() }
        stateLock.unlock()
        var observedWaiters: [ParkedWaiter] = []
        for (run, waiters) in held where waiters.isObserved { observedWaiters += run.continuations(of: waiters) }
        if !observedWaiters.isEmpty { events.enqueue([.resume(observedWaiters)]) }
        if exit.deliversEvents || !observedWaiters.isEmpty { events.deliver() }
        for (run, waiters) in held where !waiters.isObserved { run.resume(waiters) }
    }

    /// Whether this thread is applying actions (a subscriber, a middleware, a graph's sync node).
    /// Called with no other lock of the store held.
    var isInsidePipeline: Bool {
        let me = currentThreadID()
        return stateLock.withLock { pipeline.isApplying(on: me) }
    }

    /// Delivers the queued events, or, when this thread is inside the pipeline (applying an action:
    /// a subscriber, a middleware, a graph's sync node), leaves them for the pipeline's exit, so
    /// that no observer runs inside the pipeline. Called with no other lock of the store held.
    func deliverEvents() {
        let me = currentThreadID()
        if stateLock.withLock({ pipeline.deferEvents(on: me) }) { return }
        events.deliver()
    }

    /// `run` holds waiters of nodes it finished inside the pipeline: it gives them up when this
    /// thread leaves the pipeline, after everything queued meanwhile (what subscribers and
    /// middleware dispatched in answer to those nodes) is applied. Called inside the pipeline.
    func resumeAtPipelineExit(_ run: any PipelineRun) {
        stateLock.withLock { pipeline.holdWaiters(of: run) }
    }
}
