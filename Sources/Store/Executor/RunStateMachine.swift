/// The bookkeeping of one graph run, and every decision about it.
///
/// A plain value with no lock, task or callback (the shape of swift-async-algorithms' state
/// machines). Each event (`start`, `takeSyncItem`, `syncItemApplied`, `attemptStarting`,
/// `asyncFinished`, `cancel`, ...) is a `mutating func` that updates the bookkeeping and returns
/// ``RunSteps``: what to do, in order (the async nodes to start, the workers to cancel, whether the
/// run needs the store's pipeline, the attempt that starts and its number, the nodes that ended,
/// the waiters to resume, ...). ``GraphRun`` is its shell: it takes its lock, feeds one event
/// (``handle(_:insidePipeline:)``), lets the run's observers see the steps, releases the lock and
/// performs them, so no user code ever runs while the lock is held. Waiters are numbers the shell
/// hands out (it keeps the continuations), so tests drive the machine event by event with no task,
/// lock or store.
///
/// ## Attempts
/// The machine numbers every attempt and keeps each node's retry budget: one count per node
/// (`RunNodeState.attempts`, this launch's), added to what a durable run's earlier launches made
/// (``EarlierLaunches``). The journal, the run's events and the report read the numbers it gives.
///
/// ## Sync work and the pipeline
/// Ready sync work (a node, the fallback of a failed node, or the graph's cancel action) waits in
/// `readySync`, in the order it became ready. The run holds at most one *token* in the store's
/// pipeline: `isScheduled` is true from the effect that asks for it (``RunSteps/schedule``) until
/// ``takeSyncItem(now:)`` or ``syncItemApplied(_:now:queuedWork:)`` answers `.idle`, and only those
/// two events clear it. So whatever the pipeline does between two events, ready work is always
/// either scheduled or being applied: the invariant that makes a run always finish.
///
/// ## A resumed run, in the order an uninterrupted one would take
/// Nodes of a durable run that ended in an earlier launch are *replays*: they are never started
/// again, but each plays its recorded end at the moment an uninterrupted run would have reached it.
/// A replayed async node plays once it is released, after the other nodes released at that moment
/// (as a real end comes after its release); of the replayed async nodes released and not played,
/// the one whose end came first plays first (``EndedBefore/order``: two branches that ran side by
/// side ended in the order the journal recorded, not in graph order). A replayed sync node takes
/// its place in `readySync` and plays when it reaches the front with no item in hand (as it would
/// have been applied then). So a fallback replayed after a sync node released earlier is applied
/// after it, and what a branch that ended first released is applied first, as it was.
///
/// Every walk over the graph is a loop, never a recursion, so a million-node chain cannot overflow
/// the stack.
struct RunStateMachine {
    /// A waiter, by the number the shell gave it.
    typealias Waiter = Int

    /// Where the run is in its life.
    enum Phase: Equatable {
        case notStarted, running
        /// `cancel()` was called; the sync item being applied, if any, is still to be accounted for.
        case cancelled
        /// Every node is terminal and every fallback accounted for.
        case finished
    }

    typealias Status = NodeStatus
    typealias NodeState = RunNodeState

    /// Sync work for the store's pipeline.
    enum SyncItem: Equatable {
        /// A sync node to apply.
        case node(Int)
        /// The fallback action of a failed node, to apply.
        case fallback(Int)
        /// The graph's cancel action, to apply once after the run was cancelled.
        case cancelAction
    }

    /// What the pipeline does after a sync item was applied.
    enum SyncStep: Equatable {
        /// Apply this item now.
        case apply(SyncItem)
        /// Other work is queued in the store: go to the back of the line (the run stays scheduled).
        case yield
        /// Nothing is ready: leave the pipeline (the run is no longer scheduled).
        case idle
    }

    private(set) var phase = Phase.notStarted
    private(set) var nodes: [NodeState]
    /// Reverse edges, compressed: node `i`'s dependents are
    /// `dependents[dependentStarts[i] ..< dependentStarts[i + 1]]`, in the order they were added.
    /// Both are slices of one array (one allocation): the starts first, then the dependents; a
    /// slice keeps its array's indices, so each start indexes `dependents` as it is. Kept as Int32,
    /// half the bytes, as a run holds them for its whole life (the init checks they fit).
    private let dependentStarts: ArraySlice<Int32>
    private let dependents: ArraySlice<Int32>
    private let nodesWithFallback: Set<Int>
    /// Whether the graph names a sync action to send when its run is cancelled.
    private let hasCancelAction: Bool
    /// Nodes that fail at start because they were built with bad input, and why.
    private let problems: [Int: any Error]

    private var readySync = ReadyQueue()
    /// Nodes that ended in an earlier launch, whose end has not been played yet (see the overview).
    private var replays: [Int: EndedBefore] = [:]
    /// Replayed async nodes released and not played yet: the one whose end came first is next.
    private var replayedEnds = ReplayQueue()
    /// The sync item the pipeline took and has not reported applied yet (the run has one token, so
    /// at most one).
    private(set) var itemInHand: SyncItem?
    private(set) var isScheduled = false

    private(set) var errors: [Int: any Error] = [:]
    /// Responses of async nodes that succeeded with a non-`Void` value, by node; empty until the
    /// first one (then one slot per node: a run's responses take one allocation, and no hashing).
    private var responses: [ResponseSlot] = []
    private var terminalCount = 0
    /// Waiters held until the store's pipeline is left; `nil` when none are held.
    private var heldForPipelineExit: SmallList<Waiter>? = nil
    /// Fallbacks queued or in hand, not yet applied.
    private var pendingFallbacks = 0
    /// The cancel action is queued or in hand, not yet applied: the run is not finished before it is.
    private(set) var isCancelActionPending = false
    /// The owner's end cancelled part of the run while the rest outlives it: the cancel action is
    /// queued once everything else is accounted for, as the run's last action.
    private var owesCancelAction = false
    /// Whether the run is observed (the store had event observers at dispatch): events then list
    /// the nodes that become terminal (``RunSteps/ended``) and resume waiters behind the events
    /// recorded before them. Off otherwise, so an unobserved run pays nothing for them.
    var isObserved = false
    /// Per async node, what its earlier launches did (a resumed durable run's; see ``EarlierLaunches``).
    private var earlier = EarlierLaunches()
    private var nodeWaiters: [Int: SmallList<Waiter>] = [:]
    private var finishWaiters = SmallList<Waiter>()
    /// Waiters for a node that had already ended while the run still had sync work ready or in
    /// hand (perhaps released by that node): resumed once none is left, as an early waiter of the
    /// node resumes only after the sync work its end released was applied.
    private var syncWorkWaiters = SmallList<Waiter>()
    /// When the last node ended: the run's duration once finished.
    private(set) var lastEnd: Duration = .zero
    /// The latest time an event brought. Events may reach the machine in another order than the
    /// clock was read in (each caller reads it before taking the run's lock), so every event's time
    /// is at least this: times never go back, and no node starts before its prerequisites ended.
    private(set) var latestTime: Duration = .zero

