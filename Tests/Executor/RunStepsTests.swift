import Testing

@testable import OresRedux

/// What the run's machine tells its shell to do, in order, event by event (`handle`): the steps
/// the shell performs with one `switch` and the run's observers see.
@Suite("Run steps")
struct RunStepsTests {
    typealias Machine = RunStateMachine
    struct Offline: Error {}

    static func machine(_ nodes: [(sync: Bool, after: [Int])], fallbacks: Set<Int> = []) -> Machine {
        RunStateMachineTests.machine(nodes, fallbacks: fallbacks)
    }

    static func at(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }

    @Test("an async root starts on a task; taking a sync node starts its one attempt, then applies it")
    func startAndTake() {
        var machine = Self.machine([(false, []), (true, [])])
        let started = Array(machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false))
        #expect(started == [.startTask(0), .schedule])
        let taken = Array(machine.handle(.takeSyncItem(now: Self.at(1)), insidePipeline: false))
        #expect(taken == [.attemptStarted(AttemptStart(node: 1, attempt: 1, inLaunch: 1)), .apply(.node(1))])
    }

    @Test("attempts are numbered once, by the machine; a resumed run's go on from its journal's")
    func attemptNumbersContinue() {
        var machine = Self.machine([(false, [])])
        var earlier = EarlierLaunches()
        earlier.attemptsMade = [0: 1]
        earlier.attemptsFailed = [0: 1]
        _ = machine.handle(.start(now: .zero, earlier: earlier), insidePipeline: false)
        let first = Array(machine.handle(.attemptStarting(node: 0, now: Self.at(1)), insidePipeline: false))
        #expect(first == [.attemptStarted(AttemptStart(node: 0, attempt: 2, inLaunch: 1))])
        #expect(!machine.mayRetry(0, maxAttempts: 2), "the failed attempt of the earlier launch counts")
        #expect(machine.mayRetry(0, maxAttempts: 3))
        let second = machine.handle(.attemptStarting(node: 0, now: Self.at(2)), insidePipeline: false)
        #expect(second.attemptStarted == AttemptStart(node: 0, attempt: 3, inLaunch: 2))
        #expect(!machine.mayRetry(0, maxAttempts: 3))
        _ = machine.handle(
            .asyncFinished(node: 0, .failure(Offline()), now: Self.at(3), handsOn: false), insidePipeline: false)
        #expect(machine.nodes[0].attempts == 2, "the report counts this launch's attempts")
    }

    @Test("a node out of attempts before this launch still gets one")
    func oneAttemptLeft() {
        var machine = Self.machine([(false, [])])
        var earlier = EarlierLaunches()
        earlier.attemptsFailed = [0: 5]
        _ = machine.handle(.start(now: .zero, earlier: earlier), insidePipeline: false)
        #expect(machine.handle(.attemptStarting(node: 0, now: .zero), insidePipeline: false).attemptStarted != nil)
        #expect(!machine.mayRetry(0, maxAttempts: 3))
    }

    @Test("a cancel that counts comes first, then the wait for a reducer, the tasks, the end; a second has no cancel")
    func cancelOrder() {
        var machine = Self.machine([(false, []), (true, [0])])
        machine.isObserved = true
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        let cancelled = Array(machine.handle(.cancel(now: Self.at(1), byStoreRelease: false), insidePipeline: false))
        #expect(
            cancelled == [
                .runCancelled(byStoreRelease: false), .nodeEnded(0), .nodeEnded(1), .runFinished,
                .awaitReducerInProgress, .cancelTasks, .deliverEvents, .leaveRegistry,
            ])
        let again = Array(machine.handle(.cancel(now: Self.at(2), byStoreRelease: true), insidePipeline: false))
        #expect(again == [.awaitReducerInProgress, .deliverEvents], "the run had finished: the cancel does not count")
    }

    @Test("no attempt starts once the run was cancelled")
    func noAttemptAfterCancel() {
        var machine = Self.machine([(false, [])])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        _ = machine.handle(.cancel(now: .zero, byStoreRelease: false), insidePipeline: false)
        #expect(Array(machine.handle(.attemptStarting(node: 0, now: .zero), insidePipeline: false)).isEmpty)
    }

    @Test("a node cancelled before its attempt makes none, and the end its task then reports changes nothing")
    func refusedNodeEndIsIgnored() {
        var machine = Self.machine([(false, []), (false, [])])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        #expect(machine.handle(.attemptStarting(node: 0, now: nil), insidePipeline: false).attemptStarted != nil)
        _ = machine.handle(.cancel(now: Self.at(1), byStoreRelease: false), insidePipeline: false)
        #expect(machine.attemptStarting(1) == nil)
        let ended = machine.handle(
            .asyncFinished(node: 1, .failure(CancellationError()), now: Self.at(2), handsOn: true),
            insidePipeline: false)
        #expect(Array(ended).isEmpty)
        #expect(machine.status(of: 1) == .cancelled && machine.isFinished && machine.lastEnd == Self.at(1))
    }

    @Test("a failure's end comes before its fallback is scheduled; waiters resume last, behind the events")
    func failureBeforeFallbackAndWaitersLast() {
        var machine = Self.machine([(false, [])], fallbacks: [0])
        machine.isObserved = true
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        _ = machine.handle(.awaitNode(0, 1), insidePipeline: false)
        let failed = Array(
            machine.handle(
                .asyncFinished(node: 0, .failure(Offline()), now: Self.at(1), handsOn: false), insidePipeline: false))
        #expect(failed == [.nodeEnded(0), .deliverEvents, .schedule, .resumeBehindEvents([1])])
    }

    @Test("a wait on a finished run resumes its caller at once; an unobserved run's not behind events")
    func waitOnFinishedRun() {
        var machine = Self.machine([(true, [])])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        _ = machine.handle(.takeSyncItem(now: .zero), insidePipeline: false)
        let applied = Array(
            machine.handle(.syncItemApplied(.node(0), now: .zero, queuedWork: false), insidePipeline: true))
        #expect(applied == [.runFinished, .holdWaitersUntilPipelineExit, .leaveRegistry])
        #expect(machine.pipelineLeft().isEmpty)
        #expect(Array(machine.handle(.awaitFinish(1), insidePipeline: false)) == [.resumeCaller(behindEvents: false)])
    }

    @Test("a fallback is queued only for a node that has one, with its error")
    func fallbackHasSomethingToApply() {
        var machine = Self.machine([(false, []), (false, [])], fallbacks: [0])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        let withFallback = machine.handle(
            .asyncFinished(node: 0, .failure(Offline()), now: .zero, handsOn: false), insidePipeline: false)
        let without = machine.handle(
            .asyncFinished(node: 1, .failure(Offline()), now: .zero, handsOn: false), insidePipeline: false)
        #expect(withFallback.schedule && !without.schedule)
        #expect(machine.handle(.takeSyncItem(now: .zero), insidePipeline: false).syncStep == .apply(.fallback(0)))
        #expect(machine.errors[0] is Offline)
    }

    @Test("the step that applies a fallback hands the shell the error its node failed with")
    func fallbackStepCarriesItsError() {
        struct Refused: Error {}
        var machine = Self.machine([(false, []), (false, [])], fallbacks: [0, 1])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        _ = machine.handle(
            .asyncFinished(node: 0, .failure(Offline()), now: .zero, handsOn: false), insidePipeline: false)
        _ = machine.handle(
            .asyncFinished(node: 1, .failure(Refused()), now: .zero, handsOn: false), insidePipeline: false)
        let taken = machine.handle(.takeSyncItem(now: .zero), insidePipeline: false)
        #expect(taken.syncStep == .apply(.fallback(0)))
        #expect(taken.fallbackError is Offline)
        let next = machine.handle(.syncItemApplied(.fallback(0), now: .zero, queuedWork: false), insidePipeline: true)
        #expect(next.syncStep == .apply(.fallback(1)))
        #expect(next.fallbackError is Refused, "the next item's error, not the one just applied")
        let last = machine.handle(.syncItemApplied(.fallback(1), now: .zero, queuedWork: false), insidePipeline: true)
        #expect(last.syncStep == .idle && last.fallbackError == nil)
    }

    @Test("a node's step carries no fallback error")
    func nodeStepCarriesNoError() {
        var machine = Self.machine([(true, [])])
        _ = machine.handle(.start(now: .zero, earlier: EarlierLaunches()), insidePipeline: false)
        let taken = machine.handle(.takeSyncItem(now: .zero), insidePipeline: false)
        #expect(taken.syncStep == .apply(.node(0)) && taken.fallbackError == nil)
    }
}
