import Foundation
import OresRedux
import Testing

/// The whole store against a reference model: random graphs run side by side on several tasks,
/// plain dispatches from a thread meanwhile, a middleware and a subscriber that dispatch, fallbacks,
/// cancels at random moments, and runs dispatched under owners (``WorkOwner``) with random per-node
/// policies, each owner ended at a random moment from a task, a thread of its own or the subscriber.
/// Every commit is logged by the reducer; the log and each run's
/// outcomes are then checked against every order The Store guide promises ("Order you can rely
/// on"), and against nothing it does not promise.
///
/// Each round is built from its own seed, printed in every failure. Reproduce one round:
/// `ORESREDUX_ORDER_SEED=<seed> ORESREDUX_ORDER_ROUNDS=1 swift test --filter StoreOrderFuzz`;
/// run many: `ORESREDUX_ORDER_ROUNDS=2000 swift test --filter StoreOrderFuzz`.
@Suite("Order: the whole store against a model")
struct StoreOrderFuzzTests {
    /// One commit, as the reducer saw it.
    enum Entry: Hashable, Sendable, CustomStringConvertible {
        case node(run: Int, node: Int)
        case fallback(run: Int, node: Int)
        case plain(Int)
        indirect case fromMiddleware(Entry)
        indirect case fromSubscriber(Entry)

        var description: String {
            switch self {
            case .node(let run, let node): "N\(run).\(node)"
            case .fallback(let run, let node): "F\(run).\(node)"
            case .plain(let number): "P\(number)"
            case .fromMiddleware(let entry): "M(\(entry))"
            case .fromSubscriber(let entry): "S(\(entry))"
            }
        }

        /// Base entries (not follow-ups) chosen by the round's salt make the middleware or the
        /// subscriber dispatch a follow-up.
        func triggers(salt: Int) -> (middleware: Bool, subscriber: Bool) {
            let hash: Int
            switch self {
            case .node(let run, let node): hash = run &* 31 &+ node
            case .fallback(let run, let node): hash = run &* 17 &+ node &+ 5
            case .plain(let number): hash = number
            case .fromMiddleware, .fromSubscriber: return (false, false)
            }
            let value = (hash &+ salt) % 5
            return (value == 0 || value == 3, value == 1 || value == 3)
        }
    }

    struct Log: Sendable {
        var entries: [Entry] = []
    }

    struct Commit: Action { let entry: Entry }

    struct Boom: Error {}

    struct Work: AsyncAction {
        typealias State = Log
        let fails: Bool
        let yields: Int
        func run(_ context: ActionContext<Log>) async throws {
            for _ in 0..<yields { await Task.yield() }
            if fails { throw Boom() }
        }
    }

    /// One graph of the round.
    struct Plan {
        var isSync: [Bool] = []
        var fails: [Bool] = []
        var prerequisites: [[Int]] = []
        var hasFallback: [Bool] = []
        var yields: [Int] = []
        /// Cancel after this many yields of the dispatching task, or never.
        var cancelAfter: Int?
        /// The owner of the round the run is dispatched under, or the store itself.
        var owner: Int?
        /// Each node's policy for its owner's end (`nil`: the default).
        var policies: [OwnerEndPolicy?] = []

        static func random(_ rng: inout SplitMix64, owners: Int) -> Plan {
            var plan = Plan()
            let count = rng.int(in: 2...12)
            for node in 0..<count {
                let sync = rng.int(in: 0...1) == 0
                plan.isSync.append(sync)
                plan.fails.append(!sync && rng.int(in: 0...4) == 0)
                plan.hasFallback.append(!sync && rng.int(in: 0...1) == 0)
                plan.yields.append(rng.int(in: 0...3))
                var prerequisites: [Int] = []
                if node > 0 {
                    for _ in 0..<rng.int(in: 0...2) {
                        let prerequisite = rng.int(in: 0...(node - 1))
                        if !prerequisites.contains(prerequisite) { prerequisites.append(prerequisite) }
                    }
                }
                plan.prerequisites.append(prerequisites)
            }
            plan.cancelAfter = rng.int(in: 0...3) == 0 ? rng.int(in: 0...6) : nil
            let choices: [OwnerEndPolicy?] = [nil, .cancel, .finish, .finishWithDependents]
            plan.policies = (0..<count).map { _ in choices[rng.int(in: 0...3)] }
            if owners > 0, rng.int(in: 0...3) != 0 { plan.owner = rng.int(in: 0...(owners - 1)) }
            return plan
        }

