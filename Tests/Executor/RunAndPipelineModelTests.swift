import Testing

@testable import OresRedux

/// The run's machine and the pipeline's machine driven together, as `GraphRun` and the store's
/// pipeline drive them, through random interleavings: async nodes ending on other threads while
/// one thread applies, observers that echo an action after any sync item, waiters that arrive
/// before and after their node ends, cancels from outside and from inside the pipeline. Checked:
/// every waiter is resumed exactly once, only once its node (or the run) is terminal, and never
/// while an echo dispatched before it still waits to be applied; every echo is applied; the run
/// finishes and the pipeline is left free.
@Suite("Run and pipeline machines together, against a model")
struct RunAndPipelineModelTests {
    typealias Random = RunStateMachineModelTests.Random
    struct Offline: Error {}
    struct Echo: Action {}

    /// The run as the pipeline queues it.
    final class RunToken: PipelineRun, @unchecked Sendable {  // one test thread only
        func applySyncItems() {}
        func cancelForStoreRelease() {}
        func takeWaitersHeldForPipelineExit() -> ResumedWaiters { ResumedWaiters(numbers: [], isObserved: false) }
        func continuations(of held: ResumedWaiters) -> [ParkedWaiter] { [] }
        func resume(_ held: ResumedWaiters) {}
    }

    @Test("3,000 random graphs and interleavings: every waiter resumed once, after the echoes before it")
    func randomInterleavings() {
        for seed in 0..<3_000 { runOnce(seed: UInt64(seed)) }
    }

    func runOnce(seed: UInt64) {
        var random = Random(state: seed &+ 1_000_003)
        let count = 1 + random.below(12)
        var isSync: [Bool] = []
        var flat: [Int] = []
        var ends: [Int] = []
        for node in 0..<count {
            isSync.append(random.chance(60))
            if node > 0 { for _ in 0..<random.below(3) { flat.append(random.below(node)) } }
            ends.append(flat.count)
        }
        let fallbacks = Set((0..<count).filter { !isSync[$0] && random.chance(40) })
        var run = RunStateMachine(
            isSync: isSync, prerequisites: flat, prerequisiteEnds: ends, nodesWithFallback: fallbacks,
            hasCancelAction: random.chance(30))
        var pipeline = PipelineMachine<Int>()
        let token = RunToken()

        // The shell's state (GraphRun's `RunLockedState`, the applier's place in the run's items).
        var targets: [Int: Int] = [:]  // waiter -> node (count: the whole run)
        var resumed: [Int: Int] = [:]
        var nextWaiter = 0
        var inHand: RunStateMachine.SyncItem? = nil
        var applyingRun = false
        var echoesQueued = 0
        var echoesApplied = 0
        var running: Set<Int> = []
        var time = 0

        func resume(_ waiter: Int) {
            resumed[waiter, default: 0] += 1
            let target = targets[waiter]!
            let isTerminal = target == count ? run.isFinished : run.status(of: target).isTerminal
            #expect(isTerminal, "seed \(seed): waiter \(waiter) resumed before its node ended")
            #expect(echoesApplied == echoesQueued, "seed \(seed): waiter \(waiter) resumed before an echo was applied")
        }

        /// `RunLockedState.handle` and `GraphRun.perform`: one event on `thread`.
        func handle(on thread: Int, _ event: (inout RunStateMachine) -> RunSteps) {
            var effects = event(&run)
            run.holdWaiters(insidePipeline: pipeline.isApplying(on: thread), &effects)
            running.formUnion(effects.startAsync)
            running.subtract(effects.cancelWorkers)
            if effects.holdsWaiters { pipeline.holdWaiters(of: token) }
            if effects.schedule {
                switch pipeline.schedule(token, on: thread) {
                case .apply: applyingRun = true  // this thread applies the run now
                case .queued, .handedOff: break
                case .wait, .closed: Issue.record("seed \(seed): a run's schedule must never wait")
                }
            }
            for waiter in effects.resume { resume(waiter) }
        }

        /// The applier takes one step: one sync item of the run, one echo, or the exit.
        func applierStep(_ applier: Int) {
            if applyingRun {
                if inHand == nil {
                    let wasScheduled = run.isScheduled
                    inHand = run.takeSyncItem(now: .nanoseconds(time))
                    if inHand == nil {
                        #expect(wasScheduled)
                        applyingRun = false
                        return
                    }
                }
                let item = inHand!
                if random.chance(30) {  // a subscriber or middleware echoes the item
                    echoesQueued += 1
                    #expect(pipeline.dispatch(Echo(), admit: nil, on: applier) == .queued)
                }
                var step = RunStateMachine.SyncStep.idle
                let queued = pipeline.hasFollowUps
                handle(on: applier) { run in
                    let (effects, next) = run.syncItemApplied(item, now: .nanoseconds(time), queuedWork: queued)
                    step = next
                    return effects
                }
                switch step {
                case .apply(let next): inHand = next
                case .yield:
                    inHand = nil
                    applyingRun = false
                    pipeline.requeue(token)
                case .idle:
                    inHand = nil
                    applyingRun = false
                }
                return
            }
            switch pipeline.next() {
            case .apply(.run): applyingRun = true
            case .apply(.action): echoesApplied += 1
            case .free: break
            case .leave(let exit):
                if !exit.runsHoldingWaiters.isEmpty {
                    for waiter in run.pipelineLeft() { resume(waiter) }
                }
            }
        }

        handle(on: 0) { $0.start(now: .zero) }
        var steps = 0
        while true {
            steps += 1
            time += 1
            guard steps < 20_000 else {
                Issue.record("seed \(seed): no end after 20,000 steps")
                return
            }
            let applier = (0..<4).first { pipeline.isApplying(on: $0) }
            let canEnd = !running.isEmpty
            if applier == nil, !canEnd { break }
            switch random.below(10) {
            case 0...4 where applier != nil:
                applierStep(applier!)
            case 5...6 where canEnd:
                // An async node ends on a thread that is not applying.
                let node = running.randomElement(using: &random)!
                running.remove(node)
                let thread = (1..<4).first { !pipeline.isApplying(on: $0) }!
                let result: Result<(any Sendable)?, any Error> =
                    random.chance(25) ? .failure(Offline()) : .success(node)
                handle(on: thread) { $0.asyncFinished(node, result, now: .nanoseconds(time)) }
            case 7:
                nextWaiter += 1
                let target = random.below(count + 1)
                targets[nextWaiter] = target
                let now = target == count ? run.awaitFinish(nextWaiter) : run.awaitNode(target, nextWaiter)
                if let now { resume(now) }  // else it waits, or the machine holds it until the exit
            case 8 where random.chance(10):
                // A cancel from the test's thread, or from a subscriber on the applier's thread.
                let thread = applier.map { random.chance(50) ? $0 : 0 } ?? 0
                handle(on: thread) { $0.cancel(now: .nanoseconds(time)) }
            default:
                continue
            }
        }
        #expect(run.isFinished, "seed \(seed): the run did not finish")
        #expect(!run.holdsWaitersForPipelineExit, "seed \(seed): waiters still held after the pipeline was left")
        #expect(echoesApplied == echoesQueued, "seed \(seed): an echo was lost")
        for waiter in 1...max(nextWaiter, 1) where nextWaiter > 0 {
            #expect(resumed[waiter] == 1, "seed \(seed): waiter \(waiter) resumed \(resumed[waiter] ?? 0) times")
        }
    }
}
