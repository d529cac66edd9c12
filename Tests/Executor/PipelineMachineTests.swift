import Testing

@testable import OresRedux

/// The store's pipeline machine, event by event, with threads named by numbers and no lock, task
/// or store: who applies, what waits, what is handed over, and what the applier owes as it leaves.
@Suite("Pipeline machine")
struct PipelineMachineTests {
    typealias Machine = PipelineMachine<Int>

    struct Mark: Action, Equatable {
        let id: Int
    }

    /// A run as the pipeline sees it: applying it records its name.
    final class FakeRun: PipelineRun, @unchecked Sendable {  // used by one test thread only
        let name: String
        var applied = 0
        init(_ name: String) { self.name = name }
        func applySyncItems() { applied += 1 }
        func cancelForStoreRelease() {}
        func takeWaitersHeldForPipelineExit() -> ResumedWaiters { ResumedWaiters(numbers: [], isObserved: false) }
        func continuations(of held: ResumedWaiters) -> [ParkedWaiter] { [] }
        func resume(_ held: ResumedWaiters) {}
    }

    /// What `next()` hands out until it says leave, and the exit.
    static func drain(_ machine: inout Machine) -> (work: [String], exit: Machine.Exit) {
        var work: [String] = []
        while true {
            switch machine.next() {
            case .apply(.action(let action, _)): work.append("mark \((action as! Mark).id)")
            case .apply(.run(let run)): work.append("run \((run as! FakeRun).name)")
            case .free: return (work, Machine.Exit())
            case .leave(let exit): return (work, exit)
            }
        }
    }

    @Test("a dispatch on a free pipeline applies on its own thread and leaves owing nothing")
    func freePipeline() {
        var machine = Machine()
        #expect(machine.dispatch(Mark(id: 1), admit: nil, on: 1) == .apply)
        #expect(machine.isApplying(on: 1))
        let (work, exit) = Self.drain(&machine)
        #expect(work.isEmpty)
        #expect(exit.isEmpty)
        #expect(!machine.isApplyingOnAnyThread)
    }