    /// - Parameters:
    ///   - isSync: for each node in order, whether it is a sync node (applied by the pipeline)
    ///     rather than an async, delay or join node (run on a task).
    ///   - prerequisites: every node's prerequisites, one list after the other; node `i`'s list
    ///     ends at `prerequisiteEnds[i]` and starts where node `i - 1`'s ends. A node's
    ///     prerequisites are all added before it.
    ///   - nodesWithFallback: the nodes that send a fallback action when they fail.
    ///   - hasCancelAction: whether the graph sends a sync action when its run is cancelled.
    ///   - problems: nodes built with bad input; each fails with its error when the run starts.
    init(
        isSync: [Bool], prerequisites: [Int], prerequisiteEnds: [Int],
        nodesWithFallback: Set<Int> = [], hasCancelAction: Bool = false, problems: [Int: any Error] = [:]
    ) {
        self.init(
            nodes: isSync.map { NodeState(isSync: $0) }, prerequisites: prerequisites,
            prerequisiteEnds: prerequisiteEnds, nodesWithFallback: nodesWithFallback,
            hasCancelAction: hasCancelAction, problems: problems)
    }

    /// The machine of a run of the graph whose nodes `graph` holds.
    init(graph: GraphStorage) {
        let settings = graph.settings
        self.init(
            nodes: (0..<graph.count).map { NodeState(isSync: graph.isSync($0)) },
            prerequisites: graph.prerequisites, prerequisiteEnds: graph.prerequisiteEnds,
            nodesWithFallback: settings.isEmpty
                ? [] : Set(settings.compactMap { $0.value.fallback == nil ? nil : $0.key }),
            hasCancelAction: graph.hooks?.cancelAction != nil, problems: graph.nodeProblems)
    }

    /// - Parameter nodes: each node's state before the run, in order; its count of prerequisites
    ///   is set here.
    private init(
        nodes: consuming [NodeState], prerequisites: [Int], prerequisiteEnds: [Int],
        nodesWithFallback: Set<Int>, hasCancelAction: Bool, problems: [Int: any Error]
    ) {
        let count = nodes.count
        precondition(prerequisiteEnds.count == count, "OresRedux: one prerequisite list per node")
        // The starts of the dependents' blocks, then the blocks. `edges[p]` first counts node p's
        // dependents, then (summed, from where the blocks begin) marks the end of its block;
        // filling the blocks back to front moves it to the block's start, keeping each block in the
        // order the dependents were added. `edges[count]` ends the last block.
        let blocks = count + 1
        let edgeCount = prerequisiteEnds.last ?? 0
        precondition(
            blocks + edgeCount <= Int32.max,
            "OresRedux: a graph's nodes and prerequisites number under 2^31 - 1 together (its run keeps them as Int32)")
        var edges = [Int32](filledWith: 0, count: blocks + edgeCount)
        var first = 0
        for node in 0..<count {
            let end = prerequisiteEnds[node]
            nodes[node].remaining = end - first
            for place in first..<end {
                let prerequisite = prerequisites[place]
                precondition(
                    prerequisite >= 0 && prerequisite < node,
                    "OresRedux: node #\(node) waits on node #\(prerequisite), which is not added before it")
                edges[prerequisite] += 1
            }
            first = end
        }
        edges[0] += Int32(blocks)
        for node in 1..<blocks { edges[node] += edges[node - 1] }
        var end = edgeCount
        for node in (0..<count).reversed() {
            let start = node == 0 ? 0 : prerequisiteEnds[node - 1]
            for place in (start..<end).reversed() {
                let prerequisite = prerequisites[place]
                edges[prerequisite] -= 1
                edges[Int(edges[prerequisite])] = Int32(node)
            }
            end = start
        }
        self.nodes = nodes
        self.dependentStarts = edges[..<blocks]
        self.dependents = edges[blocks...]
        self.nodesWithFallback = nodesWithFallback
        self.hasCancelAction = hasCancelAction
        self.problems = problems
    }

    var count: Int { nodes.count }

    /// Where `node`'s dependents are in `dependents`.
    private func dependentPlaces(of node: Int) -> Range<Int> {
        Int(dependentStarts[node])..<Int(dependentStarts[node + 1])
    }

    func status(of node: Int) -> Status { nodes[node].status }

    var isFinished: Bool { phase == .finished }
    /// Whether `cancel` was called before the run finished (it may have finished since).
    private(set) var isCancelled = false
    /// Whether the owner the run was dispatched under ended before the run finished.
    private(set) var isEndedByOwner = false
    /// The node whose fallback was being applied when the owner's end dropped it (the node does
    /// not outlive the owner): refused when it asks to reach the reducer.
    private var droppedFallback: Int?

    /// Whether sync work waits for the pipeline (not counting the item in hand).
    var hasReadySync: Bool { !readySync.isEmpty }

    /// The stored response of `node`: `nil` for `Void` or before it succeeded.
    func response(of node: Int) -> (any Sendable)? { responses.isEmpty ? nil : responses[node] }

    /// How `node` ended (a `Void` response reads `()`); `nil` while it has not. The one mapping
    /// from a node's status to its outcome, for waiters, events and reports.
    func outcome(of node: Int) -> Outcome<any Sendable>? {
        switch nodes[node].status {
        case .succeeded: .succeeded(response(of: node) ?? ())
        case .failed: .failed(errors[node] ?? GraphError.skipped)
        case .skipped: .skipped
        case .cancelled: .cancelled
        case .waiting, .ready, .running: nil
        }
    }

    /// Whether what `node`'s action dispatches through its context may still reach the state: not
    /// once the node was cancelled (see `NodeGate`). The context of one attempt (`attempt`, its
    /// number as ``AttemptStart/attempt`` gives it) closes too once a later attempt started or the
    /// node failed: a timed-out attempt that ignored its cancellation cannot bring a stale answer
    /// after its retry's, or after the node's fallback.
    func admitsDispatches(from node: Int, attempt: Int? = nil) -> Bool {
        let status = nodes[node].status
        guard let attempt else { return status != .cancelled }
        let isLatest = attemptNumber(node, inLaunch: nodes[node].attempts) == attempt
        return status != .cancelled && status != .failed && isLatest
    }

    /// The run as it stands now, for a graph of `shape`: a node that has not ended shows `nil`.
    func report(shape: GraphShape) -> GraphReport {
        GraphReport(
            shape: shape, nodes: nodes, errors: errors,
            finishedAt: isFinished ? lastEnd : nil)
    }

    // MARK: Events

    /// Feeds one event and returns its steps, in order. The shell's one entry: it also decides
    /// which waiters are held until the pipeline is left (`insidePipeline`: the event comes from a
    /// thread applying actions in the store's pipeline).
    mutating func handle(_ event: consuming RunEvent, insidePipeline: Bool) -> RunSteps {
        var steps = respond(to: event)
        complete(&steps, insidePipeline: insidePipeline)
        return steps
    }

    /// The steps that are the event's own.
    private mutating func respond(to event: consuming RunEvent) -> RunSteps {
        switch consume event {
        case .start(let now, let earlier):
            self.earlier = earlier
            return start(now: now, endedBefore: earlier.endedBefore)
        case .cancel(let now, let byStoreRelease):
            return cancel(now: now, byStoreRelease: byStoreRelease)
        case .ownerEnded(let now, let policies):
            return ownerEnded(now: now, policies: policies)
        case .takeSyncItem(let now):
            var steps = RunSteps()
            steps.syncStep = takeSyncItem(now: now).map { .apply($0) } ?? .idle
            return steps
        case .syncItemApplied(let item, let now, let queuedWork):
            var (steps, step) = syncItemApplied(item, now: now, queuedWork: queuedWork)
            steps.syncStep = step
            return steps
        case .attemptStarting(let node, let now):
            var steps = RunSteps()
            if let now { _ = advance(to: now) }
            steps.attemptStarted = attemptStarting(node)
            return steps
        case .asyncFinished(let node, let result, let now, let handsOn):
            return asyncFinished(node, consume result, now: now, handsOn: handsOn)
        case .awaitNode(let node, let waiter):
            var steps = RunSteps()
            steps.flags.set(.resumeCaller, awaitNode(node, waiter) != nil)
            return steps
        case .awaitFinish(let waiter):
            var steps = RunSteps()
            steps.flags.set(.resumeCaller, awaitFinish(waiter) != nil)
            return steps
        }
    }

