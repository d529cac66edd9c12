import Testing

@testable import OresRedux

/// The graph's cancel action, decided by the run's state machine, event by event, with no task, lock
/// or store: when it is queued, that it is applied once, and that the run finishes only after it.
@Suite("Run state machine: the cancel action")
struct CancelActionMachineTests {
    typealias Machine = RunStateMachine

    struct Offline: Error {}

    /// A machine for nodes given as (isSync, prerequisites), whose graph has a cancel action.
    static func machine(_ nodes: [(sync: Bool, after: [Int])], fallbacks: Set<Int> = []) -> Machine {
        var prerequisites: [Int] = []
        var ends: [Int] = []
        for node in nodes {
            prerequisites += node.after
            ends.append(prerequisites.count)
        }
        return Machine(
            isSync: nodes.map(\.sync), prerequisites: prerequisites, prerequisiteEnds: ends,
            nodesWithFallback: fallbacks, hasCancelAction: true)
    }

    static func at(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }

    /// Applies whatever the pipeline would take from the run now, until it goes idle; returns the items.
    static func drain(_ machine: inout Machine, now: Duration) -> [Machine.SyncItem] {
        var applied: [Machine.SyncItem] = []
        var step = machine.takeSyncItem(now: now).map { Machine.SyncStep.apply($0) } ?? .idle
        while case .apply(let item) = step {
            applied.append(item)
            step = machine.syncItemApplied(item, now: now, queuedWork: false).1
        }
        return applied
    }

