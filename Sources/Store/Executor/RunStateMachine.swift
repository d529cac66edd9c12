/// The bookkeeping of one graph run: what is waiting, what is ready, what ended and how.
///
/// A plain value with no lock, task or callback. Each event (`start`, `popSync`, `syncApplied`,
/// `asyncFinished`, `cancel`, ...) is a `mutating func` that updates the counters and says what to do
/// next in ``Effects``; ``GraphRun`` calls it under its lock and does the effects outside it. Every
/// walk over the graph is a loop, never a recursion, so a million-node chain cannot overflow the stack.
struct RunStateMachine {
    enum Status: UInt8 {
        case waiting, ready, running, succeeded, failed, skipped, cancelled

        var isTerminal: Bool { rawValue >= Status.succeeded.rawValue }
    }

    /// A sync item for the store's pipeline: a node to apply, or a failed node's fallback action.
    enum SyncWork {
        case node(Int)
        case fallback(Int, any Error)
    }

    /// What the shell must do after an event.
    struct Effects {
        /// Async nodes that just started: spawn a task for each. The first is kept inline, so the
        /// usual single release allocates no array.
        var firstAsync = -1
        var moreAsync: [Int] = []
        /// Sync work became ready while none was: hand the run to the store's pipeline.
        var scheduleSync = false
        /// Every node is terminal and every fallback applied: resume `wait()`.
        var finished = false
    }

    /// Reverse edges, compressed: node `i`'s dependents are `dependents[dependentEnds[i - 1] ..< dependentEnds[i]]`,
    /// in the order the dependents were added to the graph.
    private let dependentEnds: [Int32]
    private let dependents: [Int32]
    private let isSync: [Bool]
    private let nodesWithFallback: Set<Int>

    /// One node's bookkeeping, kept together so that an update touches one array element.
    struct NodeState {
        var status = Status.waiting
        /// Prerequisites that have not succeeded yet.
        var remaining: Int32 = 0
        /// Nanoseconds since the run started; -1 where the node never started or has not ended.
        var start: Int64 = -1
        var end: Int64 = -1
    }

    private(set) var nodes: [NodeState]
    private(set) var errors: [Int: any Error] = [:]
    /// Attempts of async nodes that made more than one.
    private(set) var retriedAttempts: [Int: Int] = [:]

    private var readySync = FIFO<SyncWork>()
    private var terminalCount = 0
    private var pendingFallbacks = 0
    private var isScheduled = false
    private(set) var isCancelled = false
    private(set) var isFinished = false

    init<State>(graph: ActionGraph<State>) {
        let count = graph.count
        var nodes = [NodeState](repeating: NodeState(), count: count)
        var dependentCounts = [Int32](repeating: 0, count: count + 1)
        for node in 0..<count {
            let prerequisites = graph.prerequisites(of: node)
            nodes[node].remaining = Int32(prerequisites.count)
            for prerequisite in prerequisites { dependentCounts[Int(prerequisite) + 1] += 1 }
        }
        for node in 0..<count { dependentCounts[node + 1] += dependentCounts[node] }
        var fill = dependentCounts
        var dependents = [Int32](repeating: 0, count: graph.prerequisites.count)
        for node in 0..<count {
            for prerequisite in graph.prerequisites(of: node) {
                dependents[Int(fill[Int(prerequisite)])] = Int32(node)
                fill[Int(prerequisite)] += 1
            }
        }
        dependentCounts.removeFirst()
        self.dependentEnds = dependentCounts
        self.dependents = dependents
        self.nodes = nodes
        var isSync = [Bool](repeating: false, count: count)
        for node in 0..<count { isSync[node] = graph.bodies[node].isSync }
        self.isSync = isSync
        self.nodesWithFallback = Set(graph.settings.compactMap { $0.value.fallback == nil ? nil : $0.key })
    }

    var count: Int { nodes.count }

    // MARK: Events

    /// Fails the nodes built with bad input, then releases the nodes with no prerequisites.
    ///
    /// Every node with a problem fails with its own error before any skip spreads, so a node below
    /// another bad node still reports its own problem rather than `.skipped`.
    mutating func start(problems: [Int: GraphError], now: Int64) -> Effects {
        var effects = Effects()
        for (node, problem) in problems.sorted(by: { $0.key < $1.key }) {
            markFailed(node, problem, now: now, &effects)
        }
        for node in problems.keys.sorted() { skipDependents(of: node, now: now) }
        for node in 0..<count where nodes[node].status == .waiting && nodes[node].remaining == 0 {
            release(node, now: now, &effects)
        }
        checkFinished(&effects)
        return effects
    }

