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