    /// Adds to an event's steps what every event's steps share: a sync node's one attempt, the
    /// error a fallback is built from, the waiters held until the pipeline is left, the events'
    /// delivery. (A function of its own: written inline in `handle`, the optimizer copies the steps.)
    private mutating func complete(_ steps: inout RunSteps, insidePipeline: Bool) {
        switch steps.syncStep {
        case .apply(.node(let node)): steps.attemptStarted = AttemptStart(node: node, attempt: 1, inLaunch: 1)
        // Queued only by a failure, which recorded the error first (see `markFailed`, `play`).
        case .apply(.fallback(let node)): steps.fallbackError = errors[node]
        default: break
        }
        holdWaiters(insidePipeline: insidePipeline, &steps)
        steps.flags.set(.deliverEvents, isObserved)
    }

    /// Starts the run: fails the nodes built with bad input (and skips what depends on them), then
    /// releases every node with no prerequisites. Every node with a problem fails with its own error
    /// before any skip spreads, so a node below another bad node still reports its own problem.
    ///
    /// - Parameter endedBefore: nodes of a durable run that ended in an earlier launch (its journal
    ///   says so), in graph order. None is started again: each plays its recorded end when the release
    ///   rule reaches it, in the order an uninterrupted run would (see the overview). A success
    ///   passes its response to its dependents; a failure skips them and queues its fallback when
    ///   `sendsFallback` (it was not applied before); a cancelled node is terminal at once.
    mutating func start(now: Duration, endedBefore: [EndedBefore] = []) -> RunSteps {
        let now = advance(to: now)
        var effects = RunSteps()
        guard phase == .notStarted else { return effects }
        phase = .running
        endForOwnerAtStart(now: now, &effects)
        for ended in endedBefore where nodes[ended.node].status == .waiting {
            if ended.isCancelled {
                nodes[ended.node].start = now
                markTerminal(ended.node, .cancelled, now: now, &effects)
            } else {
                replays[ended.node] = ended
            }
        }
        let bad = problems.isEmpty ? [] : problems.keys.sorted()  // most graphs have none: no sort
        for node in bad where !nodes[node].status.isTerminal { markFailed(node, problems[node]!, now: now, &effects) }
        for node in bad { skipDependents(of: node, now: now, &effects) }
        for node in nodes.indices where nodes[node].status == .waiting && nodes[node].remaining == 0 {
            release(node, now: now, &effects)
        }
        playDueReplays(now: now, &effects)
        checkFinished(&effects)
        return effects
    }

    /// The pipeline reached the run's token: the next sync item to apply (marked started at `now`), or
    /// `nil` when nothing is ready, in which case the run is no longer scheduled.
    mutating func takeSyncItem(now: Duration) -> SyncItem? {
        let now = advance(to: now)
        precondition(itemInHand == nil, "OresRedux: a run's sync item was taken twice")
        guard let item = readySync.popFirst() else {
            isScheduled = false
            return nil
        }
        if case .node(let node) = item {
            nodes[node].status = .running
            nodes[node].start = now
            nodes[node].attempts = 1
        }
        itemInHand = item
        return item
    }

    /// The pipeline applied `item` (or refused a fallback after a cancel). Accounts for it, releases
    /// what it unblocked, and decides what the pipeline does next: the next item, yield to the
    /// `queuedWork` the store has waiting, or leave.
    mutating func syncItemApplied(_ item: SyncItem, now: Duration, queuedWork: Bool) -> (RunSteps, SyncStep) {
        let now = advance(to: now)
        precondition(itemInHand == item, "OresRedux: \(item) was reported applied but was not taken")
        var effects = RunSteps()
        itemInHand = nil
        switch item {
        case .node(let node):
            if nodes[node].status == .running { succeed(node, now: now, &effects) }
        case .fallback:
            pendingFallbacks -= 1
        case .cancelAction:
            isCancelActionPending = false
        }
        playDueReplays(now: now, &effects)
        checkFinished(&effects)
        if readySync.isEmpty {
            isScheduled = false
            resumeSyncWorkWaiters(&effects)
            return (effects, .idle)
        }
        if queuedWork { return (effects, .yield) }
        return (effects, .apply(takeSyncItem(now: now)!))
    }

    /// An async node's task is about to run its work: whether it still may (it was not cancelled).
    func mayRun(_ node: Int) -> Bool {
        nodes[node].status == .running && phase == .running
    }

    /// An async node's task is about to make an attempt: its numbers, or `nil` when the node may
    /// no longer run (the run was cancelled). The one count of a node's attempts.
    mutating func attemptStarting(_ node: Int) -> AttemptStart? {
        guard mayRun(node) else { return nil }
        nodes[node].attempts += 1
        let inLaunch = nodes[node].attempts
        return AttemptStart(node: node, attempt: attemptNumber(node, inLaunch: inLaunch), inLaunch: inLaunch)
    }

    /// The number of `node`'s attempt `inLaunch` of this launch, counting a durable run's earlier ones.
    private func attemptNumber(_ node: Int, inLaunch: Int) -> Int { (earlier.attemptsMade[node] ?? 0) + inLaunch }

    /// After a failed attempt of `node`: whether its retry budget allows another attempt, given
    /// its policy's `maxAttempts`. The attempts that failed in a durable run's earlier launches
    /// count against it, but one attempt is always left to a launch (a node out of attempts ended
    /// before it, and is not run).
    func mayRetry(_ node: Int, maxAttempts: Int) -> Bool {
        let budget = Swift.max(1, maxAttempts - (earlier.attemptsFailed[node] ?? 0))
        return nodes[node].attempts < budget
    }

    /// An async node ended, with its response (`nil` for `Void`) or its error, after the attempts
    /// the machine counted. Ignored when the node was cancelled meanwhile.
    ///
    /// - Parameter handsOn: the node's task may run one node that this end starts, instead of a task
    ///   of its own. Then the first node started is ``RunSteps/handedOn`` rather than in
    ///   `startAsync`, unless the end also schedules sync work: the task applies that first, and
    ///   the next node must not wait for it.
    mutating func asyncFinished(
        _ node: Int, _ result: consuming Result<(any Sendable)?, any Error>,
        now: Duration, handsOn: Bool = false
    ) -> RunSteps {
        let now = advance(to: now)
        var effects = RunSteps()
        guard nodes[node].status == .running, phase == .running else { return effects }
        switch consume result {
        case .success(let response):
            store(consume response, of: node)
            succeed(node, now: now, handingOn: handsOn, &effects)
        case .failure(let error):
            markFailed(node, error, now: now, &effects)
            skipDependents(of: node, now: now, &effects)
        }
        playDueReplays(now: now, &effects)
        checkFinished(&effects)
        // `flags`, not the `schedule` getter: a getter called on the steps makes the optimizer copy them.
        if effects.flags.contains(.schedule), let next = effects.handedOn {
            effects.handedOn = nil
            effects.startAsync.prepend(next)
        }
        return effects
    }

