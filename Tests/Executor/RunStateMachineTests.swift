import Testing

@testable import OresRedux

/// The run's state machine, event by event, with no task, lock or store: each test feeds events
/// the way `GraphRun` and the store's pipeline do and checks the decisions that come back.
@Suite("Run state machine")
struct RunStateMachineTests {
    typealias Machine = RunStateMachine

    struct Offline: Error {}

    /// A machine for nodes given as (isSync, prerequisites).
    static func machine(
        _ nodes: [(sync: Bool, after: [Int])], fallbacks: Set<Int> = [],
        problems: [Int: any Error] = [:]
    ) -> Machine {
        var prerequisites: [Int] = []
        var ends: [Int] = []
        for node in nodes {
            prerequisites += node.after
            ends.append(prerequisites.count)
        }
        return Machine(
            isSync: nodes.map(\.sync), prerequisites: prerequisites, prerequisiteEnds: ends,
            nodesWithFallback: fallbacks, problems: problems)
    }

    static func at(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }

    @Test("start releases the roots: sync roots wait for the pipeline, async roots start")
    func startReleasesRoots() {
        var machine = Self.machine([(true, []), (false, []), (true, []), (true, [1])])
        let effects = machine.start(now: .zero)
        #expect(effects.schedule, "ready sync work asks for the pipeline once")
        #expect(effects.startAsync == [1])
        #expect(machine.isScheduled)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        let (applied, next) = machine.syncItemApplied(.node(0), now: Self.at(1), queuedWork: false)
        #expect(!applied.schedule)
        #expect(next == .apply(.node(2)), "ready together: in the order they were added")
        let (_, last) = machine.syncItemApplied(.node(2), now: Self.at(2), queuedWork: false)
        #expect(last == .idle)
        #expect(!machine.isScheduled, "only .idle leaves the pipeline")
    }

    @Test("an event inside the pipeline holds the run's waiters until the pipeline is left")
    func waitersHeldUntilThePipelineIsLeft() {
        var machine = Self.machine([(true, [])])
        var started = machine.start(now: .zero)
        machine.holdWaiters(insidePipeline: false, &started)
        #expect(!started.holdsWaiters, "an event outside the pipeline holds nothing")
        #expect(machine.awaitNode(0, 1) == nil, "node 0 is not applied yet")
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        var (applied, _) = machine.syncItemApplied(.node(0), now: Self.at(1), queuedWork: false)
        #expect(applied.resume.contains(1))
        machine.holdWaiters(insidePipeline: true, &applied)
        #expect(applied.holdsWaiters, "the first event inside asks the store to call back at the exit")
        #expect(applied.resume.isEmpty, "the waiter resumes after what subscribers dispatched")
        #expect(machine.awaitFinish(2) == nil, "a waiter that would resume at once is held too")
        #expect(Set(machine.pipelineLeft()) == [1, 2])
        #expect(!machine.holdsWaitersForPipelineExit)
        #expect(machine.awaitFinish(3) == 3, "once the pipeline is left, at once again")
    }

    @Test("a release after the run went idle schedules it again, exactly once")
    func releaseAfterIdleSchedulesAgain() {
        var machine = Self.machine([(false, []), (true, [0]), (true, [0])])
        _ = machine.start(now: .zero)
        #expect(!machine.isScheduled)
        let effects = machine.asyncFinished(0, .success(nil), now: Self.at(5))
        #expect(effects.schedule)
        #expect(machine.isScheduled)
        #expect(machine.takeSyncItem(now: Self.at(5)) == .node(1))
    }

    @Test("an end offered to hand on names the first async node it starts; the others get tasks of their own")
    func handOnNamesTheFirstStartedNode() {
        var machine = Self.machine([(false, []), (false, [0]), (false, [0])])
        _ = machine.start(now: .zero)
        let effects = machine.asyncFinished(0, .success(nil), now: Self.at(1), handsOn: true)
        #expect(effects.handedOn == 1)
        #expect(effects.startAsync == [2])
        var plain = Self.machine([(false, []), (false, [0]), (false, [0])])
        _ = plain.start(now: .zero)
        let unoffered = plain.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(unoffered.handedOn == nil)
        #expect(unoffered.startAsync == [1, 2])
    }

