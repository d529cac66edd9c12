import Testing

@testable import OresRedux

/// The owner's end, event by event in the run's machine: each node does what its policy says, at
/// every point of a run (before its start, during an attempt, between an async end and the sync
/// node it released, while a sync node or a fallback is being applied).
@Suite("Owner's end in the run's machine")
struct OwnerEndMachineTests {
    typealias Machine = RunStateMachine

    struct Offline: Error {}

    static func machine(_ nodes: [(sync: Bool, after: [Int])], fallbacks: Set<Int> = []) -> Machine {
        RunStateMachineTests.machine(nodes, fallbacks: fallbacks)
    }

    static func at(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }

    @Test("with no policy, the owner's end is a cancel: nothing not ended runs, the call in flight is cancelled")
    func noPolicyIsACancel() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        let steps = machine.ownerEnded(now: Self.at(1), policies: [:])
        #expect(steps.cancelWorkers == [0])
        #expect(steps.awaitsReducer, "no fallback is being reduced once the end returns")
        #expect(steps.finished)
        #expect(machine.status(of: 0) == .cancelled && machine.status(of: 1) == .cancelled)
        #expect(machine.isCancelled && machine.isEndedByOwner)
        #expect(machine.cancelledByOwner == [0, 1], "the run's events give the reason")
    }

    @Test("ended before the start: a node that finishes runs alone; the screen's sync node never does")
    func endedBeforeStart() {
        var machine = Self.machine([(false, []), (true, [0])])
        let ended = machine.ownerEnded(now: .zero, policies: [0: .finish])
        #expect(ended.cancelWorkers.isEmpty && !ended.finished)
        #expect(machine.status(of: 1) == .waiting, "decided when the run starts, before it releases anything")
        let started = machine.start(now: Self.at(1))
        #expect(machine.status(of: 1) == .cancelled)
        #expect(started.startAsync == [0])
        let end = machine.asyncFinished(0, .success(7), now: Self.at(2))
        #expect(!end.schedule, "the dropped sync node is not released")
        #expect(end.finished)
        #expect(machine.response(of: 0) as? Int == 7, "the answer is kept for whoever still wants it")
    }

    @Test("ended before the start with nothing that outlives it: the start finishes the run, releasing nothing")
    func endedBeforeStartWithNothingLeft() {
        var machine = Self.machine([(true, []), (false, [])])
        _ = machine.ownerEnded(now: .zero, policies: [:])
        let started = machine.start(now: Self.at(1))
        #expect(!started.schedule && started.startAsync.isEmpty)
        #expect(started.finished, "the run leaves the store's registry at once")
        #expect(machine.isCancelled)
        #expect(machine.status(of: 0) == .cancelled && machine.status(of: 1) == .cancelled)
    }

    @Test("during an attempt: the kept call goes on, the other is cancelled, the screen's sync node dropped")
    func duringAnAttempt() {
        // log in, then profile and feed, then show home
        var machine = Self.machine([(false, []), (false, [0]), (false, [0]), (true, [1, 2])])
        _ = machine.start(now: .zero)
        let logIn = machine.asyncFinished(0, .success("token"), now: Self.at(1))
        #expect(logIn.startAsync == [1, 2])
        let ended = machine.ownerEnded(now: Self.at(2), policies: [1: .finish])
        #expect(ended.cancelWorkers == [2], "the feed's call gets task cancellation")
        #expect(machine.cancelledByOwner == [2, 3])
        #expect(machine.status(of: 2) == .cancelled && machine.status(of: 3) == .cancelled)
        #expect(machine.status(of: 1) == .running)
        #expect(!ended.finished)
        #expect(machine.mayRun(1) && !machine.mayRun(2))
        let profile = machine.asyncFinished(1, .success("ada"), now: Self.at(3))
        #expect(!profile.schedule && profile.finished)
        #expect(!machine.isCancelled, "a run something outlived its owner in is not a cancelled run")
    }

    @Test("finish with dependents: the post's sync node is applied as if the screen were there")
    func finishWithDependentsApplies() {
        var machine = Self.machine([(false, []), (true, [0]), (true, [1])])
        _ = machine.start(now: .zero)
        _ = machine.ownerEnded(now: Self.at(1), policies: [0: .finishWithDependents])
        #expect(machine.status(of: 1) == .waiting && machine.status(of: 2) == .waiting)
        let end = machine.asyncFinished(0, .success(nil), now: Self.at(2))
        #expect(end.schedule)
        #expect(machine.takeSyncItem(now: Self.at(2)) == .node(1))
        let (_, next) = machine.syncItemApplied(.node(1), now: Self.at(3), queuedWork: false)
        #expect(next == .apply(.node(2)), "a dependent's dependent inherits it")
        let (last, idle) = machine.syncItemApplied(.node(2), now: Self.at(4), queuedWork: false)
        #expect(idle == .idle && last.finished)
    }

    @Test("between an async end and the sync node it released: the ready node leaves the queue")
    func betweenAsyncEndAndApply() {
        var machine = Self.machine([(false, []), (true, [0]), (false, [])])
        _ = machine.start(now: .zero)
        let end = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        #expect(end.schedule && machine.isScheduled)
        let ended = machine.ownerEnded(now: Self.at(2), policies: [2: .finish])
        #expect(machine.status(of: 1) == .cancelled)
        #expect(!ended.finished)
        #expect(machine.takeSyncItem(now: Self.at(3)) == nil, "the pipeline finds nothing and leaves")
        #expect(!machine.isScheduled)
        #expect(machine.asyncFinished(2, .success(nil), now: Self.at(4)).finished)
    }

    @Test("between an async end and its sync node, finishing with dependents keeps it in the queue")
    func betweenAsyncEndAndApplyKept() {
        var machine = Self.machine([(false, []), (true, [0])])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .success(nil), now: Self.at(1))
        let ended = machine.ownerEnded(now: Self.at(2), policies: [0: .finishWithDependents])
        #expect(ended.cancelWorkers.isEmpty && !ended.finished)
        #expect(machine.takeSyncItem(now: Self.at(3)) == .node(1))
        #expect(machine.syncItemApplied(.node(1), now: Self.at(4), queuedWork: false).0.finished)
    }

    @Test("while a sync node is being applied: it completes, and what depends on it is cancelled")
    func whileASyncNodeIsApplied() {
        var machine = Self.machine([(false, []), (true, []), (true, [1])])
        _ = machine.start(now: .zero)
        #expect(machine.takeSyncItem(now: .zero) == .node(1))
        let ended = machine.ownerEnded(now: Self.at(1), policies: [0: .finish])
        #expect(machine.status(of: 1) == .running, "the node being reduced completes")
        #expect(machine.status(of: 2) == .cancelled)
        #expect(ended.awaitsReducer)
        let (applied, step) = machine.syncItemApplied(.node(1), now: Self.at(2), queuedWork: false)
        #expect(machine.status(of: 1) == .succeeded)
        #expect(step == .idle && !applied.finished)
        #expect(machine.asyncFinished(0, .success(nil), now: Self.at(3)).finished)
    }

    @Test("a fallback in hand of a node that does not outlive the owner is refused; one that does is applied")
    func fallbackInHand() {
        var machine = Self.machine([(false, []), (false, []), (false, [])], fallbacks: [0, 2])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        #expect(machine.takeSyncItem(now: Self.at(1)) == .fallback(0))
        _ = machine.ownerEnded(now: Self.at(2), policies: [1: .finish, 2: .finish])
        #expect(!machine.mayApplyFallback, "the screen's \"could not load\" is not applied after the end")
        _ = machine.syncItemApplied(.fallback(0), now: Self.at(3), queuedWork: false)
        _ = machine.asyncFinished(2, .failure(Offline()), now: Self.at(4))
        #expect(machine.takeSyncItem(now: Self.at(4)) == .fallback(2))
        #expect(machine.mayApplyFallback, "a node that outlives the owner keeps its fallback")
        _ = machine.syncItemApplied(.fallback(2), now: Self.at(5), queuedWork: false)
        #expect(machine.asyncFinished(1, .success(nil), now: Self.at(6)).finished)
    }

    @Test("a queued fallback of a node that does not outlive the owner is dropped")
    func queuedFallbackDropped() {
        var machine = Self.machine([(false, []), (false, [])], fallbacks: [0])
        _ = machine.start(now: .zero)
        _ = machine.asyncFinished(0, .failure(Offline()), now: Self.at(1))
        _ = machine.ownerEnded(now: Self.at(2), policies: [1: .finish])
        #expect(machine.takeSyncItem(now: Self.at(3)) == nil)
        #expect(machine.asyncFinished(1, .success(nil), now: Self.at(4)).finished)
    }

    @Test("a node that would finish, waiting on one that is cancelled, is cancelled too: no run hangs")
    func keptNodeBehindACancelledOne() {
        var machine = Self.machine([(false, []), (false, [0]), (false, [])])
        _ = machine.start(now: .zero)
        let ended = machine.ownerEnded(now: Self.at(1), policies: [1: .finish, 2: .finish])
        #expect(machine.status(of: 0) == .cancelled && machine.status(of: 1) == .cancelled)
        #expect(ended.cancelWorkers == [0])
        #expect(machine.asyncFinished(2, .success(nil), now: Self.at(2)).finished)
    }

    @Test("an owner's end after the run finished, after a cancel, or a second time does nothing")
    func endThatDoesNotCount() {
        var finished = Self.machine([(true, [])])
        _ = finished.start(now: .zero)
        _ = finished.takeSyncItem(now: .zero)
        _ = finished.syncItemApplied(.node(0), now: Self.at(1), queuedWork: false)
        let late = finished.ownerEnded(now: Self.at(2), policies: [:])
        #expect(late.cancelledByStoreRelease == nil && !late.finished && !finished.isEndedByOwner)

        var twice = Self.machine([(false, []), (false, [])])
        _ = twice.start(now: .zero)
        _ = twice.ownerEnded(now: Self.at(1), policies: [0: .finish])
        let again = twice.ownerEnded(now: Self.at(2), policies: [:])
        #expect(again.cancelWorkers.isEmpty && twice.status(of: 0) == .running)
    }
}