    /// Cancels the run: every node that has not started, and every async node in flight, ends
    /// `.cancelled` now; their workers are to be cancelled; no fallback is sent from now on. A sync
    /// item being applied at this moment completes (a node) or is refused (a fallback, see
    /// ``mayApplyFallback``); the run finishes once it is accounted for. Calling it again does nothing.
    ///
    /// The graph's cancel action, if it has one, is queued for the pipeline (after the item being
    /// applied, if any) and the run finishes only once it is applied. It is sent when this cancel
    /// reaches a running run, and only then: not once the run has finished (the run ended first),
    /// not for a run cancelled before it started (refused: dispatched from a reducer or after its
    /// store was released; none of its nodes ran), not when `byStoreRelease` (the store is going
    /// away; its pipeline takes no more actions), and never twice.
    ///
    /// A cancel that finds nothing left to end in a running run (every node ended but the sync node
    /// being applied, which completes, and no fallback waits) is no cancel: the run finishes as it
    /// would have, with no cancel action (a subscriber of the run's last action may cancel it as its
    /// screen closes, with nothing to undo).
    ///
    /// A cancel that counts (the run had not finished) is listed first
    /// (``RunStep/runCancelled(byStoreRelease:)``: a durable run journals it). Every cancel waits for
    /// a reducer call in progress (``RunStep/awaitReducerInProgress``).
    mutating func cancel(now: Duration, byStoreRelease: Bool = false) -> RunSteps {
        let now = advance(to: now)
        var effects = RunSteps()
        effects.flags.set(.awaitReducerInProgress, true)
        guard phase == .notStarted || (phase == .running && hasWorkToEnd) else { return effects }
        effects.cancelledByStoreRelease = byStoreRelease
        let sendsCancelAction = hasCancelAction && phase == .running && !byStoreRelease
        owesCancelAction = false  // sent now, or never
        phase = .cancelled
        isCancelled = true
        for node in nodes.indices {
            switch nodes[node].status {
            case .waiting, .ready:
                if let ended = replays.removeValue(forKey: node) {
                    // It ended in an earlier launch: it keeps the outcome it had, and releases nothing.
                    if nodes[node].start == nil { nodes[node].start = now }
                    switch ended.result {
                    case .success(let response):
                        store(response, of: node)
                        markTerminal(node, .succeeded, now: now, &effects)
                    case .failure(let error):
                        errors[node] = error
                        markTerminal(node, .failed, now: now, &effects)
                    }
                } else {
                    markTerminal(node, .cancelled, now: now, &effects)
                }
            case .running where !nodes[node].isSync:
                markTerminal(node, .cancelled, now: now, &effects)
                effects.cancelWorkers.append(node)
            default:
                break
            }
        }
        readySync = ReadyQueue()
        replays = [:]
        replayedEnds = ReplayQueue()
        if case .fallback = itemInHand { pendingFallbacks = 1 } else { pendingFallbacks = 0 }
        if sendsCancelAction {
            isCancelActionPending = true
            enqueueSync(.cancelAction, &effects)
        }
        if !hasSyncWorkPending { resumeSyncWorkWaiters(&effects) }
        checkFinished(&effects)
        return effects
    }

    /// The owner the run was dispatched under ended: each node that has not ended does what its
    /// policy says (``OwnerEndPolicy``; `.cancel` for a node without one). Nodes are decided in
    /// graph order, so every prerequisite is decided before its dependents: a node outlives the
    /// owner when its policy, or the `.finishWithDependents` of a node it depends on (directly or
    /// not), says so, and every prerequisite it still waits for outlives it too. Every other node
    /// that has not ended ends `.cancelled` as with ``cancel(now:byStoreRelease:)``: its worker is
    /// cancelled, it leaves the ready queue, and a fallback of a node that does not outlive the
    /// owner is dropped (refused if in hand). A sync node being applied at this moment completes.
    ///
    /// When nothing outlives the owner, this is ``cancel(now:byStoreRelease:)`` (the graph's cancel
    /// action included). Otherwise the run goes on with what outlives it, in the usual order, and
    /// when the end cancelled a node, the graph's cancel action is applied once that is done, as the
    /// run's last action (what the run started is undone even though part of it finished). An
    /// end that comes before the run started is decided by ``start(now:endedBefore:)``, before it
    /// releases anything (and sends no cancel action: none of the run's nodes ran). Calling it
    /// again, or on a run that finished or was cancelled, does nothing. Every owner's end waits
    /// for a reducer call in progress, as a cancel does.
    mutating func ownerEnded(now: Duration, policies: [Int: OwnerEndPolicy]) -> RunSteps {
        var effects = RunSteps()
        effects.flags.set(.awaitReducerInProgress, true)
        guard phase == .notStarted || phase == .running, !isEndedByOwner else { return effects }
        isEndedByOwner = true
        guard phase == .running else {
            ownerEndedBeforeStart = policies
            return effects
        }
        let (outlives, wanted) = outliving(policies)
        guard outlives.contains(true) else {
            for node in nodes.indices where !nodes[node].status.isTerminal && !isInHand(node) {
                cancelledByOwner.insert(node)
            }
            return cancel(now: now)
        }
        let now = advance(to: now)
        endForOwner(outlives: outlives, wanted: wanted, now: now, &effects)
        owesCancelAction = hasCancelAction && !cancelledByOwner.isEmpty
        if !hasSyncWorkPending { resumeSyncWorkWaiters(&effects) }
        checkFinished(&effects)
        return effects
    }

    /// The policies of an owner that ended before the run started, for its start to decide.
    private var ownerEndedBeforeStart: [Int: OwnerEndPolicy]?
    /// The nodes that ended `.cancelled` because the owner ended (for the run's events).
    private(set) var cancelledByOwner: Set<Int> = []

    private func isInHand(_ node: Int) -> Bool {
        if case .node(node) = itemInHand { true } else { false }
    }

    /// Whether a cancel now would end anything: a node that has not ended, other than the sync node
    /// being applied (which completes), or a fallback not applied yet (one in hand is refused).
    private var hasWorkToEnd: Bool {
        pendingFallbacks > 0 || nodes.indices.contains { !nodes[$0].status.isTerminal && !isInHand($0) }
    }

    /// Which nodes outlive the owner under `policies`, and which nodes' policies (or ancestors')
    /// want them to (a failed node's fallback is kept on that), decided in graph order.
    private func outliving(_ policies: [Int: OwnerEndPolicy]) -> (outlives: [Bool], wanted: [Bool]) {
        var wanted = [Bool](repeating: false, count: nodes.count)
        var outlives = [Bool](repeating: false, count: nodes.count)
        guard !policies.isEmpty else { return (outlives, wanted) }
        var inheritsFinish = [Bool](repeating: false, count: nodes.count)
        var blocked = [Bool](repeating: false, count: nodes.count)
        for node in nodes.indices {
            let policy = policies[node] ?? .cancel
            if policy == .finishWithDependents { inheritsFinish[node] = true }
            wanted[node] = policy != .cancel || inheritsFinish[node]
            let status = nodes[node].status
            let alive: Bool
            if status.isTerminal {
                alive = status == .succeeded
            } else {
                outlives[node] = wanted[node] && !blocked[node]
                alive = outlives[node]
            }
            for edge in dependentPlaces(of: node) {
                let dependent = Int(dependents[edge])
                if inheritsFinish[node] { inheritsFinish[dependent] = true }
                if !alive { blocked[dependent] = true }
            }
        }
        return (outlives, wanted)
    }

