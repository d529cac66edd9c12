#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One execution of an ``ActionGraph`` in a store: await its nodes, read its report, or cancel it.
///
/// A run starts when the graph is dispatched and ends when every node is terminal (succeeded, failed,
/// skipped or cancelled) and every fallback was applied. It always ends: a failure skips what
/// depended on it, and ``cancel()`` ends every node that has not finished at once. Dropping the run
/// does not stop it.
///
/// Thread-safe: every method may be called from any thread or task.
public final class GraphRun<State: Sendable>: ReadySyncWork, @unchecked Sendable {
    // Why this is safe to share: `machine`, `workers`, `nodeWaiters`, `finishWaiters` and `registration` are read and
    // written only under `lock` (hence also `@exclusivity(unchecked)`: the lock already serializes
    // them); `responses` slots are each written once under `lock` before their node is marked
    // succeeded, and read only after (see `NodeInputs`); everything else is immutable.

    let core: StoreCore<State>
    let graph: ActionGraph<State>
    /// The graph's non-generic parts, read per node without the graph's generic metadata.
    private let storage: GraphStorage
    private let settings: [Int: NodeSettings]
    /// Recursive, so that code the run calls while holding it (a reducer, in a batch of sync nodes)
    /// can still read the run instead of deadlocking.
    private let lock = Lock(recursive: true)
    @exclusivity(unchecked) private var machine: RunStateMachine
    /// One slot per node, or `nil` for a graph of sync nodes only (their responses are all `Void`).
    private let responses: UnsafeMutablePointer<ResponseSlot>?
    /// The task of each async worker in flight, by the node it started with; empty until the first
    /// async node starts (see `startWorker`).
    @exclusivity(unchecked) private var workers: [WorkerSlot] = []
    @exclusivity(unchecked) private var nodeWaiters: [Int: [CheckedContinuation<Void, Never>]] = [:]
    @exclusivity(unchecked) private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    @exclusivity(unchecked) private var registration: UInt64?
    private let startTime: Int64

    /// The most sync nodes a batch applies while holding the state lock (see `applyBatch`): enough to
    /// spread the locking over many nodes, few enough that a reader of `state` never waits long.
    private static var batchSize: Int { 128 }

    init(core: StoreCore<State>, graph: ActionGraph<State>) {
        self.core = core
        self.graph = graph
        self.storage = graph.storage
        self.settings = graph.settings
        self.machine = RunStateMachine(
            nodes: graph.storage.nodes, prerequisites: graph.storage.prerequisites,
            nodesWithFallback: Set(graph.settings.compactMap { $0.value.fallback == nil ? nil : $0.key }))
        if machine.hasAsyncNodes {
            let responses = UnsafeMutablePointer<ResponseSlot>.allocate(capacity: graph.count)
            responses.initialize(repeating: nil, count: graph.count)
            self.responses = responses
        } else {
            self.responses = nil
        }
        self.startTime = monotonicNanoseconds()
    }

    deinit {
        machine.deallocate()
        if let responses {
            responses.deinitialize(count: graph.count)
            responses.deallocate()
        }
    }

    @inline(__always)
    private func now() -> Int64 {
        monotonicNanoseconds() - startTime
    }

    func start() {
        let id = core.register { [weak self] in self?.cancel() }
        guard let id else {
            cancel()
            return
        }
        var effects = RunStateMachine.Effects()
        lock.withLock {
            registration = id
            machine.start(problems: graph.nodeProblems, now: now(), &effects)
        }
        perform(effects)
    }

    // MARK: Public

    /// Cancels the run: async nodes in flight get task cancellation and, like every node that has not
    /// started, end `.cancelled` at once; no fallback is sent after this. A sync node being applied at
    /// this moment completes. State already committed stays committed. Calling it again does nothing.
    public func cancel() {
        var effects = RunStateMachine.Effects()
        let (inFlight, waiters) = lock.withLock {
            machine.cancel(now: now(), &effects)
            defer { workers.removeAll() }
            return (workers.compactMap(\.task), takeTerminalWaiters())
        }
        for task in inFlight { task.cancel() }
        for waiter in waiters { waiter.resume() }
        perform(effects)
    }

    /// The response of `node`, once it is terminal.
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