    @Test("an end that also needs the pipeline hands nothing on: the task applies that sync work first")
    func handOnYieldsToScheduledSyncWork() {
        var machine = Self.machine([(false, []), (false, [0]), (true, [0])])
        _ = machine.start(now: .zero)
        let effects = machine.asyncFinished(0, .success(nil), now: Self.at(1), handsOn: true)
        #expect(effects.schedule)
        #expect(effects.handedOn == nil)
        #expect(effects.startAsync == [1], "back in startAsync, in the order it was released")
    }

    @Test("work queued in the store goes first: the run yields and stays scheduled")
    func yieldKeepsTheRunScheduled() {
        var machine = Self.machine([(true, []), (true, []), (false, []), (true, [2])])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        let (_, step) = machine.syncItemApplied(.node(0), now: Self.at(1), queuedWork: true)
        #expect(step == .yield)
        #expect(machine.isScheduled)
        // Meanwhile the async node finishes: its sync dependent needs no second token.
        let effects = machine.asyncFinished(2, .success(nil), now: Self.at(2))
        #expect(!effects.schedule)
        #expect(machine.takeSyncItem(now: Self.at(3)) == .node(1))
        let (_, next) = machine.syncItemApplied(.node(1), now: Self.at(4), queuedWork: false)
        #expect(next == .apply(.node(3)))
    }

    @Test("the pipeline reaching a token with nothing ready leaves the run idle")
    func emptyTokenGoesIdle() {
        var machine = Self.machine([(true, []), (false, [])])
        _ = machine.start(now: .zero)
        _ = machine.cancel(now: Self.at(1))
        #expect(machine.takeSyncItem(now: Self.at(1)) == nil)
        #expect(!machine.isScheduled)
        #expect(machine.isFinished)
    }