    /// Ends `.cancelled` every node that has not ended and does not outlive the owner (a sync node
    /// in hand completes), and drops its ready sync work and the fallbacks no policy wants.
    private mutating func endForOwner(outlives: [Bool], wanted: [Bool], now: Duration, _ effects: inout RunSteps) {
        for node in nodes.indices where !outlives[node] && !isInHand(node) {
            switch nodes[node].status {
            case .waiting, .ready:
                // Like a cancel: a node that never started keeps no start, so its report shows no try.
                cancelledByOwner.insert(node)
                markTerminal(node, .cancelled, now: now, &effects)
            case .running where !nodes[node].isSync:
                cancelledByOwner.insert(node)
                markTerminal(node, .cancelled, now: now, &effects)
                effects.cancelWorkers.append(node)
            default:
                break
            }
        }
        for item in readySync.takeAll() {
            switch item {
            case .node(let node) where !outlives[node]:
                continue
            case .fallback(let node) where !wanted[node]:
                pendingFallbacks -= 1
            default:
                readySync.append(item)
            }
        }
        if case .fallback(let node) = itemInHand, !wanted[node] { droppedFallback = node }
    }

    /// At the start of a run whose owner ended before it: what does not outlive the owner ends
    /// `.cancelled` before anything is released (and the run counts as cancelled when nothing does).
    private mutating func endForOwnerAtStart(now: Duration, _ effects: inout RunSteps) {
        guard let policies = ownerEndedBeforeStart.take() else { return }
        let (outlives, wanted) = outliving(policies)
        if !outlives.contains(true) { isCancelled = true }
        endForOwner(outlives: outlives, wanted: wanted, now: now, &effects)
    }

    /// Whether a fallback taken from this run may still reach the reducer: not once the run was cancelled.
    /// Nor once the owner's end dropped the fallback in hand.
    var mayApplyFallback: Bool {
        guard phase == .running else { return false }
        guard let dropped = droppedFallback else { return true }
        return itemInHand != .fallback(dropped)
    }

    /// Waits for `node` to be terminal: returns `waiter` back when it already is (resume it at once),
    /// unless the run still has sync work ready or in hand, which the waiter waits for too.
    mutating func awaitNode(_ node: Int, _ waiter: Waiter) -> Waiter? {
        if nodes[node].status.isTerminal {
            guard hasSyncWorkPending else { return resumeOrHold(waiter) }
            syncWorkWaiters.append(waiter)
            return nil
        }
        nodeWaiters[node, default: SmallList()].append(waiter)
        return nil
    }

    /// Waits for the run to finish: returns `waiter` back when it already has (resume it at once).
    mutating func awaitFinish(_ waiter: Waiter) -> Waiter? {
        if phase == .finished { return resumeOrHold(waiter) }
        finishWaiters.append(waiter)
        return nil
    }

    // MARK: Waiters held until the pipeline is left

    /// Decides, after an event, whether its waiters resume now or when the store's pipeline is
    /// left. An event on a thread applying actions (a sync node applied, a subscriber that cancels)
    /// makes the run hold its waiters until that thread leaves the pipeline, so that a node's
    /// waiter resumes after what subscribers and middleware dispatched in answer to it, the way a
    /// `dispatch` returns after them. The first such event sets ``RunSteps/holdsWaiters`` (the shell
    /// asks the store to call ``pipelineLeft()`` then); while waiters are held, every waiter an event
    /// resumes, or that would resume at once, joins them.
    mutating func holdWaiters(insidePipeline: Bool, _ effects: inout RunSteps) {
        if insidePipeline, heldForPipelineExit == nil {
            heldForPipelineExit = SmallList()
            effects.flags.set(.holdWaitersUntilPipelineExit, true)
        }
        guard !effects.resume.isEmpty, heldForPipelineExit != nil else { return }
        heldForPipelineExit! += effects.resume  // the common case, none held yet: no copy
        effects.resume = SmallList()
    }

    /// The store's pipeline was left: the waiters held until then, to resume now.
    mutating func pipelineLeft() -> SmallList<Waiter> {
        heldForPipelineExit.take() ?? SmallList()
    }

    /// Whether the run holds its waiters until the store's pipeline is left.
    var holdsWaitersForPipelineExit: Bool { heldForPipelineExit != nil }

    /// A waiter that need not wait: resumed now, or held with the others until the pipeline is left.
    private mutating func resumeOrHold(_ waiter: Waiter) -> Waiter? {
        guard heldForPipelineExit != nil else { return waiter }
        heldForPipelineExit!.append(waiter)
        return nil
    }

    /// Whether sync work is ready or being applied.
    private var hasSyncWorkPending: Bool { itemInHand != nil || !readySync.isEmpty }

    // MARK: Transitions

    /// A node that ended in an earlier launch of a durable run, as its journal tells it.
    struct EndedBefore: Sendable {
        let node: Int
        /// Its response (`nil` for `Void` or a sync node), or its error.
        let result: Result<(any Sendable)?, any Error>
        /// Whether its fallback is still to be applied (it failed, and the fallback was not applied
        /// in the state this launch starts from).
        var sendsFallback = true
        /// It was cancelled before this launch (its run was cancelled): it ends `.cancelled`, and
        /// its dependents are not released through it (each is replayed too, or never ready).
        var isCancelled = false
        /// Where its end came among the run's ends: the position of its record in the journal, or
        /// `Int.max` for an end settled by this launch (after every recorded one). Replayed async
        /// nodes released together play in this order; equal ones in the order they were released.
        var order = 0
    }

    /// Plays the replayed ends that are due, in the order an uninterrupted run would have had them:
    /// the async ones released so far, in release order, and a replayed sync node at the front of
    /// `readySync` while no item is in hand. Called at the end of every event that can release
    /// nodes, so the front of `readySync` is never a replay when the pipeline takes an item.
    private mutating func playDueReplays(now: Duration, _ effects: inout RunSteps) {
        guard !replays.isEmpty else { return }
        while true {
            if let node = replayedEnds.popFirst() {
                play(node, now: now, &effects)
            } else if itemInHand == nil, case .node(let node) = readySync.first, replays[node] != nil {
                _ = readySync.popFirst()
                play(node, now: now, &effects)
            } else {
                break
            }
        }
        if !readySync.isEmpty, !isScheduled {
            isScheduled = true
            effects.flags.set(.schedule, true)
        }
    }

    /// Keeps `response` as `node`'s (a `Void` response, `nil`, needs no slot).
    private mutating func store(_ response: consuming ResponseSlot, of node: Int) {
        guard response != nil else { return }
        if responses.isEmpty { responses = Self.emptySlots(nodes.count) }
        // Swapped in: a node succeeds once, so its slot is empty, and the response moves into it
        // instead of being assigned through the optional existential's value witnesses.
        swap(&responses[node], &response)
    }

    /// `count` empty response slots. Each is set to `nil` itself: `Array(repeating:count:)` would
    /// copy one slot into each through the existential's value witnesses.
    private static func emptySlots(_ count: Int) -> [ResponseSlot] {
        [ResponseSlot](unsafeUninitializedCapacity: count) { slots, initialized in
            for slot in 0..<count { slots.initializeElement(at: slot, to: nil) }
            initialized = count
        }
    }