    /// How `node` ended, once it is terminal. A node of another graph answers
    /// `.failed(GraphError.foreignNode(index:))` at once.
    public func outcome<R>(of node: Node<R>) async -> Outcome<R> {
        guard graph.owns(node) else { return .failed(GraphError.foreignNode(index: node.index)) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let terminal = lock.withLock {
                if machine.status(of: node.index).isTerminal { return true }
                nodeWaiters[node.index, default: []].append(continuation)
                return false
            }
            if terminal { continuation.resume() }
        }
        return lock.withLock { outcomeLocked(node) }
    }

    /// Waits until every node is terminal and every fallback was applied, then reports the run.
    /// Always returns. Cancelling the task that waits does not cancel the run (call ``cancel()``).
    @discardableResult
    public func wait() async -> GraphReport {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = lock.withLock {
                if machine.isFinished { return true }
                finishWaiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
        return report
    }

    /// Whether every node is terminal and every fallback was applied.
    public var isFinished: Bool { lock.withLock { machine.isFinished } }

    /// The run as it stands now: a node that has not ended shows `nil` for its outcome.
    public var report: GraphReport {
        lock.withLock {
            let nodes = machine.reportStates
            return GraphReport(graph: graph, nodes: nodes, errors: machine.errors,
                               retriedAttempts: machine.retriedAttempts,
                               finishedAt: machine.isFinished ? nodes.reduce(0) { Swift.max($0, $1.end) } : nil)
        }
    }

    private func outcomeLocked<R>(_ node: Node<R>) -> Outcome<R> {
        switch machine.status(of: node.index) {
        case .succeeded: return .succeeded(unwrapResponse(responses?[node.index] ?? nil))
        case .failed: return .failed(machine.errors[node.index] ?? GraphError.skipped)
        case .skipped: return .skipped
        case .cancelled: return .cancelled
        case .waiting, .ready, .running: preconditionFailure("OresRedux: outcome read before node #\(node.index) ended")
        }
    }

    // MARK: Sync nodes (called by the store's pipeline, with its lock held)

    /// Applies ready sync work until none is left, or until the store has other work queued (then
    /// returns `true`: the store puts this run back in line after that work).
    @usableFromInline
    func applyReadySyncNodes() -> Bool {
        lock.lock()
        if !core.hasMiddleware {
            core.stateLock.lock()
            if core.subscriberCount == 0 { return applyBatch() }
            core.stateLock.unlock()
        }
        return applyOneByOne()
    }

    /// The lane for a store where nothing can watch the state between two actions (no middleware,
    /// no subscriber): up to ``batchSize`` items go straight to the reducer with the run's lock and
    /// the state lock held once for all of them. Entered with both locks held; releases them.
    private func applyBatch() -> Bool {
        // Nothing applied here can queue work in the store (a reducer may not dispatch), so work
        // already queued is the only reason to stop early, and it is known now.
        let limit = core.pending.isEmpty ? Self.batchSize : 1
        var effects = RunStateMachine.Effects()
        // Every node of the batch starts when it starts and ends when it ends (`endBatch`).
        let start = now()
        let position = machine.readPosition
        core.isReducing = true
        reduceBatch(storage.actions, limit: limit, now: start, &effects)
        core.isReducing = false
        core.stateLock.unlock()
        machine.endBatch(since: position, at: now())
        let more = machine.hasReadySync
        let waiters = takeTerminalWaiters()
        lock.unlock()
        for waiter in waiters { waiter.resume() }
        perform(effects)
        return more
    }

    /// Pops and applies up to `limit` items; the body of `applyBatch`. `actions` comes in as an
    /// argument because the reducer can then read an action where it is stored: from the stored
    /// property, the compiler copies it out first. Not inlined, which would bring the copy back.
    @inline(never)
    private func reduceBatch(_ actions: [any Action], limit: Int, now: Int64, _ effects: inout RunStateMachine.Effects) {
        var applied = 0
        while applied < limit, let item = machine.popSync(now: now) {
            applied += 1
            if item >= 0 {
                let node = Int(item)
                let slot = storage.nodes[node].bodySlot
                if BodySlot.isAction(slot) {
                    core.reducer.reduce(&core.state, actions[Int(slot)])
                } else {
                    core.reducer.reduce(&core.state, syncAction(of: node))
                }
                machine.syncApplied(node, now: now, &effects)
            } else {
                let node = Int(~item)
                if let fallback = settings[node]?.fallback, let error = machine.errors[node] {
                    core.reducer.reduce(&core.state, fallback(error))
                }
                machine.fallbackApplied(&effects)
            }
        }
    }

    /// The lane for a store with middleware or subscribers: each item goes through the whole pipeline
    /// with the run's lock released, since that code may do anything with the run. Entered with the
    /// run's lock held; releases it.
    private func applyOneByOne() -> Bool {
        var item = machine.popSync(now: now())
        while let current = item {
            lock.unlock()
            if current >= 0 {
                core.apply(syncAction(of: Int(current)))
            } else if let fallback = settings[Int(~current)]?.fallback,
                      let error = lock.withLock({ machine.errors[Int(~current)] }) {
                core.apply(fallback(error))
            }
            var effects = RunStateMachine.Effects()
            lock.lock()
            let time = now()
            if current >= 0 {
                machine.syncApplied(Int(current), now: time, &effects)
            } else {
                machine.fallbackApplied(&effects)
            }
            // Work this item queued (from a subscriber or middleware) goes first: yield to it.
            item = core.pending.isEmpty ? machine.popSync(now: time) : nil
            let waiters = takeTerminalWaiters()
            lock.unlock()
            for waiter in waiters { waiter.resume() }
            perform(effects)
            lock.lock()
        }
        let more = machine.hasReadySync
        lock.unlock()
        return more
    }

    private func syncAction(of node: Int) -> any Action {
        switch storage.body(at: node) {
        case .action(let action): return action
        case .makeAction(let make, _): return make(NodeInputs(slots: responses))
        case .async, .delay, .join: preconditionFailure("OresRedux: node #\(node) is not a sync node")
        }
    }

    // MARK: Async nodes

    /// Runs each node on a new task; each task then goes on with async work its nodes release (see
    /// `runWorker`), so a chain of async nodes takes one task, not one per node. The tasks are
    /// recorded for `cancel()` under one lock, however many start together.
    private func startWorkers(_ first: Int, _ more: [Int]) {
        let task = Task { await self.runWorker(from: first) }
        let tasks = more.map { node in Task { await self.runWorker(from: node) } }
        let cancelNow = lock.withLock {
            if workers.isEmpty { workers = Array(repeating: .idle, count: storage.count) }
            recordLocked(task, for: first)
            for (node, task) in zip(more, tasks) { recordLocked(task, for: node) }
            return machine.isCancelled
        }
        if cancelNow {
            task.cancel()
            for task in tasks { task.cancel() }
        }
    }

    private func recordLocked(_ task: Task<Void, Never>, for worker: Int) {
        if case .ended = workers[worker] { workers[worker] = .idle } else { workers[worker] = .running(task) }
    }

    /// A worker: runs `first`, then each node that a finished node released and handed to it.
    ///
    /// Kept small (its locals live in the task's allocator): the bookkeeping is in synchronous
    /// helpers, and attempts with a timeout or retry policy in their own function.
    private func runWorker(from first: Int) async {
        var node = first
        // A run cancelled between this node's release and now must not start its work at all.
        guard lock.withLock({ beginLocked(node, worker: first) }) else { return }
        while true {
            let result: Result<ResponseSlot, any Error>
            var attempts = 1
            if settings.isEmpty || !hasAttemptSettings(node) {
                do { result = .success(try await attempt(node)) } catch { result = .failure(error) }
            } else {
                (result, attempts) = await attemptWithSettings(node)
            }
            let next = finishAsync(node, worker: first, result, attempts: attempts)
            guard next.node >= 0 else { return }
            node = next.node
            if next.isRecorded {
                // `cancel()` cancels this task before it returns, so this check cannot miss one that
                // returned already. The node was marked cancelled with the rest; nothing to record.
                if Task.isCancelled { return }
            } else {
                guard lock.withLock({ beginLocked(node, worker: first) }) else { return }
            }
        }
    }

    /// Whether `node` may start (it is still running, so not cancelled); if not, the worker ends.
    private func beginLocked(_ node: Int, worker: Int) -> Bool {
        if machine.status(of: node) == .running { return true }
        endWorkerLocked(worker)
        return false
    }

    private func hasAttemptSettings(_ node: Int) -> Bool {
        guard let settings = settings[node] else { return false }
        return settings.timeout != nil || settings.retry != nil
    }

    /// Records how `node` ended; returns the node this worker runs next (-1: it ends), and whether
    /// its task is recorded for `cancel()`.
    private func finishAsync(_ node: Int, worker: Int, _ result: Result<ResponseSlot, any Error>,
                             attempts: Int) -> (node: Int, isRecorded: Bool) {
        var effects = RunStateMachine.Effects()
        lock.lock()
        var error: (any Error)?
        switch result {
        case .success(let response):
            if machine.status(of: node) == .running { responses![node] = response }
        case .failure(let failure):
            error = failure
        }
        machine.asyncFinished(node, error: error, attempts: attempts, now: now(), &effects)
        let next = effects.takeAsync()
        var isRecorded = false
        if next < 0 {
            endWorkerLocked(worker)
        } else if !workers.isEmpty, case .running = workers[worker] {
            isRecorded = true
        }
        let waiters = takeTerminalWaiters()
        lock.unlock()
        // Effects first: the sync nodes this node released reach the state before anyone awaiting
        // this node resumes (unless this thread is already inside the store's pipeline).
        perform(effects)
        for waiter in waiters { waiter.resume() }
        return (next, isRecorded)
    }

    /// Forgets a worker that ends (under the lock).
    private func endWorkerLocked(_ worker: Int) {
        if machine.isCancelled { return }     // `cancel()` took every task already
        if workers.isEmpty { workers = Array(repeating: .idle, count: storage.count) }
        if case .running = workers[worker] { workers[worker] = .idle } else { workers[worker] = .ended }
    }

    /// One attempt of an async, delay or join node, run right here.
    private func attempt(_ node: Int) async throws -> ResponseSlot {
        switch storage.body(at: node) {
        case .async(let start, _):
            return try await start(NodeInputs(slots: responses), core).attempt()
        case .delay(let duration):
            try await core.options.clock.sleep(for: duration)
            return nil
        case .join(let wait, _):
            return try await wait(core)
        case .action, .makeAction:
            preconditionFailure("OresRedux: node #\(node) is not an async node")
        }
    }

    /// The attempts of a node with a timeout or a retry policy. The action is built once.
    private func attemptWithSettings(_ node: Int) async -> (Result<ResponseSlot, any Error>, attempts: Int) {
        let settings = settings[node]
        let operation: @Sendable () async throws -> ResponseSlot
        switch storage.body(at: node) {
        case .async(let start, _):
            operation = start(NodeInputs(slots: responses), core).attempt
        case .delay(let duration):
            let clock = core.options.clock
            operation = {
                try await clock.sleep(for: duration)
                return nil
            }
        case .join(let wait, _):
            let core: any AnyStoreCore = self.core
            operation = { try await wait(core) }
        case .action, .makeAction:
            preconditionFailure("OresRedux: node #\(node) is not an async node")
        }
        return await Attempts.run(operation, timeout: settings?.timeout, retry: settings?.retry ?? .never,
                                  clock: core.options.clock)
    }

    // MARK: Effects

    private func perform(_ effects: RunStateMachine.Effects) {
        if effects.firstAsync >= 0 { startWorkers(effects.firstAsync, effects.moreAsync) }
        if effects.scheduleSync { core.schedule(self) }
        if effects.finished {
            let (waiters, id) = lock.withLock {
                defer { finishWaiters.removeAll() }
                return (finishWaiters + takeTerminalWaiters(), registration)
            }
            if let id { core.unregister(id) }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Removes and returns the waiters of nodes that are terminal now. Cheap when nobody waits.
    private func takeTerminalWaiters() -> [CheckedContinuation<Void, Never>] {
        guard !nodeWaiters.isEmpty else { return [] }
        var ready: [CheckedContinuation<Void, Never>] = []
        for (node, waiters) in nodeWaiters where machine.status(of: node).isTerminal {
            ready += waiters
            nodeWaiters[node] = nil
        }
        return ready
    }
}

/// An async worker's task, by the node it started with.
/// Not nested in the generic ``GraphRun``: a nested type would be generic too, and every use would
/// look up its metadata.
enum WorkerSlot {
    case idle
    case running(Task<Void, Never>)
    /// The worker ended before its task was recorded: nothing to record or cancel.
    case ended

    var task: Task<Void, Never>? {
        if case .running(let task) = self { task } else { nil }
    }
}

extension StoreCore {
    func dispatchGraph(_ graph: ActionGraph<State>) -> GraphRun<State> {
        let run = GraphRun(core: self, graph: graph)
        run.start()
        return run
    }
}

/// Nanoseconds on a clock that never jumps, for node start and end times.
@inline(__always)
func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