    @Test("a failure skips everything downstream, sends its fallback, and the run finishes after it")
    func failureSkipsAndFallsBack() {
        var machine = Self.machine([(false, []), (true, [0]), (true, [1]), (true, [])], fallbacks: [0])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(3))
        _ = machine.syncItemApplied(.node(3), now: Self.at(1), queuedWork: false)
        _ = machine.attemptStarting(0)
        #expect(machine.mayRetry(0, maxAttempts: 2))
        _ = machine.attemptStarting(0)
        let effects = machine.asyncFinished(0, .failure(Offline()), now: Self.at(2))
        #expect(effects.schedule)
        #expect(machine.status(of: 1) == .skipped)
        #expect(machine.status(of: 2) == .skipped)
        #expect(!machine.isFinished, "its fallback is still to be applied")
        #expect(machine.takeSyncItem(now: Self.at(2)) == .fallback(0))
        #expect(machine.mayApplyFallback)
        let (done, step) = machine.syncItemApplied(.fallback(0), now: Self.at(3), queuedWork: false)
        #expect(step == .idle)
        #expect(done.finished)
        #expect(machine.nodes[0].attempts == 2)
    }

    @Test("cancel ends what has not finished, cancels async work in flight, and ignores late answers")
    func cancelEndsEverything() {
        var machine = Self.machine([(false, []), (true, [0]), (true, []), (false, [])], fallbacks: [3])
        _ = machine.start(now: .zero)
        let effects = machine.cancel(now: Self.at(1))
        #expect(Set(effects.cancelWorkers) == [0, 3])
        #expect(effects.finished)
        #expect((0..<4).allSatisfy { machine.status(of: $0) == .cancelled })
        let late = machine.asyncFinished(3, .failure(Offline()), now: Self.at(2))
        #expect(!late.schedule, "no fallback after a cancel")
        #expect(machine.status(of: 3) == .cancelled)
    }

    @Test("cancel while a sync node is being applied: it completes, then the run finishes")
    func cancelDuringASyncNode() {
        var machine = Self.machine([(true, []), (true, [0])])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        let cancelled = machine.cancel(now: Self.at(1))
        #expect(!cancelled.finished)
        #expect(machine.status(of: 1) == .cancelled)
        let (effects, step) = machine.syncItemApplied(.node(0), now: Self.at(2), queuedWork: false)
        #expect(machine.status(of: 0) == .succeeded)
        #expect(effects.finished)
        #expect(step == .idle)
    }

    @Test("cancel while a fallback is in hand: it is refused, accounted for, and the run finishes")
    func cancelDuringAFallback() {
        var machine = Self.machine([(false, [])], fallbacks: [0])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        #expect(machine.takeSyncItem(now: Self.at(1)) == .fallback(0))
        #expect(!machine.cancel(now: Self.at(2)).finished)
        #expect(!machine.mayApplyFallback)
        let (effects, _) = machine.syncItemApplied(.fallback(0), now: Self.at(3), queuedWork: false)
        #expect(effects.finished)
    }

    @Test("waiters: at once when terminal, otherwise when their node (or the run) ends")
    func waiters() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        #expect(machine.awaitNode(0, 1) == nil)
        #expect(machine.awaitNode(1, 2) == nil)
        #expect(machine.awaitFinish(3) == nil)
        let finished = machine.asyncFinished(0, .success(42), now: Self.at(1))
        #expect(finished.resume == [1])
        #expect(machine.response(of: 0) as? Int == 42)
        #expect(machine.takeSyncItem(now: Self.at(1)) == .node(1))
        let (applied, _) = machine.syncItemApplied(.node(1), now: Self.at(2), queuedWork: false)
        #expect(applied.resume.sorted() == [2, 3])
        #expect(machine.awaitNode(1, 4) == 4)
        #expect(machine.awaitFinish(5) == 5)
    }

    @Test("a node's response is kept in its own slot; a `Void` response and a failure keep none")
    func responsesBySlot() {
        var machine = Self.machine([(false, []), (false, []), (false, []), (false, [])])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(machine.response(of: 0) == nil, "no slot is made for a Void response")
        _ = machine.asyncFinished(2, .success("ada"), now: Self.at(2))
        _ = machine.asyncFinished(1, .failure(Offline()), now: Self.at(3))
        _ = machine.asyncFinished(3, .success(7), now: Self.at(4))
        #expect(machine.response(of: 0) == nil)
        #expect(machine.response(of: 1) == nil)
        #expect(machine.response(of: 2) as? String == "ada")
        #expect(machine.response(of: 3) as? Int == 7)
    }

    @Test("a waiter that comes after its node ended still waits for the sync work ready or in hand")
    func lateWaiterWaitsForSyncWork() {
        var machine = Self.machine([(false, []), (true, [0]), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(machine.awaitNode(0, 1) == nil, "nodes 1 and 2, which node 0 released, are not applied yet")
        #expect(machine.takeSyncItem(now: Self.at(1)) == .node(1))
        let (first, next) = machine.syncItemApplied(.node(1), now: Self.at(2), queuedWork: false)
        #expect(first.resume.isEmpty)
        #expect(next == .apply(.node(2)))
        #expect(machine.awaitNode(1, 2) == nil, "node 2 is in hand")
        let (last, step) = machine.syncItemApplied(.node(2), now: Self.at(3), queuedWork: false)
        #expect(step == .idle)
        #expect(last.resume.sorted() == [1, 2])
        #expect(machine.awaitNode(0, 3) == 3, "nothing left to apply: at once")
    }

    @Test("a cancel resumes the waiters of ended nodes that waited for sync work it dropped")
    func cancelResumesSyncWorkWaiters() {
        var machine = Self.machine([(false, []), (true, [0]), (false, [])])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(machine.awaitNode(0, 1) == nil)
        let cancelled = machine.cancel(now: Self.at(2))
        #expect(cancelled.resume == [1])
    }

    @Test("a node built with bad input fails at start with its own error; its dependents are skipped")
    func problemsFailAtStart() {
        var machine = Self.machine(
            [(true, []), (true, [0]), (true, [1]), (true, [])],
            problems: [1: GraphError.foreignNode(index: 7)])
        _ = machine.start(now: .zero)
        #expect(machine.status(of: 1) == .failed)
        #expect(machine.errors[1] as? GraphError == .foreignNode(index: 7))
        #expect(machine.status(of: 2) == .skipped)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
    }

    @Test("a node's state keeps its times to the nanosecond and its count of prerequisites, in 32 bytes")
    func nodeStateRepresentation() {
        var node = RunNodeState(isSync: true)
        #expect(node.start == nil && node.end == nil && node.remaining == 0)
        node.start = .zero
        node.end = .seconds(3) + .nanoseconds(7)
        node.remaining = Int(UInt32.max)
        #expect(node.start == .zero)
        #expect(node.end == .seconds(3) + .nanoseconds(7))
        #expect(node.remaining == Int(UInt32.max))
        node.end = .nanoseconds(5) + .seconds(1) / 1_000_000_000_000
        #expect(node.end == .nanoseconds(5), "a finer part than a nanosecond is dropped")
        node.start = nil
        #expect(node.start == nil)
        #expect(MemoryLayout<RunNodeState>.size <= 32)
    }

    @Test(
        "a node's time past what Int64 nanoseconds hold (a test clock moved centuries) is kept as the largest, not a crash"
    )
    func nodeStateTimePastItsRange() {
        var node = RunNodeState(isSync: false)
        node.start = .seconds(300 * 365 * 24 * 3600)
        node.end = .seconds(Int64.max)
        #expect(node.start == .nanoseconds(Int64.max))
        #expect(node.end == .nanoseconds(Int64.max))
    }

    @Test("the ready queue hands out sync items first in, first out, across its inline front and its list")
    func readyQueueOrder() {
        var queue = Machine.ReadyQueue()
        queue.append(.node(0))
        queue.append(.fallback(1))
        #expect(queue.popFirst() == .node(0))
        queue.append(.cancelAction)
        #expect(queue.first == .fallback(1))
        #expect(queue.popFirst() == .fallback(1))
        #expect(queue.popFirst() == .cancelAction)
        #expect(queue.isEmpty && queue.popFirst() == nil)
        queue.append(.node(2))
        queue.append(.node(3))
        queue.append(.node(4))
        #expect(queue.popFirst() == .node(2))
        #expect(queue.takeAll() == [.node(3), .node(4)])
        #expect(queue.isEmpty)
    }

    @Test("a ready queue that never empties keeps its order as it drops the items it handed out")
    func readyQueueThatNeverEmpties() {
        var queue = Machine.ReadyQueue()
        var next = 0
        for _ in 0..<10 {
            queue.append(.node(next))
            next += 1
        }
        for expected in 0..<1_000 {
            #expect(queue.popFirst() == .node(expected))
            for _ in 0..<(expected % 3) {
                queue.append(.node(next))
                next += 1
            }
        }
        #expect(queue.takeAll() == (1_000..<next).map { .node($0) })
    }

    // On a plain thread: seconds of work under ThreadSanitizer, which on a pool thread would starve
    // the tests running beside this one. It reports what it found; the checks run here.
    @Test("a million-node chain starts, runs and cancels without deep recursion")
    func millionNodeChain() async {
        let (finishedByTheLastItem, isFinished) = await onThread { () -> (Bool?, Bool) in
            let count = 1_000_000
            var machine = Machine(
                isSync: Array(repeating: true, count: count),
                prerequisites: Array(0..<(count - 1)), prerequisiteEnds: Array(0..<count))
            _ = machine.start(now: .zero)
            var step = machine.takeSyncItem(now: .zero).map { Machine.SyncStep.apply($0) } ?? .idle
            var applied = 0
            while case .apply(let item) = step, applied < count / 2 {
                applied += 1
                step = machine.syncItemApplied(item, now: .zero, queuedWork: false).1
            }
            var finishedByTheLastItem: Bool?
            if case .apply(let item) = step {
                _ = machine.cancel(now: .zero)
                finishedByTheLastItem = machine.syncItemApplied(item, now: .zero, queuedWork: false).0.finished
            }
            return (finishedByTheLastItem, machine.isFinished)
        }
        if let finishedByTheLastItem { #expect(finishedByTheLastItem, "the item in hand at the cancel ends the run") }
        #expect(isFinished)
    }
}
