/// The nodes' side of a run's shell: the pipeline applies its sync items here, and each async
/// node's task runs its attempts here. Every decision is the machine's (see `GraphRun`).
extension GraphRun {
    // MARK: Sync nodes (called by the store's pipeline, on the thread that applies its work)

    /// Applies this run's ready sync items one by one through the pipeline, until the machine says
    /// it has none left or that work the store has queued goes first (the run goes back in line
    /// behind it, still scheduled).
    @usableFromInline
    func applySyncItems() {
        let now = elapsed()
        var next = perform(state.withLock { $0.handle(.takeSyncItem(now: now)) })
        while case .apply(let item, let fallbackError, let observers) = next {
            if let action = action(for: item, fallbackError: fallbackError) {
                let admit: (@Sendable () -> Bool)? =
                    if case .fallback = item { { [state] in state.withLock { $0.machine.mayApplyFallback } } } else {
                        nil
                    }
                if observers.isEmpty {
                    core.apply(action, admit: admit)
                } else {
                    observers.apply(item, on: core) { core.apply(action, admit: admit) }
                }
            }
            let (now, queuedWork) = (elapsed(), core.hasFollowUps)
            next = perform(
                state.withLock {
                    $0.handle(.syncItemApplied(item, now: now, queuedWork: queuedWork), insidePipeline: true)
                })
        }
    }

    /// The action to apply for `item`, built outside the run's lock: a `make` or fallback closure is
    /// user code. The cancel action is a value, built with the graph: no user code. A fallback's
    /// error is the machine's, handed over with the item.
    private func action(for item: RunStateMachine.SyncItem, fallbackError: (any Error)?) -> (any Action)? {
        switch item {
        case .node(let node):
            switch storage.bodies[node] {
            case .action(let action):
                return action
            case .makeAction(let make, _):
                let inputs = NodeInputs(prerequisites: storage.prerequisites(of: node), run: state)
                return PureCall.run(.makeClosure) { make(inputs, self) }
            case .async, .delay, .join:
                preconditionFailure("OresRedux: node #\(node) is not a sync node")
            }
        case .fallback(let node):
            // The machine queues a fallback only for a node that has one (its `nodesWithFallback`
            // come from these settings) and hands over the error the node failed with.
            guard let error = fallbackError, let fallback = storage.settings[node]?.fallback
            else { preconditionFailure("OresRedux: node #\(node)'s fallback was queued with nothing to apply") }
            return PureCall.run(.fallbackClosure) { fallback(error) }
        case .cancelAction:
            return storage.hooks?.cancelAction
        }
    }

    // MARK: Async nodes

    /// Runs an async, delay or join node on a task of its own, recorded so that `cancel()` reaches it.
    /// The task may go on with async nodes that the node's end releases (see `runAsync`).
    func startTask(_ node: Int) {
        let unit = workCounter?.begin(unitName(of: node))
        let task = Task { await self.runAsyncNodes(from: node, as: unit) }
        let cancelNow = state.withLock { state in
            guard state.machine.mayRun(node) else { return true }
            if state.tasks.isEmpty { state.tasks = Array(repeating: nil, count: state.machine.count) }
            state.tasks[node] = task
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

    /// Runs `node`'s attempts and reports its end; returns an async node that the end released for
    /// this task to run next, with its unit begun (while this node's still counts, so that the
    /// store never looks quiet in between), or `nil` when the task is done.
    private func runAsync(_ node: Int, as unit: WorkCounter.Unit?) async -> (node: Int, unit: WorkCounter.Unit?)? {
        // What comes before and after the attempts is in sync functions, never inlined: the task
        // keeps this frame while the node's action runs, and every local of an async function
        // (an inlined function's included) takes room in it.
        guard let isObserved = isObservedIfItMayRun(node) else { return nil }
        let plan = attemptPlan(of: node, isObserved: isObserved)
        unit?.note("started its attempts")
        let result = await Attempts.run(plan, clock: clock)
        unit?.note("ended its attempts")
        return asyncFinished(node, result)
    }

    /// Whether the run is observed, read in the same look as whether `node` may still run; `nil`
    /// when it may not (the run was cancelled).
    @inline(never)  // see `runAsync`
    private func isObservedIfItMayRun(_ node: Int) -> Bool? {
        state.withLock { state in state.machine.mayRun(node) ? state.machine.isObserved : nil }
    }

    /// `node`'s attempts; an observed run's read the time each attempt starts.
    @inline(never)  // see `runAsync`
    private func attemptPlan(of node: Int, isObserved: Bool) -> AttemptPlan<ResponseSlot, RunAttempts> {
        let inputs = NodeInputs(prerequisites: storage.prerequisites(of: node), run: state)
        return AttemptPlan(
            node: node, of: storage, inputs: inputs, run: self, host: core, clock: clock, journal: journal,
            budget: RunAttempts(state: state, node: node, host: core, sinceCreation: isObserved ? sinceCreation : nil))
    }

    /// Reports the end of `node`'s attempts; returns the node the machine handed on to this task,
    /// with its unit begun.
    @inline(never)  // see `runAsync`
    private func asyncFinished(
        _ node: Int, _ result: Result<ResponseSlot, any Error>
    ) -> (node: Int, unit: WorkCounter.Unit?)? {
        let now = elapsed()
        let next = perform(
            state.withLock {
                $0.handle(
                    .asyncFinished(node: node, result, now: now, handsOn: $0.holdsTask(of: node)), finishedTask: node)
            })
        guard case .handOn(let next) = next else { return nil }
        return (next, workCounter?.begin(unitName(of: next)))
    }
}

/// What the caller of `GraphRun.perform` goes on with (not nested: see `RunLockedState`).
enum NextForCaller {
    case none
    /// The async node the machine handed on to the task that ended a node.
    case handOn(Int)
    /// The sync item the pipeline applies next (with its node's error when it is a fallback).
    case apply(RunStateMachine.SyncItem, fallbackError: (any Error)?, [any RunObserver])
}

extension GraphRun: PipelineRun {
    @usableFromInline
    func takeWaitersHeldForPipelineExit() -> (waiters: [ParkedWaiter], isObserved: Bool) {
        state.withLock { ($0.takeHeldWaiters(), $0.machine.isObserved) }
    }
}
