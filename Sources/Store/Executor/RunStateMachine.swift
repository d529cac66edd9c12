/// The bookkeeping of one graph run: what is waiting, what is ready, what ended and how.
///
/// A plain value with no lock, task or callback. Each event (`start`, `popSync`, `syncApplied`,
/// `asyncFinished`, `cancel`, ...) is a `mutating func` that updates the counters and adds what to
/// do next to an ``Effects`` value; ``GraphRun`` calls it under its lock and does the effects outside
/// it. Every walk over the graph is a loop, never a recursion, so a million-node chain cannot
/// overflow the stack.
///
/// It keeps its per-node storage in raw buffers, so that a sync node's release is a few loads and
/// stores, with no array uniqueness or bounds checks on the hot path. Its one owner, the
/// ``GraphRun``, frees them with `deallocate()` in its `deinit`. (Not `~Copyable`: Swift 6.3 fails
/// to compile a noncopyable type holding these buffers with `-sanitize=thread`.)
struct RunStateMachine {
    enum Status: UInt8 {
        case waiting, ready, running, succeeded, failed, skipped, cancelled

        var isTerminal: Bool { rawValue >= Status.succeeded.rawValue }
    }

    /// What the shell must do after one or more events.
    struct Effects {
        /// Async nodes that just started: the shell runs each on a task. The first is kept inline,
        /// so the usual single release allocates no array.
        var firstAsync = -1
        var moreAsync: [Int] = []
        /// Sync work became ready while none was: hand the run to the store's pipeline.
        var scheduleSync = false
        /// Every node is terminal and every fallback applied: resume `wait()`.
        var finished = false

        /// Takes one started async node out, for a task that is free to run it itself.
        mutating func takeAsync() -> Int {
            let node = firstAsync
            if node >= 0 { firstAsync = moreAsync.popLast() ?? -1 }
            return node
        }
    }

    /// One node's bookkeeping, kept together so that an update touches one cache line.
    struct NodeState {
        var status = Status.waiting
        var isSync = false
        /// Prerequisites that have not succeeded yet.
        var remaining: Int32 = 0
        /// Nanoseconds since the run started; -1 where the node never started or has not ended.
        var start: Int64 = -1
        var end: Int64 = -1
    }

    let count: Int
    /// Whether any node is async, a delay or a join (and so may store a response).
    let hasAsyncNodes: Bool
    /// Every node's bookkeeping; `nodes` is its buffer, kept here for the hot paths.
    private let states: NodeStates
    private let nodes: UnsafeMutableBufferPointer<NodeState>
    /// Reverse edges, compressed: node `i`'s dependents are
    /// `dependents[dependentStarts[i] ..< dependentStarts[i + 1]]`, in the order they were added.
    private let dependentStarts: UnsafeMutableBufferPointer<Int32>
    private let dependents: UnsafeMutableBufferPointer<Int32>
    /// Sync work in the order it became ready: node `n` as `n`, the fallback of failed node `n` as
    /// `~n`. A node is released at most once and fails at most once, so the queue never wraps.
    private let readySync: UnsafeMutableBufferPointer<Int32>
    private var readyHead = 0
    private var readyTail = 0
    private let nodesWithFallback: Set<Int>

    private(set) var errors: [Int: any Error] = [:]
    /// Attempts of async nodes that made more than one.
    private(set) var retriedAttempts: [Int: Int] = [:]
    private var terminalCount = 0
    private var pendingFallbacks = 0
    private var isScheduled = false
    private(set) var isCancelled = false
    private(set) var isFinished = false