    /// The next sync work to apply, marking a node running. Returns `more == true` without work when
    /// `yieldToQueuedWork` is set and work remains (the store has other work queued first).
    mutating func popSync(now: Int64, yieldToQueuedWork: Bool) -> (work: SyncWork?, more: Bool) {
        guard !readySync.isEmpty else {
            isScheduled = false
            return (nil, false)
        }
        if yieldToQueuedWork { return (nil, true) }
        let work = readySync.popFirst()!
        if case .node(let node) = work {
            nodes[node].status = .running
            nodes[node].start = now
        }
        return (work, true)
    }

    /// A sync node went through middleware, reducer and subscribers.
    mutating func syncApplied(_ node: Int, now: Int64) -> Effects {
        var effects = Effects()
        if nodes[node].status == .running { succeed(node, now: now, &effects) }
        checkFinished(&effects)
        return effects
    }

    /// A failed node's fallback action was applied.
    mutating func fallbackApplied() -> Effects {
        var effects = Effects()
        pendingFallbacks -= 1
        checkFinished(&effects)
        return effects
    }

    /// An async node ended after `attempts` attempts. Ignored when the node was cancelled meanwhile.
    mutating func asyncFinished(_ node: Int, error: (any Error)?, attempts: Int, now: Int64) -> Effects {
        var effects = Effects()
        guard nodes[node].status == .running else { return effects }
        if attempts > 1 { retriedAttempts[node] = attempts }
        if let error {
            fail(node, error, now: now, &effects)
        } else {
            succeed(node, now: now, &effects)
        }
        checkFinished(&effects)
        return effects
    }

    /// Marks every node that has not started, and every async node in flight, cancelled. A sync node
    /// being applied at this moment finishes (it cannot be stopped halfway).
    mutating func cancel(now: Int64) -> Effects {
        var effects = Effects()
        guard !isCancelled, !isFinished else { return effects }
        isCancelled = true
        for node in 0..<count {
            switch nodes[node].status {
            case .waiting, .ready:
                markTerminal(node, .cancelled, now: now)
            case .running where !isSync[node]:
                markTerminal(node, .cancelled, now: now)
            default:
                break
            }
        }
        readySync.removeAll()
        pendingFallbacks = 0
        checkFinished(&effects)
        return effects
    }

    // MARK: Transitions

    private mutating func release(_ node: Int, now: Int64, _ effects: inout Effects) {
        if isSync[node] {
            nodes[node].status = .ready
            readySync.append(.node(node))
            if !isScheduled {
                isScheduled = true
                effects.scheduleSync = true
            }
        } else {
            nodes[node].status = .running
            nodes[node].start = now
            if effects.firstAsync < 0 { effects.firstAsync = node } else { effects.moreAsync.append(node) }
        }
    }

    private mutating func succeed(_ node: Int, now: Int64, _ effects: inout Effects) {
        markTerminal(node, .succeeded, now: now)
        for dependent in dependentRange(of: node) {
            let dependent = Int(dependents[dependent])
            guard nodes[dependent].status == .waiting else { continue }
            nodes[dependent].remaining -= 1
            if nodes[dependent].remaining == 0 { release(dependent, now: now, &effects) }
        }
    }

    private mutating func fail(_ node: Int, _ error: any Error, now: Int64, _ effects: inout Effects) {
        markFailed(node, error, now: now, &effects)
        skipDependents(of: node, now: now)
    }

    private mutating func markFailed(_ node: Int, _ error: any Error, now: Int64, _ effects: inout Effects) {
        markTerminal(node, .failed, now: now)
        errors[node] = error
        if nodesWithFallback.contains(node), !isCancelled {
            pendingFallbacks += 1
            readySync.append(.fallback(node, error))
            if !isScheduled {
                isScheduled = true
                effects.scheduleSync = true
            }
        }
    }

    /// Marks everything downstream of `node` that is still waiting `.skipped`: none of it can have had
    /// all its prerequisites succeed.
    private mutating func skipDependents(of node: Int, now: Int64) {
        var stack = [node]
        while let failed = stack.popLast() {
            for dependent in dependentRange(of: failed) {
                let dependent = Int(dependents[dependent])
                guard nodes[dependent].status == .waiting else { continue }
                markTerminal(dependent, .skipped, now: now)
                stack.append(dependent)
            }
        }
    }

    private mutating func markTerminal(_ node: Int, _ terminal: Status, now: Int64) {
        nodes[node].status = terminal
        nodes[node].end = now
        terminalCount += 1
    }

    private mutating func checkFinished(_ effects: inout Effects) {
        if !isFinished, terminalCount == count, pendingFallbacks == 0 {
            isFinished = true
            effects.finished = true
        }
    }

    private func dependentRange(of node: Int) -> Range<Int> {
        (node == 0 ? 0 : Int(dependentEnds[node - 1]))..<Int(dependentEnds[node])
    }
}