    @Test("a subscriber or middleware that dispatches: queued behind the current action, FIFO")
    func reentrantDispatchIsQueued() {
        var machine = Machine()
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.dispatch(Mark(id: 2), admit: nil, on: 1) == .queued)
        #expect(machine.dispatch(Mark(id: 3), admit: nil, on: 1) == .queued)
        #expect(machine.subscribe(on: 1) == .queued, "a subscriber added inside is called in place")
        #expect(Self.drain(&machine).work == ["mark 2", "mark 3"])
    }

    @Test("a dispatch from another thread waits, and the leaving applier wakes it")
    func otherThreadWaits() {
        var machine = Machine()
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.dispatch(Mark(id: 2), admit: nil, on: 2) == .wait)
        #expect(machine.enterAfterWaiting(on: 2) == .wait, "a wake before the pipeline is free waits again")
        let (work, exit) = Self.drain(&machine)
        #expect(work.isEmpty, "the waiting thread applies its own action, not the applier")
        #expect(exit.wakesWaitingThread)
        #expect(machine.enterAfterWaiting(on: 2) == .apply)
        #expect(machine.isApplying(on: 2))
        #expect(!Self.drain(&machine).exit.wakesWaitingThread, "nobody waits any more")
    }

    @Test("a run scheduled from another thread is handed to the applier and never waits")
    func runIsHandedOver() {
        var machine = Machine()
        let run = FakeRun("a")
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.schedule(run, on: 2) == .handedOff)
        #expect(machine.dispatch(Mark(id: 2), admit: nil, on: 1) == .queued)
        #expect(
            Self.drain(&machine).work == ["mark 2", "run a"],
            "the subscriber's dispatch is a follow-up: before the run handed over earlier")
    }

    @Test("follow-ups go first, FIFO; handed-over work then, FIFO, whatever the order of arrival")
    func followUpsBeforeHandedOverWork() {
        var machine = Machine()
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.schedule(FakeRun("b"), on: 2) == .handedOff)
        #expect(machine.dispatch(Mark(id: 2), admit: nil, on: 1) == .queued)
        #expect(machine.schedule(FakeRun("c"), on: 3) == .handedOff)
        #expect(machine.schedule(FakeRun("own"), on: 1) == .queued, "a run the current action made ready")
        #expect(machine.dispatch(Mark(id: 3), admit: nil, on: 1) == .queued)
        #expect(Self.drain(&machine).work == ["mark 2", "run own", "mark 3", "run b", "run c"])
    }

    @Test("a run does not yield to handed-over work, only to follow-ups")
    func runsYieldToFollowUpsOnly() {
        var machine = Machine()
        _ = machine.schedule(FakeRun("a"), on: 1)
        _ = machine.schedule(FakeRun("b"), on: 2)
        #expect(!machine.hasFollowUps, "run b waits for the pipeline to be free; run a goes on")
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.hasFollowUps)
    }

    @Test("a run scheduled on a free pipeline makes its thread the applier")
    func runOnAFreePipeline() {
        var machine = Machine()
        #expect(machine.schedule(FakeRun("a"), on: 3) == .apply)
        #expect(machine.isApplying(on: 3))
        #expect(machine.dispatch(Mark(id: 1), admit: nil, on: 4) == .wait)
        #expect(Self.drain(&machine).exit.wakesWaitingThread)
    }

    @Test("a run that yields goes back in line behind the follow-ups, before handed-over work")
    func requeue() {
        var machine = Machine()
        let run = FakeRun("a")
        _ = machine.schedule(run, on: 1)
        _ = machine.schedule(FakeRun("b"), on: 2)
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.hasFollowUps)
        machine.requeue(run)
        #expect(Self.drain(&machine).work == ["mark 1", "run a", "run b"])
    }

    @Test("held waiters and events recorded inside are owed at the exit, once")
    func exitOwesResumedWaitersAndEvents() {
        var machine = Machine()
        let run = FakeRun("a")
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        machine.holdWaiters(of: run)
        let deferredInside = machine.deferEvents(on: 1)
        let deferredOutside = machine.deferEvents(on: 2)
        #expect(deferredInside)
        #expect(!deferredOutside, "another thread delivers its events itself")
        let exit = Self.drain(&machine).exit
        #expect(exit.runsHoldingWaiters.count == 1)
        #expect(exit.deliversEvents)
        _ = machine.dispatch(Mark(id: 2), admit: nil, on: 1)
        #expect(Self.drain(&machine).exit.isEmpty, "the next exit owes nothing")
    }

    @Test("a released store refuses dispatches and subscriptions, waiting ones included")
    func closing() {
        var machine = Machine()
        _ = machine.dispatch(Mark(id: 1), admit: nil, on: 1)
        #expect(machine.dispatch(Mark(id: 2), admit: nil, on: 2) == .wait)
        let wakesWaiters = machine.close()
        #expect(wakesWaiters, "a thread waits: wake it to be refused")
        #expect(machine.enterAfterWaiting(on: 2) == .closed)
        #expect(machine.dispatch(Mark(id: 3), admit: nil, on: 3) == .closed)
        #expect(machine.subscribe(on: 3) == .closed)
        #expect(machine.schedule(FakeRun("a"), on: 1) == .queued, "runs still drain: they end cancelled")
    }

    /// Random interleavings of several threads: at most one applier at a time; every action and
    /// run applied exactly once, in the order each thread brought them; nothing left queued when the
    /// applier leaves; every thread that waits is woken by an exit and gets its turn.
    @Test("random interleavings of threads: one applier, nothing lost, nothing twice, nobody stranded")
    func randomInterleavings() {
        var random = RunStateMachineModelTests.Random(state: 7)
        for _ in 0..<2_000 {
            var machine = Machine()
            enum ThreadState { case idle, waiting(Int), applying, wokenToCheck(Int) }
            var threads = Array(repeating: ThreadState.idle, count: 4)
            var nextMark = 0
            var brought: [Int] = []
            var applied: [Int] = []
            var pendingWake = false
            for _ in 0..<60 {
                let thread = random.below(threads.count)
                switch threads[thread] {
                case .idle:
                    nextMark += 1
                    brought.append(nextMark)
                    switch machine.dispatch(Mark(id: nextMark), admit: nil, on: thread) {
                    case .apply:
                        applied.append(nextMark)
                        threads[thread] = .applying
                    case .wait: threads[thread] = .waiting(nextMark)
                    default: Issue.record("an idle thread's dispatch must apply or wait")
                    }
                case .applying:
                    if random.chance(40) {
                        nextMark += 1
                        brought.append(nextMark)
                        #expect(machine.dispatch(Mark(id: nextMark), admit: nil, on: thread) == .queued)
                        continue
                    }
                    let step = machine.next()
                    switch step {
                    case .apply(.action(let action, _)): applied.append((action as! Mark).id)
                    case .apply(.run): Issue.record("no run was scheduled")
                    case .free, .leave:
                        let exit: Machine.Exit
                        if case .leave(let owed) = step { exit = owed } else { exit = Machine.Exit() }
                        #expect(!machine.hasFollowUps)
                        threads[thread] = .idle
                        if exit.wakesWaitingThread { pendingWake = true }
                        let waiting = threads.filter {
                            switch $0 {
                            case .waiting, .wokenToCheck: true
                            case .idle, .applying: false
                            }
                        }.count
                        #expect(
                            exit.wakesWaitingThread == (waiting > 0), "an exit wakes a waiter exactly when one waits")
                    }
                case .waiting(let mark):
                    guard pendingWake else { continue }
                    pendingWake = false
                    threads[thread] = .wokenToCheck(mark)
                case .wokenToCheck(let mark):
                    switch machine.enterAfterWaiting(on: thread) {
                    case .apply:
                        applied.append(mark)
                        threads[thread] = .applying
                    case .wait:
                        threads[thread] = .waiting(mark)
                        pendingWake = true  // the signal was taken by a thread that must wait again
                    default: Issue.record("a woken thread applies or waits")
                    }
                }
                let appliers = threads.filter { if case .applying = $0 { true } else { false } }.count
                #expect(appliers <= 1)
            }
            // Let everyone finish: appliers drain, woken threads enter, until all are idle.
            var rounds = 0
            while threads.contains(where: { if case .idle = $0 { false } else { true } }), rounds < 10_000 {
                rounds += 1
                for thread in threads.indices {
                    switch threads[thread] {
                    case .applying:
                        while case .apply(.action(let action, _)) = machine.next() {
                            applied.append((action as! Mark).id)
                        }
                        threads[thread] = .idle
                    case .waiting(let mark), .wokenToCheck(let mark):
                        if machine.enterAfterWaiting(on: thread) == .apply {
                            applied.append(mark)
                            threads[thread] = .applying
                        }
                    case .idle: break
                    }
                }
            }
            #expect(applied.sorted() == brought.sorted(), "every action applied exactly once")
            #expect(!machine.isApplyingOnAnyThread)
        }
    }
}