    @Test("cancel while an async node runs: the cancel action is scheduled, and the run finishes after it")
    func cancelWhileAsyncRuns() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        #expect(!machine.isScheduled)
        let effects = machine.cancel(now: Self.at(1))
        #expect(effects.cancelWorkers == [0])
        #expect(effects.schedule, "the cancel action needs the pipeline")
        #expect(!effects.finished, "not before the cancel action is applied")
        #expect(machine.isCancelActionPending)
        #expect(machine.takeSyncItem(now: Self.at(1)) == .cancelAction)
        let (applied, step) = machine.syncItemApplied(.cancelAction, now: Self.at(2), queuedWork: false)
        #expect(applied.finished)
        #expect(step == .idle)
        #expect(!machine.isCancelActionPending)
    }

    @Test("cancel while a sync node is in hand: the node completes, then the cancel action, on the same token")
    func cancelWhileSyncNodeInHand() {
        var machine = Self.machine([(true, []), (true, [0]), (true, [])])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        let cancelled = machine.cancel(now: Self.at(1))
        #expect(!cancelled.schedule, "the run already holds its token: no second one")
        #expect(machine.status(of: 1) == .cancelled)
        #expect(machine.status(of: 2) == .cancelled, "ready but not taken: cancelled, never applied")
        let (effects, step) = machine.syncItemApplied(.node(0), now: Self.at(2), queuedWork: false)
        #expect(machine.status(of: 0) == .succeeded)
        #expect(!effects.finished)
        #expect(step == .apply(.cancelAction))
        let (done, last) = machine.syncItemApplied(.cancelAction, now: Self.at(3), queuedWork: false)
        #expect(done.finished)
        #expect(last == .idle)
    }

    @Test("cancel while the run is queued in the pipeline: the token it holds takes the cancel action")
    func cancelWhileQueued() {
        var machine = Self.machine([(true, []), (true, [])])
        let started = machine.start(now: .zero)
        #expect(started.schedule)
        let cancelled = machine.cancel(now: Self.at(1))
        #expect(!cancelled.schedule)
        #expect(Self.drain(&machine, now: Self.at(2)) == [.cancelAction], "no cancelled node is applied")
        #expect(machine.isFinished)
    }

    @Test("cancel after the run finished: no cancel action")
    func cancelAfterFinish() {
        var machine = Self.machine([(true, [])])
        _ = machine.start(now: .zero)
        #expect(Self.drain(&machine, now: Self.at(1)) == [.node(0)])
        #expect(machine.isFinished)
        let effects = machine.cancel(now: Self.at(2))
        #expect(!effects.schedule)
        #expect(!machine.isCancelActionPending)
        #expect(machine.takeSyncItem(now: Self.at(2)) == nil)
    }

    @Test("cancel while the run's last sync node is in hand: nothing left to end, so no cancel action")
    func cancelWithOnlyTheLastSyncNodeInHand() {
        // confirm the order (sync) after the charge (async): a subscriber of the confirmation cancels
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(machine.takeSyncItem(now: Self.at(1)) == .node(1))
        let cancelled = machine.cancel(now: Self.at(2))
        #expect(!cancelled.schedule)
        #expect(!machine.isCancelActionPending, "the cancel ended nothing: there is nothing to undo")
        let (effects, step) = machine.syncItemApplied(.node(1), now: Self.at(3), queuedWork: false)
        #expect(machine.status(of: 1) == .succeeded)
        #expect(effects.finished, "the run finishes as it would have")
        #expect(step == .idle)
        #expect(!machine.cancel(now: Self.at(4)).schedule, "nor does a cancel after the finish send it")
    }

    @Test("cancel while the last fallback is in hand: the fallback is refused, so the cancel action stands in")
    func cancelWithOnlyTheLastFallbackInHand() {
        var machine = Self.machine([(false, []), (true, [0])], fallbacks: [0])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        #expect(machine.status(of: 1) == .skipped)
        #expect(machine.takeSyncItem(now: Self.at(1)) == .fallback(0))
        _ = machine.cancel(now: Self.at(2))
        #expect(machine.isCancelActionPending)
        let (_, step) = machine.syncItemApplied(.fallback(0), now: Self.at(3), queuedWork: false)
        #expect(step == .apply(.cancelAction))
    }

    @Test("cancel before the run started: refused, so no cancel action, and the run finishes at once")
    func cancelBeforeStart() {
        var machine = Self.machine([(false, []), (true, [0])])
        let effects = machine.cancel(now: .zero)
        #expect(effects.finished)
        #expect(!effects.schedule)
        #expect(!machine.isCancelActionPending)
        #expect(machine.start(now: Self.at(1)).startAsync.isEmpty, "a cancelled run never starts")
    }

    @Test("cancelled by the store's release: no cancel action, the run finishes at once")
    func cancelByStoreRelease() {
        var machine = Self.machine([(false, [])])
        _ = machine.start(now: .zero)
        let effects = machine.cancel(now: Self.at(1), byStoreRelease: true)
        #expect(effects.finished)
        #expect(!effects.schedule)
    }

    @Test("cancel twice: one cancel action")
    func cancelTwice() {
        var machine = Self.machine([(false, [])])
        _ = machine.start(now: .zero)
        #expect(machine.cancel(now: Self.at(1)).schedule)
        let again = machine.cancel(now: Self.at(2))
        #expect(!again.schedule)
        #expect(Self.drain(&machine, now: Self.at(3)) == [.cancelAction])
        #expect(machine.isFinished)
        #expect(!machine.cancel(now: Self.at(4)).schedule, "nor after it finished")
    }

    @Test("cancel while a fallback is in hand: the fallback is refused, the cancel action comes after it")
    func cancelWhileFallbackInHand() {
        var machine = Self.machine([(false, [])], fallbacks: [0])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        #expect(machine.takeSyncItem(now: Self.at(1)) == .fallback(0))
        let cancelled = machine.cancel(now: Self.at(2))
        #expect(!cancelled.schedule)
        #expect(!machine.mayApplyFallback)
        let (effects, step) = machine.syncItemApplied(.fallback(0), now: Self.at(3), queuedWork: false)
        #expect(!effects.finished)
        #expect(step == .apply(.cancelAction))
        #expect(machine.syncItemApplied(.cancelAction, now: Self.at(4), queuedWork: false).0.finished)
    }

    @Test("cancel with only a queued fallback left: the fallback is dropped, the cancel action stands in for it")
    func cancelWithQueuedFallback() {
        var machine = Self.machine([(false, [])], fallbacks: [0])
        _ = machine.start(now: .zero)
        let failed = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        #expect(failed.schedule)
        #expect(!machine.isFinished, "its fallback is still to be applied")
        _ = machine.cancel(now: Self.at(2))
        #expect(Self.drain(&machine, now: Self.at(3)) == [.cancelAction])
        #expect(machine.isFinished)
    }

    @Test("work queued in the store goes before the cancel action: the run yields and stays scheduled")
    func cancelActionYields() {
        var machine = Self.machine([(true, []), (false, [])])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(0))
        _ = machine.cancel(now: Self.at(1))
        let (_, step) = machine.syncItemApplied(.node(0), now: Self.at(2), queuedWork: true)
        #expect(step == .yield)
        #expect(machine.isScheduled)
        #expect(Self.drain(&machine, now: Self.at(3)) == [.cancelAction])
        #expect(machine.isFinished)
    }

    // MARK: The owner's end

    @Test("an owner's end that cancels part of the run: the cancel action comes once what outlives it ended, last")
    func ownerEndCancellingPart() {
        // log in (kept by its policy), then the screen's sync node
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        let ended = machine.ownerEnded(now: Self.at(1), policies: [0: .finish])
        #expect(machine.status(of: 1) == .cancelled)
        #expect(!ended.schedule && !ended.finished, "nothing to apply while the call goes on")
        #expect(!machine.isCancelActionPending)
        let end = machine.asyncFinished(0, .success("token"), now: Self.at(2))
        #expect(end.schedule && !end.finished, "the run finishes only after its cancel action")
        #expect(Self.drain(&machine, now: Self.at(3)) == [.cancelAction])
        #expect(machine.isFinished && !machine.isCancelled)
    }

    @Test("an owner's end that cancels part of the run: a fallback kept by a policy goes before the cancel action")
    func ownerEndKeptFallbackThenCancelAction() {
        var machine = Self.machine([(false, []), (true, [0])], fallbacks: [0])
        _ = machine.start(now: .zero)
        _ = machine.ownerEnded(now: Self.at(1), policies: [0: .finish])
        let end = machine.asyncFinished(0, .failure(Offline()), now: Self.at(2))
        #expect(end.schedule)
        #expect(Self.drain(&machine, now: Self.at(3)) == [.fallback(0), .cancelAction])
        #expect(machine.isFinished)
    }

    @Test("an owner's end that every node outlives cancels nothing: no cancel action")
    func ownerEndCancellingNothing() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.ownerEnded(now: Self.at(1), policies: [0: .finishWithDependents])
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(2))
        #expect(Self.drain(&machine, now: Self.at(3)) == [.node(1)])
        #expect(machine.isFinished)
    }

    @Test("cancel after an owner's end that cancelled part of the run: one cancel action, at the cancel")
    func cancelAfterPartialOwnerEnd() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.ownerEnded(now: Self.at(1), policies: [0: .finish])
        let cancelled = machine.cancel(now: Self.at(2))
        #expect(cancelled.cancelWorkers == [0] && cancelled.schedule)
        #expect(Self.drain(&machine, now: Self.at(3)) == [.cancelAction])
        #expect(machine.isFinished)
        #expect(machine.asyncFinished(0, .success(nil), now: Self.at(4)).schedule == false, "and nothing owed after it")
    }

    @Test("the store's release after an owner's end that cancelled part of the run: no cancel action")
    func storeReleaseAfterPartialOwnerEnd() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.ownerEnded(now: Self.at(1), policies: [0: .finish])
        let released = machine.cancel(now: Self.at(2), byStoreRelease: true)
        #expect(released.finished && !released.schedule)
    }

    @Test("an owner's end before the run started: no cancel action, even when a node then runs")
    func ownerEndBeforeStartSendsNoCancelAction() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.ownerEnded(now: .zero, policies: [0: .finish])
        _ = machine.start(now: Self.at(1))
        let end = machine.asyncFinished(0, .success(nil), now: Self.at(2))
        #expect(end.finished && !end.schedule, "none of the run had started when its screen closed")
    }

    @Test("a graph without a cancel action: cancel finishes the run at once, as before")
    func noCancelAction() {
        var machine = Machine(isSync: [false], prerequisites: [], prerequisiteEnds: [0])
        _ = machine.start(now: .zero)
        let effects = machine.cancel(now: Self.at(1))
        #expect(effects.finished)
        #expect(!effects.schedule)
    }

    @Test("the machine lists the nodes that end, in order, only when asked to")
    func endedNodes() {
        var quiet = Self.machine([(false, []), (true, [0]), (true, [1])])
        _ = quiet.start(now: .zero)
        #expect(quiet.asyncFinished(0, .failure(Offline()), now: Self.at(1)).ended.isEmpty)

        var machine = Self.machine([(false, []), (true, [0]), (true, [1]), (true, [])])
        machine.isObserved = true
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(3))
        #expect(machine.syncItemApplied(.node(3), now: Self.at(1), queuedWork: false).0.ended == [3])
        let failed = machine.asyncFinished(0, .failure(Offline()), now: Self.at(2))
        #expect(failed.ended == [0, 1, 2], "the failed node, then what it skipped, downstream order")
    }
}
