import Testing

@testable import OresRedux

/// The run's state machine against a model, over thousands of random graphs and random event
/// orders: releases, pipeline pops with every drain decision, async answers, failures, fallbacks,
/// waiters and cancels at any moment. After every event it checks the invariant that makes a run
/// always finish, and at the end that every node is terminal and every waiter was resumed.
@Suite("Run state machine against a model")
struct RunStateMachineModelTests {
    /// A small deterministic generator (SplitMix64), so a failing seed can be replayed.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    struct Offline: Error {}

    /// The pipeline as the store runs it, reduced to what the run sees: whether its token waits in
    /// the queue, or which item it is applying.
    struct Pipeline {
        var tokenQueued = false
        var inHand: RunStateMachine.SyncItem?
        var holdsToken: Bool { tokenQueued || inHand != nil }
    }

    @Test(
        "5,000 random graphs and event orders: ready work is always scheduled, every run finishes",
        arguments: 0..<5)
    func randomRuns(batch: Int) async throws {
        for seed in (batch * 1000)..<((batch + 1) * 1000) {
            try runOnce(seed: UInt64(seed))
            // A thousand seeds are seconds of work under ThreadSanitizer: let the tests beside this
            // one have the cooperative pool's threads between two seeds.
            await Task.yield()
        }
    }

    func runOnce(seed: UInt64) throws {
        var random = Random(state: seed)
        let count = 1 + random.below(25)
        var isSync: [Bool] = []
        var lists: [[Int]] = []
        for node in 0..<count {
            isSync.append(random.chance(60))
            var list: [Int] = []
            if node > 0 {
                for _ in 0..<random.below(3) { list.append(random.below(node)) }
            }
            lists.append(list)
        }
        let fallbacks = Set((0..<count).filter { !isSync[$0] && random.chance(40) })
        var ends: [Int] = []
        var flat: [Int] = []
        for list in lists {
            flat += list
            ends.append(flat.count)
        }
        var machine = RunStateMachine(
            isSync: isSync, prerequisites: flat, prerequisiteEnds: ends,
            nodesWithFallback: fallbacks)
        var pipeline = Pipeline()
        var running: Set<Int> = []  // async nodes whose task is in flight
        var applied: [Int: Int] = [:]  // sync node -> times applied
        var waiting: Set<Int> = []  // waiter ids not resumed yet
        var nextWaiter = 0
        var cancelled = false
        var time = 0

        func handle(_ effects: RunSteps) throws {
            if effects.schedule {
                #expect(!pipeline.holdsToken, "seed \(seed): a second token for one run")
                pipeline.tokenQueued = true
            }
            for node in effects.startAsync {
                #expect(!isSync[node])
                #expect(
                    lists[node].allSatisfy { machine.status(of: $0) == .succeeded },
                    "seed \(seed): node \(node) started before its prerequisites succeeded")
                #expect(running.insert(node).inserted, "seed \(seed): node \(node) started twice")
            }
            for node in effects.cancelWorkers { running.remove(node) }
            for waiter in effects.resume {
                #expect(waiting.remove(waiter) != nil, "seed \(seed): waiter \(waiter) resumed twice")
            }
        }

        func checkInvariant() {
            // The promise: ready work is either scheduled or being applied.
            if machine.hasReadySync { #expect(pipeline.holdsToken, "seed \(seed): ready work, no token") }
            #expect(machine.isScheduled == pipeline.holdsToken, "seed \(seed): machine and pipeline disagree")
        }

        try handle(machine.start(now: .zero))
        checkInvariant()
        var steps = 0
        while !machine.isFinished {
            steps += 1
            #expect(steps < 10_000, "seed \(seed): the run does not finish")
            if steps >= 10_000 { return }
            time += 1
            // Each caller reads the clock before it takes the run's lock, so events can arrive with
            // times a little out of order.
            let now = Duration.nanoseconds(time - random.below(5))
            switch random.below(10) {
            case 0...2 where pipeline.tokenQueued:
                pipeline.tokenQueued = false
                if let item = machine.takeSyncItem(now: now) { pipeline.inHand = item }
            case 3...5 where pipeline.inHand != nil:
                let item = pipeline.inHand!
                if case .node(let node) = item {
                    #expect(
                        lists[node].allSatisfy { machine.status(of: $0) == .succeeded },
                        "seed \(seed): sync node \(node) applied before its prerequisites succeeded")
                    applied[node, default: 0] += 1
                } else if case .fallback = item, !machine.mayApplyFallback {
                    #expect(cancelled)
                }
                let (effects, step) = machine.syncItemApplied(item, now: now, queuedWork: random.chance(30))
                pipeline.inHand = nil
                switch step {
                case .apply(let next): pipeline.inHand = next
                case .yield: pipeline.tokenQueued = true
                case .idle: break
                }
                try handle(effects)
            case 6...7 where !running.isEmpty:
                let node = running.randomElement(using: &random)!
                running.remove(node)
                let result: Result<(any Sendable)?, any Error> =
                    random.chance(25) ? .failure(Offline()) : .success(node)
                for _ in 0...random.below(2) { _ = machine.attemptStarting(node) }
                try handle(machine.asyncFinished(node, result, now: now))
            case 8:
                nextWaiter += 1
                let target = random.below(count + 1)
                let answered = target == count ? machine.awaitFinish(nextWaiter) : machine.awaitNode(target, nextWaiter)
                if answered == nil { waiting.insert(nextWaiter) }
            case 9 where random.chance(5):
                cancelled = true
                try handle(machine.cancel(now: now))
            default:
                // Nothing of that kind can happen now; if nothing at all can, the run is stuck.
                let canMove = pipeline.holdsToken || !running.isEmpty
                #expect(canMove || machine.isFinished, "seed \(seed): nothing can happen but the run has not finished")
                if !canMove { return }
            }
            checkInvariant()
        }
        #expect((0..<count).allSatisfy { machine.status(of: $0).isTerminal }, "seed \(seed)")
        #expect(waiting.isEmpty, "seed \(seed): waiters never resumed: \(waiting)")
        #expect(applied.values.allSatisfy { $0 == 1 }, "seed \(seed): a sync node applied twice")
        for node in 0..<count where machine.status(of: node) == .succeeded && isSync[node] {
            #expect(applied[node] == 1, "seed \(seed): sync node \(node) succeeded without being applied")
        }
        for node in 0..<count {
            let entry = machine.nodes[node]
            guard let start = entry.start else { continue }
            for prerequisite in lists[node] {
                #expect(
                    machine.nodes[prerequisite].end.map { $0 <= start } ?? false,
                    "seed \(seed): node \(node) started before prerequisite \(prerequisite) ended")
            }
        }
        if !cancelled {
            #expect(machine.nodes.allSatisfy { $0.status != .cancelled }, "seed \(seed)")
        }
    }
}

extension RunStateMachineModelTests.Random: RandomNumberGenerator {}