        /// Whether a policy wants `node` to outlive its owner: its own, or an ancestor's
        /// `.finishWithDependents` (then its fallback is kept too).
        func wantsToOutlive(_ node: Int) -> Bool {
            if let policy = policies[node], policy != .cancel { return true }
            return ancestors(of: node).contains { policies[$0] == .finishWithDependents }
        }

        /// Whether `node` outlives its owner whenever the owner ends: it and every node it waits
        /// for want to.
        func surelyOutlives(_ node: Int) -> Bool {
            wantsToOutlive(node) && prerequisites[node].allSatisfy(surelyOutlives)
        }

        func graph(run: Int) -> (ActionGraph<Log>, [Node<Void>]) {
            var graph = ActionGraph<Log>()
            var nodes: [Node<Void>] = []
            for node in isSync.indices {
                let after: [any GraphNode] = prerequisites[node].map { nodes[$0] }
                if isSync[node] {
                    nodes.append(graph.send(Commit(entry: .node(run: run, node: node)), after: after))
                } else {
                    let work = graph.run(Work(fails: fails[node], yields: yields[node]), after: after)
                    if hasFallback[node] {
                        graph.setFallback(for: work) { _ in Commit(entry: .fallback(run: run, node: node)) }
                    }
                    nodes.append(work)
                }
                if let policy = policies[node] { graph.setOwnerEndPolicy(policy, for: nodes[node]) }
            }
            return (graph, nodes)
        }

        /// The model's outcome of each node in a run that is not cancelled.
        var modelOutcomes: [String] {
            var outcomes: [String] = []
            for node in isSync.indices {
                if prerequisites[node].contains(where: { outcomes[$0] != "succeeded" }) {
                    outcomes.append("skipped")
                } else {
                    outcomes.append(fails[node] ? "failed" : "succeeded")
                }
            }
            return outcomes
        }

        /// Every node `node` waits for, directly or not.
        func ancestors(of node: Int) -> Set<Int> {
            var found: Set<Int> = []
            var stack = prerequisites[node]
            while let next = stack.popLast() {
                if found.insert(next).inserted { stack += prerequisites[next] }
            }
            return found
        }
    }

    static func name<R>(_ outcome: Outcome<R>) -> String {
        switch outcome {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .skipped: "skipped"
        case .cancelled: "cancelled"
        }
    }

    @Test("random runs, dispatches and cancels keep every promised order")
    func randomRoundsKeepThePromisedOrder() async throws {
        let environment = ProcessInfo.processInfo.environment
        let baseSeed = environment["ORESREDUX_ORDER_SEED"].flatMap { UInt64($0) } ?? 0x0_0DE2_5EED
        let rounds =
            environment["ORESREDUX_ORDER_ROUNDS"].flatMap { Int($0) } ?? stressCount(300, underThreadSanitizer: 30)
        for round in 0..<rounds {
            try await Self.check(seed: baseSeed &+ UInt64(round))
        }
    }