    init(nodes stored: [StoredNode], prerequisites: [Int32], nodesWithFallback: Set<Int>) {
        let count = stored.count
        self.count = count
        self.nodesWithFallback = nodesWithFallback
        let states = NodeStates(count: count)
        let nodes = states.buffer
        let dependentStarts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: count + 2)
        dependentStarts.initialize(repeating: 0)
        let dependents = UnsafeMutableBufferPointer<Int32>.allocate(capacity: prerequisites.count)
        var hasAsyncNodes = false
        stored.withUnsafeBufferPointer { stored in
            prerequisites.withUnsafeBufferPointer { prerequisites in
                // Count each node's dependents one slot ahead, so that the prefix sum leaves
                // `dependentStarts[p + 1]` at p's first slot: the cursor of the fill below, which
                // then moves it on to p's end, that is, to `dependentStarts[p + 1]` proper.
                var first = 0
                for node in 0..<count {
                    let end = Int(stored[node].prerequisiteEnd)
                    let isSync = BodySlot.isSync(stored[node].bodySlot)
                    if !isSync { hasAsyncNodes = true }
                    (nodes.baseAddress! + node).initialize(to: NodeState(isSync: isSync, remaining: Int32(end - first)))
                    for edge in first..<end { dependentStarts[Int(prerequisites[edge]) + 2] += 1 }
                    first = end
                }
                for index in 2..<(count + 2) { dependentStarts[index] += dependentStarts[index - 1] }
                first = 0
                for node in 0..<count {
                    let end = Int(stored[node].prerequisiteEnd)
                    for edge in first..<end {
                        let cursor = Int(prerequisites[edge]) + 1
                        dependents[Int(dependentStarts[cursor])] = Int32(truncatingIfNeeded: node)
                        dependentStarts[cursor] += 1
                    }
                    first = end
                }
            }
        }
        self.hasAsyncNodes = hasAsyncNodes
        self.states = states
        self.nodes = nodes
        self.dependentStarts = dependentStarts
        self.dependents = dependents
        readySync = .allocate(capacity: count + nodesWithFallback.count)
    }

    /// Frees the buffers; called once, by the run that owns this machine, when it is released.
    /// (`states` frees itself, once no report shares it either.)
    func deallocate() {
        dependentStarts.deallocate()
        dependents.deallocate()
        readySync.deallocate()
    }

    @inline(__always)
    func status(of node: Int) -> Status { nodes[node].status }

    /// Every node's bookkeeping, for a report: shared once the run has finished, since nothing
    /// changes it after that; copied before.
    var reportStates: NodeStates { isFinished ? states : NodeStates(copying: states) }

    /// Whether sync work is waiting for the pipeline.
    var hasReadySync: Bool { readyHead < readyTail }

    // MARK: Events

    /// Fails the nodes built with bad input, then releases the nodes with no prerequisites.
    ///
    /// Every node with a problem fails with its own error before any skip spreads, so a node below
    /// another bad node still reports its own problem rather than `.skipped`.
    mutating func start(problems: [Int: GraphError], now: Int64, _ effects: inout Effects) {
        for (node, problem) in problems.sorted(by: { $0.key < $1.key }) {
            markFailed(node, problem, now: now, &effects)
        }
        for node in problems.keys.sorted() { skipDependents(of: node, now: now) }
        for node in 0..<count where nodes[node].status == .waiting && nodes[node].remaining == 0 {
            release(node, now: now, &effects)
        }
        checkFinished(&effects)
    }

    /// The next sync work, in the order it became ready: a node (marked running at `now`), or `~node`
    /// for a failed node's fallback. `nil` when there is none; the next release schedules the run again.
    @inline(__always)
    mutating func popSync(now: Int64) -> Int32? {
        guard readyHead < readyTail else {
            isScheduled = false
            return nil
        }
        let item = readySync[readyHead]
        readyHead += 1
        if item >= 0 {
            nodes[Int(item)].status = .running
            nodes[Int(item)].start = now
        }
        return item
    }

    /// Where the next `popSync` reads: what a batch of sync work started from (see `endBatch`).
    var readPosition: Int { readyHead }

    /// Ends a batch of sync work popped since `position`, all stamped `start` while it ran: each
    /// node of it that succeeded ends at `end`. The pipeline reads the clock twice a batch rather than
    /// once a node (a clock read costs as much as applying a node).
    mutating func endBatch(since position: Int, at end: Int64) {
        for index in position..<readyHead {
            let item = Int(readySync[index])
            if item >= 0, nodes[item].status == .succeeded { nodes[item].end = end }
        }
    }

    /// A sync node went through middleware, reducer and subscribers.
    @inline(__always)
    mutating func syncApplied(_ node: Int, now: Int64, _ effects: inout Effects) {
        if nodes[node].status == .running { succeed(node, now: now, &effects) }
        checkFinished(&effects)
    }

    /// A failed node's fallback action was applied.
    mutating func fallbackApplied(_ effects: inout Effects) {
        pendingFallbacks -= 1
        checkFinished(&effects)
    }

    /// An async node ended after `attempts` attempts. Ignored when the node was cancelled meanwhile.
    mutating func asyncFinished(_ node: Int, error: (any Error)?, attempts: Int, now: Int64, _ effects: inout Effects) {
        guard nodes[node].status == .running else { return }
        if attempts > 1 { retriedAttempts[node] = attempts }
        if let error {
            markFailed(node, error, now: now, &effects)
            skipDependents(of: node, now: now)
        } else {
            succeed(node, now: now, &effects)
        }
        checkFinished(&effects)
    }

    /// Marks every node that has not started, and every async node in flight, cancelled. A sync node
    /// being applied at this moment finishes (it cannot be stopped halfway).
    mutating func cancel(now: Int64, _ effects: inout Effects) {
        guard !isCancelled, !isFinished else { return }
        isCancelled = true
        for node in 0..<count {
            switch nodes[node].status {
            case .waiting, .ready:
                markTerminal(node, .cancelled, now: now)
            case .running where !nodes[node].isSync:
                markTerminal(node, .cancelled, now: now)
            default:
                break
            }
        }
        readyHead = readyTail
        pendingFallbacks = 0
        checkFinished(&effects)
    }

    // MARK: Transitions

    @inline(__always)
    private mutating func release(_ node: Int, now: Int64, _ effects: inout Effects) {
        if nodes[node].isSync {
            nodes[node].status = .ready
            pushSync(Int32(truncatingIfNeeded: node), &effects)
        } else {
            nodes[node].status = .running
            nodes[node].start = now
            if effects.firstAsync < 0 { effects.firstAsync = node } else { effects.moreAsync.append(node) }
        }
    }

    @inline(__always)
    private mutating func pushSync(_ item: Int32, _ effects: inout Effects) {
        readySync[readyTail] = item
        readyTail += 1
        if !isScheduled {
            isScheduled = true
            effects.scheduleSync = true
        }
    }

    @inline(__always)
    private mutating func succeed(_ node: Int, now: Int64, _ effects: inout Effects) {
        markTerminal(node, .succeeded, now: now)
        for edge in Int(dependentStarts[node])..<Int(dependentStarts[node + 1]) {
            let dependent = Int(dependents[edge])
            guard nodes[dependent].status == .waiting else { continue }
            nodes[dependent].remaining -= 1
            if nodes[dependent].remaining == 0 { release(dependent, now: now, &effects) }
        }
    }

    private mutating func markFailed(_ node: Int, _ error: any Error, now: Int64, _ effects: inout Effects) {
        markTerminal(node, .failed, now: now)
        errors[node] = error
        if nodesWithFallback.contains(node), !isCancelled {
            pendingFallbacks += 1
            pushSync(~Int32(truncatingIfNeeded: node), &effects)
        }
    }

    /// Marks everything downstream of `node` that is still waiting `.skipped`: none of it can have had
    /// all its prerequisites succeed.
    private mutating func skipDependents(of node: Int, now: Int64) {
        var stack = [node]
        while let failed = stack.popLast() {
            for edge in Int(dependentStarts[failed])..<Int(dependentStarts[failed + 1]) {
                let dependent = Int(dependents[edge])
                guard nodes[dependent].status == .waiting else { continue }
                markTerminal(dependent, .skipped, now: now)
                stack.append(dependent)
            }
        }
    }

    @inline(__always)
    private mutating func markTerminal(_ node: Int, _ terminal: Status, now: Int64) {
        nodes[node].status = terminal
        nodes[node].end = now
        terminalCount += 1
    }

    @inline(__always)
    private mutating func checkFinished(_ effects: inout Effects) {
        if terminalCount == count, pendingFallbacks == 0, !isFinished {
            isFinished = true
            effects.finished = true
        }
    }
}
