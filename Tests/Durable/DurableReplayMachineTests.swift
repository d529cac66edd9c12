import Testing

@testable import OresRedux

/// Resume replays what a durable run's journal says ended before the relaunch through the run's
/// own state machine, so the release rule stays in one place: event by event, no task or store.
@Suite("Durable runs: the state machine replays nodes that ended before the relaunch")
struct DurableReplayMachineTests {
    typealias Machine = RunStateMachine
    typealias Ended = RunStateMachine.EndedBefore

    struct Offline: Error {}

    /// upload (async) -> show (sync, after upload) -> notify (async, after show)
    static func chain(fallbacks: Set<Int> = []) -> Machine {
        Machine(
            isSync: [false, true, false], prerequisites: [0, 1], prerequisiteEnds: [0, 1, 2],
            nodesWithFallback: fallbacks)
    }

    @Test("a node that finished before is not started again; its response flows to its dependents")
    func finishedNodeIsNotStartedAgain() {
        var machine = Self.chain()
        let effects = machine.start(now: .zero, endedBefore: [Ended(node: 0, result: .success("https://cdn/p.jpg"))])
        #expect(effects.startAsync.isEmpty, "upload ended before this launch: never started again")
        #expect(effects.schedule, "show, now ready, asks for the pipeline")
        #expect(machine.status(of: 0) == .succeeded)
        #expect(machine.response(of: 0) as? String == "https://cdn/p.jpg")
        #expect(machine.takeSyncItem(now: .zero) == .node(1))
    }

    @Test("a sync node already in the persisted state is not applied again; what waits on it starts")
    func appliedSyncNodeIsNotAppliedAgain() {
        var machine = Self.chain()
        let effects = machine.start(
            now: .zero,
            endedBefore: [Ended(node: 0, result: .success("url")), Ended(node: 1, result: .success(nil))])
        #expect(!effects.schedule, "nothing to apply")
        #expect(effects.startAsync == [2], "notify runs as usual")
    }

    @Test("a node that failed before skips its dependents and sends its fallback once, unless it was applied")
    func failedNodeSendsItsFallbackUnlessApplied() {
        var machine = Self.chain(fallbacks: [0])
        let effects = machine.start(now: .zero, endedBefore: [Ended(node: 0, result: .failure(Offline()))])
        #expect(effects.schedule)
        #expect(machine.takeSyncItem(now: .zero) == .fallback(0))
        let (done, step) = machine.syncItemApplied(.fallback(0), now: .zero, queuedWork: false)
        #expect(step == .idle)
        #expect(done.finished, "show and notify were skipped: the run is over")
        #expect(machine.status(of: 2) == .skipped)

        var applied = Self.chain(fallbacks: [0])
        let quiet = applied.start(
            now: .zero, endedBefore: [Ended(node: 0, result: .failure(Offline()), sendsFallback: false)])
        #expect(!quiet.schedule, "its fallback is already in the state")
        #expect(quiet.finished)
    }

    @Test("a cancelled run replays its other nodes cancelled: only the sync node to apply again is released")
    func cancelledRunReleasesOnlyWhatItApplied() {
        var machine = Self.chain(fallbacks: [2])
        let effects = machine.start(
            now: .zero,
            endedBefore: [
                Ended(node: 0, result: .success("url")),
                Ended(node: 2, result: .failure(CancellationError()), isCancelled: true),
            ])
        #expect(effects.startAsync.isEmpty, "notify was cancelled: never started, no fallback")
        #expect(machine.status(of: 2) == .cancelled)
        #expect(machine.takeSyncItem(now: .zero) == .node(1), "show, applied before the cancel, again")
        let (done, _) = machine.syncItemApplied(.node(1), now: .zero, queuedWork: false)
        #expect(done.startAsync.isEmpty, "notify after show stays cancelled")
        #expect(done.finished)
    }
}

/// Semantics 13: a resumed run applies its sync work (nodes and fallbacks) in the order an
/// uninterrupted run would.
extension DurableReplayMachineTests {
    /// The sync items the pipeline takes, one after the other, until the run is idle.
    static func drain(_ machine: inout Machine) -> [Machine.SyncItem] {
        var taken: [Machine.SyncItem] = []
        guard var item = machine.takeSyncItem(now: .zero) else { return taken }
        while true {
            taken.append(item)
            let (_, step) = machine.syncItemApplied(item, now: .zero, queuedWork: false)
            guard case .apply(let next) = step else { return taken }
            item = next
        }
    }