    /// A released replay plays the end its journal recorded, as if it had just ended.
    private mutating func play(_ node: Int, now: Duration, _ effects: inout RunSteps) {
        guard let ended = replays.removeValue(forKey: node) else { return }
        nodes[node].start = now
        switch ended.result {
        case .success(let response):
            store(response, of: node)
            succeed(node, now: now, &effects)
        case .failure(let error):
            markTerminal(node, .failed, now: now, &effects)
            errors[node] = error
            if ended.sendsFallback, nodesWithFallback.contains(node), phase == .running {
                pendingFallbacks += 1
                enqueueSync(.fallback(node), &effects)
            }
            skipDependents(of: node, now: now, &effects)
        }
    }

    private mutating func resumeSyncWorkWaiters(_ effects: inout RunSteps) {
        guard !syncWorkWaiters.isEmpty else { return }
        effects.resume += syncWorkWaiters
        syncWorkWaiters = SmallList()
    }

    /// `time`, or the latest time seen if that is later (see `latestTime`).
    private mutating func advance(to time: Duration) -> Duration {
        latestTime = Swift.max(latestTime, time)
        return latestTime
    }

    /// - Parameter handingOn: an async node may go to the finishing node's task (see `asyncFinished`).
    private mutating func release(_ node: Int, now: Duration, handingOn: Bool = false, _ effects: inout RunSteps) {
        if !replays.isEmpty, let replay = replays[node] {
            // Ended in an earlier launch: never started again; its end plays where it is due.
            nodes[node].status = .ready
            if nodes[node].isSync {
                readySync.append(.node(node))
            } else {
                replayedEnds.insert(node, endedAt: replay.order)
            }
            return
        }
        if nodes[node].isSync {
            nodes[node].status = .ready
            enqueueSync(.node(node), &effects)
        } else {
            nodes[node].status = .running
            nodes[node].start = now
            if handingOn, effects.handedOn == nil { effects.handedOn = node } else { effects.startAsync.append(node) }
        }
    }

    private mutating func enqueueSync(_ item: SyncItem, _ effects: inout RunSteps) {
        readySync.append(item)
        if !isScheduled {
            isScheduled = true
            effects.flags.set(.schedule, true)
        }
    }

    private mutating func succeed(_ node: Int, now: Duration, handingOn: Bool = false, _ effects: inout RunSteps) {
        markTerminal(node, .succeeded, now: now, &effects)
        for edge in dependentPlaces(of: node) {
            let dependent = Int(dependents[edge])
            guard nodes[dependent].status == .waiting else { continue }
            nodes[dependent].remaining -= 1
            if nodes[dependent].remaining == 0 { release(dependent, now: now, handingOn: handingOn, &effects) }
        }
    }

    private mutating func markFailed(_ node: Int, _ error: any Error, now: Duration, _ effects: inout RunSteps) {
        markTerminal(node, .failed, now: now, &effects)
        errors[node] = error
        if nodesWithFallback.contains(node), phase == .running {
            pendingFallbacks += 1
            enqueueSync(.fallback(node), &effects)
        }
    }

    /// Marks everything downstream of `node` that is still waiting `.skipped`: none of it can have
    /// had all its prerequisites succeed.
    private mutating func skipDependents(of node: Int, now: Duration, _ effects: inout RunSteps) {
        var stack = [node]
        while let failed = stack.popLast() {
            for edge in dependentPlaces(of: failed) {
                let dependent = Int(dependents[edge])
                guard nodes[dependent].status == .waiting else { continue }
                markTerminal(dependent, .skipped, now: now, &effects)
                stack.append(dependent)
            }
        }
    }

    private mutating func markTerminal(_ node: Int, _ terminal: Status, now: Duration, _ effects: inout RunSteps) {
        nodes[node].status = terminal
        nodes[node].end = now
        lastEnd = Swift.max(lastEnd, now)
        terminalCount += 1
        if isObserved { effects.ended.append(node) }
        if !nodeWaiters.isEmpty, let waiters = nodeWaiters.removeValue(forKey: node) {
            effects.resume += waiters
        }
    }

    private mutating func checkFinished(_ effects: inout RunSteps) {
        guard phase == .running || phase == .cancelled,
            terminalCount == nodes.count, pendingFallbacks == 0, !isCancelActionPending, itemInHand == nil
        else { return }
        if owesCancelAction {
            owesCancelAction = false
            isCancelActionPending = true
            enqueueSync(.cancelAction, &effects)
            return
        }
        phase = .finished
        effects.finished = true
        // `+=` hands over the list itself when nothing else resumes (the common case): no copy.
        effects.resume += finishWaiters
        finishWaiters = SmallList()
        resumeSyncWorkWaiters(&effects)
        readySync = ReadyQueue()
    }
}

extension RunStateMachine {
    /// Sync work ready for the pipeline, first in, first out. Most runs have one item ready at a
    /// time: an item that finds the queue empty waits inline, with no allocation.
    struct ReadyQueue {
        /// The front item, when it came to an empty queue; the others follow it in `items`.
        private var front: SyncItem?
        /// The items behind `front`, consumed from `head`.
        private var items: [SyncItem] = []
        private var head = 0

        var isEmpty: Bool { front == nil && head == items.count }

        var first: SyncItem? { front ?? (head < items.count ? items[head] : nil) }

        mutating func append(_ item: SyncItem) {
            if isEmpty { front = item } else { items.append(item) }
        }

        mutating func popFirst() -> SyncItem? {
            if let item = front.take() { return item }
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                // Frees the consumed items, so the queue does not grow with the run.
                items.removeAll(keepingCapacity: items.count < 64)
                head = 0
            } else if head >= 64, head >= items.count - head {
                // A queue that never empties (each item applied releases more) drops its consumed
                // front once that is half the list, so it keeps about what waits rather than every
                // item of the run; the items moved are never more than those consumed since.
                items.removeFirst(head)
                head = 0
            }
            return item
        }

        /// Every item, in order, leaving the queue empty.
        mutating func takeAll() -> [SyncItem] {
            var all = front.take().map { [$0] } ?? []
            all += items[head...]
            items = []
            head = 0
            return all
        }
    }
}

/// A node's status in a run. The last four are terminal.
enum NodeStatus: UInt8, Sendable {
    case waiting, ready, running, succeeded, failed, skipped, cancelled

    var isTerminal: Bool { rawValue >= NodeStatus.succeeded.rawValue }

    /// How a node with this status ended; `nil` while it has not.
    var outcomeKind: OutcomeKind? {
        switch self {
        case .succeeded: .succeeded
        case .failed: .failed
        case .skipped: .skipped
        case .cancelled: .cancelled
        case .waiting, .ready, .running: nil
        }
    }
}

/// One node's bookkeeping in a run, as the state machine keeps it and a report reads it.
///
/// A run keeps one per node for its whole life, so its size is the machine's memory per node: its
/// times kept as whole nanoseconds (see ``start``) and its count of prerequisites in 32 bits keep
/// it at 32 bytes.
struct RunNodeState: Sendable {
    var status = NodeStatus.waiting
    let isSync: Bool
    private var remainingCount: UInt32 = 0
    private var startNanoseconds = Self.notYet
    private var endNanoseconds = Self.notYet
    /// Attempts started in this launch (a sync node makes one).
    var attempts = 0

    init(isSync: Bool) { self.isSync = isSync }

