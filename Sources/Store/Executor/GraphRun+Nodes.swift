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

    /// Runs each of `nodes` (async, delay or join nodes) on a task of its own, recorded so that
    /// `cancel()` reaches it. A task may go on with async nodes that its node's end releases (see
    /// `runAsync`).
    ///
    /// The tasks are recorded together, in one locked section after the last one started: nodes
    /// started at once (a fan) would otherwise take the run's lock once each while the tasks
    /// already running take it for their own events.
    func startTasks(_ nodes: SmallList<Int>) {
        var started = SmallList<(node: Int, task: Task<Void, Never>)>()
        for node in nodes {
            let unit = time.workCounter?.begin(unitName(of: node))
            started.append((node, Task { await self.runAsyncNodes(from: node, as: unit) }))
        }
        let refused = state.withLock { state in
            if state.tasks.isEmpty { state.tasks = Array(filledWith: nil, count: state.machine.count) }
            var refused = SmallList<Task<Void, Never>>()
            for (node, task) in started {
                if state.machine.mayRun(node) { state.tasks[node] = task } else { refused.append(task) }
            }
            return refused
        }
        for task in refused { task.cancel() }
    }

    private func unitName(of node: Int) -> String {
        "\(storage.label(of: node)) (node #\(node)) of a run"
    }

    /// A task's whole body: runs `first`, then each node that the one before handed on, one after
    /// the other, each counted as a unit of its own (a test store's count of its work).
    private func runAsyncNodes(from first: Int, as firstUnit: WorkCounter.Unit?) async {
        var next: (node: Int, unit: WorkCounter.Unit?)? = (first, firstUnit)
        while let (node, unit) = next {
            if let unit {
                next = await runCounted(node, as: unit)
            } else {
                next = await runAsync(node, as: nil)
            }
        }
    }

    /// `runAsync` counted as `unit`: apart from the loop, which runs uncounted nodes (any store but
    /// a test store's) with no closure and one async frame fewer.
    @inline(never)
    private func runCounted(_ node: Int, as unit: WorkCounter.Unit) async -> (node: Int, unit: WorkCounter.Unit?)? {
        await WorkCounter.run(unit) { await self.runAsync(node, as: unit) }
    }

    /// Runs `node`'s attempts and reports its end; returns an async node that the end released for
    /// this task to run next, with its unit begun (while this node's still counts, so that the
    /// store never looks quiet in between), or `nil` when the task is done.
    ///
    /// Whether the node may still run (the run was not cancelled) is asked by its first attempt's
    /// start, in the same locked section: a node refused there makes no attempt, and its end is
    /// ignored by the machine. Only a `make` node asks before, so that a cancelled node's `make`
    /// closure is never called (see `mayRun(_:)`).
    @inline(__always)  // into the task's loop: one async frame fewer between the loop and `run`
    private func runAsync(_ node: Int, as unit: WorkCounter.Unit?) async -> (node: Int, unit: WorkCounter.Unit?)? {
        // What comes before and after the attempts is in sync functions, never inlined: the task
        // keeps this frame while the node's action runs, and every local of an async function
        // (an inlined function's included) takes room in it.
        unit?.note("started its attempts")
        let result: Result<ResponseSlot, any Error>
        if let body = makeAsyncBody(of: node) {
            result = await body(AsyncNodeStart(run: self, node: node))
        } else {
            result = await storedAttempts(node)
        }
        unit?.note("ended its attempts")
        return asyncFinished(node, consume result)
    }

    /// The body of an async node whose action is built when it starts; `nil` for the other async
    /// nodes, which the graph stores as they are: an action, a delay, a join.
    @inline(never)  // see `runAsync`
    private func makeAsyncBody(of node: Int) -> (@Sendable (AsyncNodeStart) async -> Result<ResponseSlot, any Error>)? {
        if case .async(.make(let body, _)) = storage.bodies[node] { body } else { nil }
    }

    /// Whether `node`, whose task is about to run it, may still run (the run was not cancelled):
    /// asked before a `make` closure, which is user code and must not run for a cancelled node.
    /// Its attempt's start asks again after it.
    func mayRun(_ node: Int) -> Bool {
        state.withLock { $0.machine.mayRun(node) }
    }

    /// The responses of `node`'s prerequisites, for its `make` closure.
    func inputs(of node: Int) -> NodeInputs {
        NodeInputs(prerequisites: storage.prerequisites(of: node), run: state)
    }

    /// The attempts of `action`, the action of the async node that `start` starts, with a context
    /// of the store or scope the graph was dispatched to. A node with no timeout, retry policy or
    /// journal whose action is not keyed, in a store that stubs no action (the common case), makes
    /// its one attempt here, as `Attempts.run` makes an attempt with no timeout or retry: one async
    /// call, the action's `run`, and no closure made for it.
    @inline(__always)  // into the node's body: one async frame fewer between the task's loop and `run`
    func attempts<A: AsyncAction>(
        of action: A, _ start: AsyncNodeStart, _ keyedCheck: KeyedActionCheck
    ) async -> Result<ResponseSlot, any Error> where A.State == State {
        if !isCommon(start.node, keyedCheck), let operation = operation(of: action, node: start.node, keyedCheck) {
            return await attempts(of: operation, start)
        }
        do {
            // No check of the task's cancellation first: the shell cancels a node's task only once
            // the machine ended the node, and then the attempt's start refuses it.
            guard startAttempt(of: start.node) else { throw CancellationError() }
            return .success(wrapResponse(try await action.run(context(of: start.node))))
        } catch {
            return .failure(error)
        }
    }

    /// Whether `node` is a common node, known without building anything: no settings, an action
    /// type that is never keyed, a store that stubs nothing. (A class's value may still turn out
    /// not to be keyed: `operation` decides for it.)
    private func isCommon(_ node: Int, _ keyedCheck: KeyedActionCheck) -> Bool {
        keyedCheck == .never && !time.hasInterceptor && !storage.hasSettings(node)
    }

    /// One attempt of `action` as an operation for `Attempts.run` (journaled when the run is
    /// durable and the node is), for a node whose attempts are keyed (they join a call in flight
    /// with the same key), timed, retried, journaled or stubbed (a test store's); `nil` for the
    /// common node, which has none of these.
    @inline(never)  // see `runAsync`
    private func operation<A: AsyncAction>(
        of action: A, node: Int, _ keyedCheck: KeyedActionCheck
    ) -> (@Sendable (Int) async throws -> ResponseSlot)? where A.State == State {
        let settings = storage.settings[node]
        let keyed = keyedCheck.keyed(action)
        // A class's value that is not keyed, in a node with no settings and a store that stubs
        // nothing, is a common node after all: nothing is built for it.
        guard keyed != nil || settings != nil || time.interceptor != nil else { return nil }
        let journal = settings?.durable.flatMap { codec in self.journal.map { ($0, codec) } }
        let idempotencyKey = journal?.0.key(of: node)
        let operation: @Sendable (Int) async throws -> ResponseSlot
        if let keyed {
            let context = context(of: node, idempotencyKey: idempotencyKey)
            // Join a call in flight with the same key instead of calling `run` again.
            let key = SharedCallKey(actionType: ObjectIdentifier(A.self), key: AnyHashable(keyed.key))
            operation = { [backend] _ in
                let task = backend.dispatchShared(action, key: key, context: context)
                return try await withTaskCancellationHandler {
                    wrapResponse(try await task.value)
                } onCancel: {
                    task.cancel()
                }
            }
        } else if settings?.timeout != nil || settings?.retry != nil || journal != nil || time.interceptor != nil {
            // A context per attempt: one that timed out and ignored it must not answer after its retry.
            operation = { [interceptor = time.interceptor, state, backend] attempt in
                let gate = NodeGate(run: state, node: node, attempt: attempt)
                let context = ActionContext(backend: backend, gate: .node(gate), idempotencyKey: idempotencyKey)
                return wrapResponse(try await performAttempt(of: action, context: context, interceptor: interceptor))
            }
        } else {
            return nil
        }
        guard let (journal, codec) = journal else { return operation }
        return journal.journaled(operation, node: node, codec: codec)
    }

    /// The context of `node`'s action: the store or scope the graph was dispatched to, closed to
    /// the action's dispatches once the node was cancelled.
    private func context(of node: Int, idempotencyKey: IdempotencyKey? = nil) -> ActionContext<State> {
        ActionContext(backend: backend, gate: .node(NodeGate(run: state, node: node)), idempotencyKey: idempotencyKey)
    }

    /// Right before the one attempt of a common node: whether it may start (the run was not cancelled).
    @inline(never)  // see `runAsync`
    private func startAttempt(of node: Int) -> Bool {
        state.startAttempt(of: node, host: core, sinceCreation: sinceCreation) != nil
    }

    private func budget(_ node: Int) -> RunAttempts {
        RunAttempts(state: state, node: node, host: core, sinceCreation: sinceCreation)
    }

    /// The attempts of `operation`, node `start.node`'s, each within the node's timeout, retried by
    /// its policy.
    @inline(never)  // see `runAsync`
    private func attempts(
        of operation: @escaping @Sendable (Int) async throws -> ResponseSlot, _ start: AsyncNodeStart
    ) async -> Result<ResponseSlot, any Error> {
        let settings = storage.settings[start.node]
        let plan = AttemptPlan(
            operation: operation, budget: budget(start.node),
            timeout: settings?.timeout, retry: settings?.retry)
        return await Attempts.run(plan, clock: clock)
    }

    /// The attempts of `node`, an async action the graph stores as it is, a delay or a join.
    @inline(never)  // see `runAsync`
    private func storedAttempts(_ node: Int) async -> Result<ResponseSlot, any Error> {
        let operation: @Sendable (Int) async throws -> ResponseSlot
        switch storage.bodies[node] {
        case .async(.action(let action, let keyedCheck)):
            return await action.attempts(asNodeOf: AsyncNodeStart(run: self, node: node), keyedCheck)
        case .delay(let duration):
            operation = { [clock] _ in
                try await clock.sleep(for: duration)
                return nil
            }
        case .join(let wait, _):
            // The host store, not the run: a join that never ends must not keep its run alive.
            operation = { [core] _ in try await Attempts.untilCancelled { try await wait(core) } }
        case .action, .makeAction, .async(.make):
            preconditionFailure("OresRedux: node #\(node) is not stored as it is")
        }
        return await attempts(of: operation, AsyncNodeStart(run: self, node: node))
    }

    /// Reports the end of `node`'s attempts; returns the node the machine handed on to this task,
    /// with its unit begun.
    @inline(never)  // see `runAsync`
    private func asyncFinished(
        _ node: Int, _ result: consuming Result<ResponseSlot, any Error>
    ) -> (node: Int, unit: WorkCounter.Unit?)? {
        let now = elapsed()
        // Taken, not read, inside the lock's closure (which cannot consume what it captures): the
        // answer moves into the event rather than being copied through its value witnesses.
        var answer = Optional(result)
        let next = perform(
            state.withLock {
                $0.handle(
                    .asyncFinished(node: node, answer.take()!, now: now, handsOn: $0.holdsTask(of: node)),
                    finishedTask: node)
            })
        guard case .handOn(let next) = next else { return nil }
        return (next, time.workCounter?.begin(unitName(of: next)))
    }
}