    @Test("a replayed fallback comes after the sync node its node's prerequisite released before it")
    func replayedFallbackAfterTheSyncNodeReleasedEarlier() {
        // upload (async) -> show (sync), post (async, fallback); uninterrupted: show, then the
        // post's fallback (the post ends after its release, when show is already queued).
        var machine = Machine(
            isSync: [false, true, false], prerequisites: [0, 0], prerequisiteEnds: [0, 1, 2],
            nodesWithFallback: [2])
        _ = machine.start(
            now: .zero,
            endedBefore: [Ended(node: 0, result: .success("url")), Ended(node: 2, result: .failure(Offline()))])
        #expect(Self.drain(&machine) == [.node(1), .fallback(2)])
        #expect(machine.isFinished)
    }

    @Test("a sync node applied before the relaunch releases its dependents at its own turn")
    func replayedSyncNodeKeepsItsPlaceInLine() {
        // a (sync root) -> b (sync); c (sync root). Uninterrupted: a, c, b. a was applied before.
        var machine = Machine(
            isSync: [true, true, true], prerequisites: [0], prerequisiteEnds: [0, 1, 1], nodesWithFallback: [])
        _ = machine.start(now: .zero, endedBefore: [Ended(node: 0, result: .success(nil))])
        #expect(Self.drain(&machine) == [.node(2), .node(1)])
        #expect(machine.isFinished)
    }

    @Test("a replayed async failure below a replayed sync node sends its fallback after what was ahead of it")
    func replayedFailureBelowAReplayedSyncNode() {
        // a (sync root, applied before) -> x (async, failed before, fallback); c (sync root).
        // Uninterrupted: a, c (queued with a), then x starts after a and fails: c, fallback.
        var machine = Machine(
            isSync: [true, false, true], prerequisites: [0], prerequisiteEnds: [0, 1, 1], nodesWithFallback: [1])
        _ = machine.start(
            now: .zero,
            endedBefore: [Ended(node: 0, result: .success(nil)), Ended(node: 1, result: .failure(Offline()))])
        #expect(Self.drain(&machine) == [.node(2), .fallback(1)])
        #expect(machine.isFinished)
    }

    /// upload (async) -> uploaded (sync); charge (async, after upload, fallback) -> charged (sync);
    /// notify (async, after upload) -> notified (sync); sync (after upload and charge).
    static func checkout() -> Machine {
        Machine(
            isSync: [false, true, false, true, false, true, true], prerequisites: [0, 0, 2, 0, 4, 0, 2],
            prerequisiteEnds: [0, 1, 2, 3, 4, 5, 7], nodesWithFallback: [2])
    }

    @Test(
        "replays released together play in the order their ends came: a later branch that ended first applies first"
    )
    func replaysReleasedTogetherPlayInTheOrderTheirEndsCame() {
        // Before the relaunch: upload ended, then notify (its sync node applied, not saved), while
        // charge was in flight; this launch settles charge (its check found the call). An
        // uninterrupted run applied notified before charge ended.
        var machine = Self.checkout()
        _ = machine.start(
            now: .zero,
            endedBefore: [
                Ended(node: 0, result: .success("url"), order: 0),
                Ended(node: 2, result: .success("ch_1"), order: .max),
                Ended(node: 4, result: .success("n"), order: 1),
            ])
        #expect(Self.drain(&machine) == [.node(1), .node(5), .node(3), .node(6)])
        #expect(machine.isFinished)

        var failed = Self.checkout()
        _ = failed.start(
            now: .zero,
            endedBefore: [
                Ended(node: 0, result: .success("url"), order: 0),
                Ended(node: 2, result: .failure(Offline()), order: .max),
                Ended(node: 4, result: .success("n"), order: 1),
            ])
        #expect(Self.drain(&failed) == [.node(1), .node(5), .fallback(2)], "the fallback after what ended first")

        var inGraphOrder = Self.checkout()
        _ = inGraphOrder.start(
            now: .zero,
            endedBefore: [
                Ended(node: 0, result: .success("url"), order: 0),
                Ended(node: 2, result: .success("ch_1"), order: 1),
                Ended(node: 4, result: .success("n"), order: 2),
            ])
        #expect(Self.drain(&inGraphOrder) == [.node(1), .node(3), .node(6), .node(5)])
    }

    @Test("a resumed run cancelled before its replays played keeps their recorded outcomes")
    func cancelledBeforeReplaysPlayed() {
        var machine = Machine(
            isSync: [true, true, false], prerequisites: [0, 1], prerequisiteEnds: [0, 1, 2], nodesWithFallback: [])
        // c (sync root, not applied) -> b (sync, applied) -> x (async, succeeded): all wait on c.
        _ = machine.start(
            now: .zero,
            endedBefore: [Ended(node: 1, result: .success(nil)), Ended(node: 2, result: .success(7))])
        let effects = machine.cancel(now: .zero)
        #expect(effects.startAsync.isEmpty)
        #expect(machine.status(of: 0) == .cancelled)
        #expect(machine.status(of: 1) == .succeeded)
        #expect(machine.status(of: 2) == .succeeded)
        #expect(machine.response(of: 2) as? Int == 7)
        #expect(machine.isFinished)
    }
}