    /// Prerequisites that have not succeeded yet (the machine's init counts them).
    /// - Precondition: a node has at most `UInt32.max` prerequisites.
    var remaining: Int {
        get { Int(remainingCount) }
        set {
            guard let count = UInt32(exactly: newValue) else {
                preconditionFailure("OresRedux: a node has at most \(UInt32.max) prerequisites (kept as UInt32)")
            }
            remainingCount = count
        }
    }

    /// When it started, since the run started; `nil` until then. Kept in whole nanoseconds: a
    /// finer part, which a store's clock may read, is dropped, and a time past `Int64.max`
    /// nanoseconds (about 292 years, which only a test clock moved that far reaches) is kept as
    /// that much, so that such a clock never stops the store.
    var start: Duration? {
        get { Self.time(startNanoseconds) }
        set { startNanoseconds = Self.nanoseconds(newValue) }
    }

    /// When it ended, since the run started; `nil` until then. Kept as ``start`` is.
    var end: Duration? {
        get { Self.time(endNanoseconds) }
        set { endNanoseconds = Self.nanoseconds(newValue) }
    }

    /// A time not reached yet: the machine's times are never negative.
    private static let notYet: Int64 = -1

    private static func time(_ nanoseconds: Int64) -> Duration? {
        nanoseconds == notYet ? nil : .nanoseconds(nanoseconds)
    }

    private static func nanoseconds(_ time: Duration?) -> Int64 {
        guard let time else { return notYet }
        let nanoseconds: Int64?
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            nanoseconds = Int64(exactly: time.attoseconds / 1_000_000_000)
        } else {
            // The same value from the components, where `attoseconds` is missing (a slower division).
            let (seconds, attoseconds) = time.components
            let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let (sum, sumOverflows) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
            nanoseconds = overflow || sumOverflows ? nil : sum
        }
        // Times are never negative (see `notYet`); one too large for Int64 is kept as the largest.
        return Swift.max(0, nanoseconds ?? .max)
    }
}

// MARK: - Events and steps: what the shell feeds the machine, and what it returns

/// One thing to do after an event of a run, as ``RunStateMachine`` decided it.
///
/// The machine returns an event's steps as ``RunSteps``, in the order they must be done; the run's
/// observers (the durable journal, the run-event recorder) see every step under the run's lock,
/// and the shell (``GraphRun``) performs them after releasing it, with one `switch`.
enum RunStep: Equatable {
    /// The app cancelled the run (`byStoreRelease`: the store's release did), and the cancel
    /// counted: the run had not finished. A cancel that did not count has no step.
    case runCancelled(byStoreRelease: Bool)
    /// An attempt of a node starts (a sync node has one).
    case attemptStarted(AttemptStart)
    /// A node became terminal (listed only for an observed run).
    case nodeEnded(Int)
    /// Every node is terminal and every fallback was applied.
    case runFinished
    /// Wait until no reducer of the store is in progress: once a cancel's steps are done, none of
    /// the run's fallbacks is being reduced, and none can start.
    case awaitReducerInProgress
    /// Start a task for this async, delay or join node.
    case startTask(Int)
    /// Cancel the tasks of the nodes the cancel ended in flight (``RunSteps/cancelWorkers``).
    case cancelTasks
    /// The task that ran the node that just ended runs this node next.
    case handOn(Int)
    /// Deliver the events the observers queued.
    case deliverEvents
    /// Put the run in the store's pipeline: it has ready sync work.
    case schedule
    /// Ask the store to hand back the waiters the run holds once the pipeline is left.
    case holdWaitersUntilPipelineExit
    /// Resume these waiters now.
    case resume([RunStateMachine.Waiter])
    /// Resume these waiters behind the events queued so far (an observed run's).
    case resumeBehindEvents([RunStateMachine.Waiter])
    /// Resume the waiter whose wait was the event: it need not wait (behind the events queued so
    /// far when the run is observed). Always a wait's last step, so the shell's wait, which holds
    /// that waiter, performs it once the others are done.
    case resumeCaller(behindEvents: Bool)
    /// Leave the store's registry of runs.
    case leaveRegistry
    /// Apply this sync item through the pipeline now (the pipeline's applier thread).
    case apply(RunStateMachine.SyncItem)
    /// Go back in line behind the work the store has queued (the run stays scheduled).
    case yieldToQueuedWork

    /// A step without its payload (``RunSteps`` keeps the payloads): the order of the cases is the
    /// order in which an event's steps are done. `resume` stands for both kinds of resume.
    enum Kind: Int {
        case runCancelled, attemptStarted, nodeEnded, runFinished, awaitReducerInProgress, startTask
        case cancelTasks, handOn, deliverEvents, schedule, holdWaitersUntilPipelineExit, resume
        case resumeCaller, leaveRegistry, apply, yieldToQueuedWork
    }
}

/// An attempt as it starts: its number, which counts every attempt of the node, those of a
/// durable run's earlier launches included, and its number in this launch (what the retry
/// policy's backoff counts).
struct AttemptStart: Equatable, Sendable {
    let node: Int
    let attempt: Int
    let inLaunch: Int
}

/// What a durable run brings from its earlier launches into its machine's start.
struct EarlierLaunches: Sendable {
    /// The nodes that ended before this launch, in graph order.
    var endedBefore: [RunStateMachine.EndedBefore] = []
    /// Per async node, the attempts journaled before: its next attempt continues their numbers.
    var attemptsMade: [Int: Int] = [:]
    /// Per async node, the attempts that failed before: they count towards its retry policy.
    var attemptsFailed: [Int: Int] = [:]
}

/// The events a run's shell feeds its machine, one at a time, under the run's lock.
enum RunEvent {
    case start(now: Duration, earlier: EarlierLaunches)
    case cancel(now: Duration, byStoreRelease: Bool)
    /// The owner the run was dispatched under ended; each node's policy, for the nodes that set one.
    case ownerEnded(now: Duration, policies: [Int: OwnerEndPolicy])
    /// The pipeline reached the run's token.
    case takeSyncItem(now: Duration)
    case syncItemApplied(RunStateMachine.SyncItem, now: Duration, queuedWork: Bool)
    /// An async node's task is about to make an attempt; `now` only when the run is observed (its
    /// event shows the time), so that an unobserved run reads no clock per attempt.
    case attemptStarting(node: Int, now: Duration?)
    case asyncFinished(node: Int, Result<ResponseSlot, any Error>, now: Duration, handsOn: Bool)
    case awaitNode(Int, RunStateMachine.Waiter)
    case awaitFinish(RunStateMachine.Waiter)
}