    static func check(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let salt = rng.int(in: 0...4)
        let ownerCount = rng.int(in: 0...3)
        let plans = (0..<rng.int(in: 2...6)).map { _ in Plan.random(&rng, owners: ownerCount) }
        let plainCount = rng.int(in: 0...40)
        // How each owner ends: after `at` yields of a task, on a thread of its own after them, or
        // from the subscriber once the log holds `at` commits.
        let endings = (0..<ownerCount).map { _ in (way: rng.int(in: 0...2), at: rng.int(in: 0...12)) }
        let store = Store(
            initialState: Log(),
            reducer: Reducer { log, action in
                if let commit = action as? Commit { log.entries.append(commit.entry) }
            },
            middleware: [
                Middleware { action, context, next in
                    if let commit = action as? Commit, commit.entry.triggers(salt: salt).middleware {
                        context.dispatch(Commit(entry: .fromMiddleware(commit.entry)))
                    }
                    next(action)
                }
            ],
            // Refusals by an ended owner are expected here; the outcomes say what was refused.
            options: StoreOptions(onDiagnostic: { _ in }))
        let echo = store.subscribe { log in
            if let last = log.entries.last, last.triggers(salt: salt).subscriber {
                store.dispatch(Commit(entry: .fromSubscriber(last)))
            }
        }
        let owners = (0..<ownerCount).map { store.makeOwner("Screen \($0)") }
        let endedAt = LockedCounts()
        let claimed = LockedValue<Set<Int>>([])
        // Ends the owner once, and notes the log's length when its end returned.
        let endOwner: @Sendable (Int) -> Void = { owner in
            guard claimed.withLock({ $0.insert(owner).inserted }) else { return }
            owners[owner].end()
            endedAt.set(owner, store.state.entries.count)
        }
        let ender = store.subscribe { log in
            for (owner, ending) in endings.enumerated() where ending.way == 2 && log.entries.count >= ending.at {
                endOwner(owner)
            }
        }
        defer { withExtendedLifetime((echo, ender)) {} }

        let cancelledAt = LockedCounts()
        // Per owned run: whether its owner had ended before its dispatch, and after it returned.
        let endedBeforeDispatch = LockedValue<Set<Int>>([])
        let endedAfterDispatch = LockedValue<Set<Int>>([])
        let outcomes = try await withDeadline(30, "round of seed \(seed)") {
            async let plain: Void = onThread {
                for number in 0..<plainCount { store.dispatch(Commit(entry: .plain(number))) }
            }
            let outcomes = await withTaskGroup(of: (Int, [String]).self) { group in
                for (owner, ending) in endings.enumerated() where ending.way != 2 {
                    group.addTask {
                        for _ in 0..<ending.at { await Task.yield() }
                        if ending.way == 0 { endOwner(owner) } else { await onThread { endOwner(owner) } }
                        return (-1, [])
                    }
                }
                for (index, plan) in plans.enumerated() {
                    group.addTask {
                        let (graph, nodes) = plan.graph(run: index)
                        let run: GraphRun<Log>
                        if let owner = plan.owner {
                            if owners[owner].isEnded { endedBeforeDispatch.withLock { _ = $0.insert(index) } }
                            run = owners[owner].dispatch(graph)
                            if owners[owner].isEnded { endedAfterDispatch.withLock { _ = $0.insert(index) } }
                        } else {
                            run = store.dispatch(graph)
                        }
                        if let cancelAfter = plan.cancelAfter {
                            for _ in 0..<cancelAfter { await Task.yield() }
                            run.cancel()
                            cancelledAt.set(index, store.state.entries.count)
                        }
                        _ = await run.wait()
                        var outcomes: [String] = []
                        for node in nodes { outcomes.append(Self.name(await run.outcome(of: node))) }
                        return (index, outcomes)
                    }
                }
                var all: [Int: [String]] = [:]
                for await (index, outcome) in group where index >= 0 { all[index] = outcome }
                return all
            }
            await plain
            for owner in owners.indices { endOwner(owner) }
            return outcomes
        }
        let log = store.state.entries
        let place = "seed \(seed)"

        // Rules 1-2: a follow-up is the next commit; the middleware's first (it dispatched before
        // the reducer ran), then the subscriber's.
        for (index, entry) in log.enumerated() {
            let (middleware, subscriber) = entry.triggers(salt: salt)
            var expected: [Entry] = []
            if middleware { expected.append(.fromMiddleware(entry)) }
            if subscriber { expected.append(.fromSubscriber(entry)) }
            guard !expected.isEmpty else { continue }
            let next = Array(log[(index + 1)..<min(log.count, index + 1 + expected.count)])
            #expect(next == expected, "\(place): after \(entry) at commit \(index) came \(next)")
        }
        // Rule 3: plain dispatches from one thread, in their order, each once.
        let plains = log.compactMap { if case .plain(let number) = $0 { number } else { nil } }
        #expect(plains == Array(0..<plainCount), "\(place)")

        for (run, plan) in plans.enumerated() {
            let where_ = "\(place), run \(run)"
            let outcome = outcomes[run] ?? []
            let ownerEnd = plan.owner.flatMap { endedAt.value($0) }
            let refused = endedBeforeDispatch.withLock { $0.contains(run) }
            let adopted = plan.owner != nil && !endedAfterDispatch.withLock { $0.contains(run) }
            if refused {
                #expect(
                    outcome.allSatisfy { $0 == "cancelled" }, "\(where_): dispatched to an ended owner, yet \(outcome)")
            }
            var position: [Int: Int] = [:]
            var fallbackCommits = 0
            for (index, entry) in log.enumerated() {
                switch entry {
                case .node(run, let node):
                    #expect(position[node] == nil, "\(where_): node \(node) applied twice")
                    position[node] = index
                case .fallback(run, let node):
                    fallbackCommits += 1
                    #expect(outcome[node] == "failed" && plan.hasFallback[node], "\(where_): fallback of \(node)")
                    if let cancelled = cancelledAt.value(run) {
                        #expect(index < cancelled, "\(where_): a fallback after cancel() returned")
                    }
                    if let end = ownerEnd, !plan.wantsToOutlive(node) {
                        #expect(index < end, "\(where_): a fallback of \(node) after its owner's end returned")
                    }
                default: break
                }
            }
            if plan.cancelAfter == nil && plan.owner == nil {
                #expect(outcome == plan.modelOutcomes, "\(where_): outcomes")
                let failedWithFallback = plan.isSync.indices.filter { outcome[$0] == "failed" && plan.hasFallback[$0] }
                #expect(fallbackCommits == failedWithFallback.count, "\(where_): fallbacks")
            } else {
                let model = plan.modelOutcomes
                for node in plan.isSync.indices where outcome[node] != "cancelled" {
                    #expect(outcome[node] == model[node], "\(where_): node \(node) is \(outcome[node])")
                }
                // What surely outlives its owner is not cancelled by it (a run the owner adopted).
                for node in plan.isSync.indices where plan.cancelAfter == nil && adopted && plan.surelyOutlives(node) {
                    #expect(outcome[node] != "cancelled", "\(where_): node \(node) outlives its owner, yet cancelled")
                }
            }
            if let end = ownerEnd {
                // After the end returned, only the sync node in hand at that moment may still complete.
                let late = plan.isSync.indices.filter { node in
                    plan.isSync[node] && !plan.wantsToOutlive(node) && (position[node] ?? -1) >= end
                }
                #expect(late.count <= 1, "\(where_): applied after its owner's end returned: \(late)")
            }
            for node in plan.isSync.indices where plan.isSync[node] {
                // Release rule: applied exactly when it succeeded, after every sync node it waits for.
                #expect((position[node] != nil) == (outcome[node] == "succeeded"), "\(where_): node \(node)")
                guard let at = position[node] else { continue }
                for ancestor in plan.ancestors(of: node) where plan.isSync[ancestor] {
                    #expect((position[ancestor] ?? .max) < at, "\(where_): \(node) before its prerequisite \(ancestor)")
                }
                // Rule 4: sync nodes with the same prerequisites are ready together: added order.
                for sibling in 0..<node
                where plan.isSync[sibling] && plan.prerequisites[sibling] == plan.prerequisites[node] {
                    if let before = position[sibling] {
                        #expect(before < at, "\(where_): \(sibling) and \(node) were ready together")
                    }
                }
            }
        }
    }
}

/// Per run: the log's length right after its `cancel()` returned.
private final class LockedCounts: Sendable {
    private let counts = LockedValue<[Int: Int]>([:])
    func set(_ run: Int, _ count: Int) { counts.withLock { $0[run] = count } }
    func value(_ run: Int) -> Int? { counts.withLock { $0[run] } }
}
