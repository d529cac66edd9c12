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
    // Why this is safe to share: `machine`, `tasks`, `nodeWaiters`, `finishWaiters` and `registration` are read and
    // written only under `lock` (hence also `@exclusivity(unchecked)`: the lock already serializes
    // them); `responses` slots are each written once under `lock` before their node is marked
    // succeeded, and read only after (see `NodeInputs`); everything else is immutable.

    let core: StoreCore<State>
    let graph: ActionGraph<State>
    /// The graph's non-generic parts, read per node without the graph's generic metadata.
    private let bodies: [NodeBody]
    private let settings: [Int: NodeSettings]
    private let lock = Lock()
    @exclusivity(unchecked) private var machine: RunStateMachine
    private let responses: UnsafeMutablePointer<ResponseSlot>
    /// The task of each async node in flight, by node; empty until the first async node starts.
    @exclusivity(unchecked) private var tasks: [Task<Void, Never>?] = []
    @exclusivity(unchecked) private var nodeWaiters: [Int: [CheckedContinuation<Void, Never>]] = [:]
    @exclusivity(unchecked) private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    @exclusivity(unchecked) private var registration: UInt64?
    private let startTime: Int64

    init(core: StoreCore<State>, graph: ActionGraph<State>) {
        self.core = core
        self.graph = graph
        self.bodies = graph.bodies
        self.settings = graph.settings
        self.machine = RunStateMachine(graph: graph)
        self.responses = .allocate(capacity: graph.count)
        self.responses.initialize(repeating: nil, count: graph.count)
        self.startTime = monotonicNanoseconds()
    }

    deinit {
        responses.deinitialize(count: graph.count)
        responses.deallocate()
    }

    private func now() -> Int64 {
        monotonicNanoseconds() - startTime
    }

    func start() {
        let id = core.register { [weak self] in self?.cancel() }
        guard let id else {
            cancel()
            return
        }
        let effects = lock.withLock {
            registration = id
            return machine.start(problems: graph.nodeProblems, now: now())
        }
        perform(effects)
    }

    // MARK: Public

    /// Cancels the run: async nodes in flight get task cancellation and, like every node that has not
    /// started, end `.cancelled` at once; no fallback is sent after this. A sync node being applied at
    /// this moment completes. State already committed stays committed. Calling it again does nothing.
    public func cancel() {
        let (effects, inFlight, waiters) = lock.withLock {
            let effects = machine.cancel(now: now())
            defer { tasks.removeAll() }
            return (effects, tasks.compactMap { $0 }, takeTerminalWaiters())
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
                if machine.nodes[node.index].status.isTerminal { return true }
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
            GraphReport(graph: graph, nodes: machine.nodes, errors: machine.errors,
                        retriedAttempts: machine.retriedAttempts,
                        finishedAt: machine.isFinished ? machine.nodes.reduce(0) { Swift.max($0, $1.end) } : nil)
        }
    }

    private func outcomeLocked<R>(_ node: Node<R>) -> Outcome<R> {
        switch machine.nodes[node.index].status {
        case .succeeded: return .succeeded(ResponseBox<R>.unwrap(responses[node.index]))
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
        var (work, more) = lock.withLock { machine.popSync(now: now(), yieldToQueuedWork: false) }
        while let item = work {
            let effects: RunStateMachine.Effects
            let waiters: [CheckedContinuation<Void, Never>]
            switch item {
            case .node(let node):
                core.apply(syncAction(of: node))
                (effects, waiters, work, more) = lock.withLock {
                    let time = now()
                    let effects = machine.syncApplied(node, now: time)
                    let next = machine.popSync(now: time, yieldToQueuedWork: !core.pending.isEmpty)
                    return (effects, takeTerminalWaiters(), next.work, next.more)
                }
            case .fallback(let node, let error):
                if let fallback = settings[node]?.fallback { core.apply(fallback(error)) }
                (effects, waiters, work, more) = lock.withLock {
                    let effects = machine.fallbackApplied()
                    let next = machine.popSync(now: now(), yieldToQueuedWork: !core.pending.isEmpty)
                    return (effects, takeTerminalWaiters(), next.work, next.more)
                }
            }
            for waiter in waiters { waiter.resume() }
            perform(effects)
        }
        return more
    }

    private func syncAction(of node: Int) -> any Action {
        switch bodies[node] {
        case .action(let action): action
        case .makeAction(let make, _): make(NodeInputs(slots: responses))
        case .async, .delay, .join: preconditionFailure("OresRedux: node #\(node) is not a sync node")
        }
    }

    // MARK: Async nodes

    private func startAsync(_ node: Int) {
        let task = Task { await self.runAsync(node) }
        let cancelNow = lock.withLock {
            if machine.nodes[node].status == .running {
                if tasks.isEmpty { tasks = Array(repeating: nil, count: bodies.count) }
                tasks[node] = task
            }
            return machine.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    private func runAsync(_ node: Int) async {
        // A run cancelled between this node's release and now must not start its work at all.
        guard lock.withLock({ machine.nodes[node].status == .running }) else { return }
        let settings = self.settings[node]
        let clock = core.options.clock
        let operation: @Sendable () async throws -> ResponseSlot
        switch bodies[node] {
        case .async(let start, _):
            operation = start(NodeInputs(slots: responses), core).attempt
        case .delay(let duration):
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
        let result: Result<ResponseSlot, any Error>
        var attempts = 1
        if settings?.timeout == nil, settings?.retry == nil {
            // The common case, one plain attempt: no extra async frames between the task and `run`.
            do { result = .success(try await operation()) } catch { result = .failure(error) }
        } else {
            (result, attempts) = await Attempts.run(operation, timeout: settings?.timeout,
                                                    retry: settings?.retry ?? .never, clock: clock)
        }
        let (effects, waiters) = lock.withLock {
            var error: (any Error)?
            switch result {
            case .success(let response):
                if machine.nodes[node].status == .running { responses[node] = response }
            case .failure(let failure):
                error = failure
            }
            if node < tasks.count { tasks[node] = nil }
            let effects = machine.asyncFinished(node, error: error, attempts: attempts, now: now())
            return (effects, takeTerminalWaiters())
        }
        for waiter in waiters { waiter.resume() }
        perform(effects)
    }

    // MARK: Effects

    private func perform(_ effects: RunStateMachine.Effects) {
        if effects.firstAsync >= 0 { startAsync(effects.firstAsync) }
        for node in effects.moreAsync { startAsync(node) }
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
        for (node, waiters) in nodeWaiters where machine.nodes[node].status.isTerminal {
            ready += waiters
            nodeWaiters[node] = nil
        }
        return ready
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