/// An event's steps, in the order they must be done.
///
/// Kept as fields rather than a list, so that an event allocates nothing unless it names nodes or
/// waiters and copies nothing to be walked: ``kinds`` lists the kinds of step present, in the one
/// order the machine decides (what observers record first, then the tasks, the events' delivery,
/// the pipeline, the waiters behind the events and the sync work they wait for, the registry, and
/// the pipeline's next item), and the fields hold their nodes and waiters. Iterating yields the
/// same steps as ``RunStep``s, one per node or waiter list.
struct RunSteps: Sequence {
    /// The kinds of step that carry no payload, as the machine sets them; ``kinds`` adds those of
    /// the fields below.
    var flags = Kinds()
    /// Whether the store's release caused the cancel, when one counted (see ``cancelledByStoreRelease``).
    private var byStoreRelease = false
    var attemptStarted: AttemptStart? = nil
    /// Nodes that just became terminal, in the order they did; filled only when the run is
    /// observed (``RunStateMachine/isObserved``).
    var ended: [Int] = []
    /// Async, delay and join nodes that just started: run each on a task.
    var startAsync = SmallList<Int>()
    /// Async nodes in flight that were cancelled: cancel their tasks.
    var cancelWorkers: [Int] = []
    /// An async node that just started, for the task whose node's end started it to run next
    /// (see ``RunStateMachine/asyncFinished(_:_:now:handsOn:)``); not in `startAsync`.
    var handedOn: Int? = nil
    /// Waiters whose node (or the whole run) is terminal now.
    var resume = SmallList<RunStateMachine.Waiter>()
    /// What the pipeline does next, after a sync item was taken or applied; `nil` for other events.
    var syncStep: RunStateMachine.SyncStep? = nil
    /// When `syncStep` applies a fallback: the error its node failed with, for the fallback closure
    /// (so the shell reads no run state to build the action).
    var fallbackError: (any Error)? = nil

    /// The cancel counted, and whether the store's release was its cause (see
    /// ``RunStep/runCancelled(byStoreRelease:)``); `nil` for other events.
    var cancelledByStoreRelease: Bool? {
        get { flags.contains(.runCancelled) ? byStoreRelease : nil }
        set {
            flags.set(.runCancelled, newValue != nil)
            byStoreRelease = newValue ?? false
        }
    }
    /// The run just finished (it then leaves the store's registry).
    var finished: Bool {
        get { flags.contains(.runFinished) }
        set {
            flags.set(.runFinished, newValue)
            flags.set(.leaveRegistry, newValue)
        }
    }
    /// A cancel: wait for a reducer call in progress before anything else.
    var awaitsReducer: Bool { flags.contains(.awaitReducerInProgress) }
    /// The run is observed: deliver the events its observers queued, and resume waiters behind them.
    var observed: Bool { flags.contains(.deliverEvents) }
    /// The waiters to resume, with whether they resume behind the run's events.
    var resumedWaiters: ResumedWaiters { ResumedWaiters(numbers: resume, isObserved: observed) }
    /// Sync work became ready while the run was not scheduled: put the run in the store's pipeline.
    var schedule: Bool { flags.contains(.schedule) }
    /// The event came from a thread applying actions in the store's pipeline, and the run now
    /// holds its waiters until that thread leaves it (see ``RunStateMachine/holdWaiters(insidePipeline:_:)``).
    var holdsWaiters: Bool { flags.contains(.holdWaitersUntilPipelineExit) }
    /// The waiter whose wait was the event resumes now.
    var resumesCaller: Bool { flags.contains(.resumeCaller) }

    /// The kinds of step this event lists, in the order they are done.
    var kinds: Kinds {
        var kinds = flags
        if attemptStarted != nil { kinds.set(.attemptStarted, true) }
        if !ended.isEmpty { kinds.set(.nodeEnded, true) }
        if !startAsync.isEmpty { kinds.set(.startTask, true) }
        if !cancelWorkers.isEmpty { kinds.set(.cancelTasks, true) }
        if handedOn != nil { kinds.set(.handOn, true) }
        if !resume.isEmpty { kinds.set(.resume, true) }
        switch syncStep {
        case .apply: kinds.set(.apply, true)
        case .yield: kinds.set(.yieldToQueuedWork, true)
        case .idle, nil: break
        }
        return kinds
    }

    /// A set of step kinds, one bit each, that yields them in the order they are done.
    struct Kinds: Sequence, IteratorProtocol {
        private var bits: UInt16 = 0

        mutating func set(_ kind: RunStep.Kind, _ present: Bool) {
            if present { bits |= 1 << kind.rawValue } else { bits &= ~(1 << kind.rawValue) }
        }

        func contains(_ kind: RunStep.Kind) -> Bool { bits & (1 << kind.rawValue) != 0 }

        mutating func next() -> RunStep.Kind? {
            guard bits != 0 else { return nil }
            let kind = RunStep.Kind(rawValue: bits.trailingZeroBitCount)!
            bits &= bits - 1
            return kind
        }
    }

    /// The step of `kind` with its payload; for the kinds that list nodes, the one at `index`.
    /// `kind` is one of ``kinds``.
    func step(_ kind: RunStep.Kind, at index: Int = 0) -> RunStep {
        switch kind {
        case .runCancelled: .runCancelled(byStoreRelease: cancelledByStoreRelease ?? false)
        case .attemptStarted: .attemptStarted(attemptStarted!)
        case .nodeEnded: .nodeEnded(ended[index])
        case .runFinished: .runFinished
        case .awaitReducerInProgress: .awaitReducerInProgress
        case .startTask: .startTask(startAsync[index])
        case .cancelTasks: .cancelTasks
        case .handOn: .handOn(handedOn!)
        case .deliverEvents: .deliverEvents
        case .schedule: .schedule
        case .holdWaitersUntilPipelineExit: .holdWaitersUntilPipelineExit
        case .resume: observed ? .resumeBehindEvents(Array(resume)) : .resume(Array(resume))
        case .resumeCaller: .resumeCaller(behindEvents: observed)
        case .leaveRegistry: .leaveRegistry
        case .apply:
            if case .apply(let item) = syncStep {
                .apply(item)
            } else {
                preconditionFailure("OresRedux: no item to apply")
            }
        case .yieldToQueuedWork: .yieldToQueuedWork
        }
    }

    /// How many steps of `kind` there are: one per node for the kinds that list nodes.
    private func count(of kind: RunStep.Kind) -> Int {
        switch kind {
        case .nodeEnded: ended.count
        case .startTask: startAsync.count
        default: 1
        }
    }

    func makeIterator() -> Iterator { Iterator(steps: self) }

    struct Iterator: IteratorProtocol {
        let steps: RunSteps
        private var kinds: Kinds
        private var current: (kind: RunStep.Kind, index: Int)?

        init(steps: RunSteps) {
            self.steps = steps
            self.kinds = steps.kinds
        }

        mutating func next() -> RunStep? {
            if let (kind, index) = current, index < steps.count(of: kind) {
                current = (kind, index + 1)
                return steps.step(kind, at: index)
            }
            guard let kind = kinds.next() else { return nil }
            current = (kind, 1)
            return steps.step(kind)
        }
    }
}

extension Array {
    /// `count` copies of `value`, as `init(repeating:count:)` makes them, but allocated by code
    /// specialized for the element type: `init(repeating:count:)` allocates through the standard
    /// library's unspecialized code, which looks up the storage's generic metadata at every call.
    init(filledWith value: Element, count: Int) {
        self.init()
        reserveCapacity(count)
        append(contentsOf: repeatElement(value, count: count))
    }
}

extension RunStateMachine {
    /// Replayed async nodes released and not played yet, the earliest end first; equal ends in the
    /// order they were released.
    struct ReplayQueue {
        private struct Released: Comparable {
            let order: Int
            let released: Int
            let node: Int

            static func < (lhs: Released, rhs: Released) -> Bool {
                (lhs.order, lhs.released) < (rhs.order, rhs.released)
            }
        }

        private var heap = MinHeap<Released>()
        private var released = 0

        mutating func insert(_ node: Int, endedAt order: Int) {
            heap.insert(Released(order: order, released: released, node: node))
            released += 1
        }

        mutating func popFirst() -> Int? {
            heap.isEmpty ? nil : heap.removeFirst().node
        }
    }
}