extension AsyncAction {
    /// This action's attempts as the async node that `start` starts, in its run cast back to the
    /// run of this action's state (the node stores the action as an `any AsyncAction`).
    @inline(__always)  // into `storedAttempts`: one async frame fewer between the task's loop and `run`
    fileprivate func attempts(
        asNodeOf start: AsyncNodeStart, _ keyedCheck: KeyedActionCheck
    ) async -> Result<ResponseSlot, any Error> {
        await ActionGraph<State>.run(start.run).attempts(of: self, start, keyedCheck)
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
    func takeWaitersHeldForPipelineExit() -> ResumedWaiters {
        state.withLock { ResumedWaiters(numbers: $0.machine.pipelineLeft(), isObserved: $0.machine.isObserved) }
    }

    @usableFromInline
    func continuations(of held: ResumedWaiters) -> [ParkedWaiter] {
        state.withLock { $0.waiters.take(held.numbers) }
    }

    /// Resumes `waiters`, one at a time (see ``ResumedWaiters``); an observed run's behind the
    /// events queued so far.
    @usableFromInline
    func resume(_ waiters: ResumedWaiters) {
        guard !waiters.isObserved else { return resume(continuations(of: waiters), behindEvents: true) }
        for number in waiters.numbers { state.withLock { $0.waiters.take(number) }?.resume() }
    }
}
