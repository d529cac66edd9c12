import Foundation
import OresRedux
import OresReduxTesting
import Testing

extension GraphStories {
    /// Semantics 1-6 at once, on many random graphs checked against a small reference model.
    ///
    /// Each graph is built from its own seed (printed in every failure): 5 to 60 nodes, each a sync
    /// action, an async action that answers, one that throws, or one that hangs until its timeout
    /// fires on a `VirtualClock`; now and then a node names a prerequisite of another graph. Prerequisites
    /// are random earlier nodes, passed through the typed pack form (responses recorded and compared)
    /// or the ordering-only array form. Some runs are cancelled: at once, after a random node ended,
    /// or from inside a random async node while it runs.
    ///
    /// Reproduce one graph: `ORESREDUX_GRAPH_SEED=<seed> ORESREDUX_GRAPH_COUNT=1 swift test --filter RandomGraphs`.
    @Suite("Random graphs")
    struct RandomGraphs {
        static let timeout = Duration.seconds(10)

        @Test("1000 random graphs: every node terminal, none run twice, none early, outcomes as the model says")
        func randomGraphsKeepTheSemantics() async throws {
            let environment = ProcessInfo.processInfo.environment
            let baseSeed = environment["ORESREDUX_GRAPH_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0F_0E5_2ED0
            let graphs = environment["ORESREDUX_GRAPH_COUNT"].flatMap { Int($0) } ?? 1000
            var cancelledRuns = 0
            for number in 0..<graphs {
                let seed = baseSeed &+ UInt64(number)
                if try await Self.check(seed: seed) { cancelledRuns += 1 }
            }
            // The sample must exercise both halves of the model.
            if graphs >= 100 {
                #expect(cancelledRuns > graphs / 10)
                #expect(cancelledRuns < graphs - graphs / 10)
            }
        }

        // MARK: The plan of one graph

        enum Kind: CustomStringConvertible {
            case sync, answers, throwsError, timesOut, foreign, cancelsRun

            var description: String {
                switch self {
                case .sync: "sync"
                case .answers: "answers"
                case .throwsError: "throws"
                case .timesOut: "timesOut"
                case .foreign: "foreign"
                case .cancelsRun: "cancelsRun"
                }
            }

            var isAsync: Bool {
                switch self {
                case .answers, .throwsError, .timesOut, .cancelsRun: true
                case .sync, .foreign: false
                }
            }
        }

        enum CancelPlan {
            case never, atOnce, afterNode(Int), fromInside(Int)
        }

        struct Plan: CustomStringConvertible {
            var kinds: [Kind] = []
            var prerequisites: [[Int]] = []
            var typed: [Bool] = []
            var fallback: [Bool] = []
            var cancel = CancelPlan.never

            var description: String {
                kinds.indices.map { "#\($0) \(kinds[$0]) after \(prerequisites[$0])\(typed[$0] ? " typed" : "")" }
                    .joined(separator: "; ") + "; cancel \(cancel)"
            }

            static func random(_ rng: inout SplitMix64) -> Plan {
                var plan = Plan()
                let count = rng.int(in: 5...60)
                for node in 0..<count {
                    let roll = rng.int(in: 0...99)
                    let kind: Kind =
                        switch roll {
                        case ..<35: .sync
                        case ..<75: .answers
                        case ..<87: .throwsError
                        case ..<96: .timesOut
                        default: .foreign
                        }
                    var prerequisites: Set<Int> = []
                    if node > 0 {
                        for _ in 0..<rng.int(in: 0...3) {
                            prerequisites.insert(rng.int(in: max(0, node - 12)...(node - 1)))
                        }
                    }
                    plan.kinds.append(kind)
                    plan.prerequisites.append(prerequisites.sorted())
                    plan.typed.append(prerequisites.count <= 2 && kind != .foreign && rng.int(in: 0...3) > 0)
                    plan.fallback.append(rng.int(in: 0...1) == 0)
                }
                switch rng.int(in: 0...19) {
                case 0...1: plan.cancel = .atOnce
                case 2...4: plan.cancel = .afterNode(rng.int(in: 0...(count - 1)))
                case 5...7:
                    let node = rng.int(in: 0...(count - 1))
                    plan.kinds[node] = .cancelsRun
                    if !plan.typed[node] && plan.prerequisites[node].count <= 2 { plan.typed[node] = true }
                    plan.cancel = .fromInside(node)
                default: plan.cancel = .never
                }
                return plan
            }

            /// What a node answers when it succeeds: -1 stands for the `Void` of a sync node.
            func response(of node: Int) -> Int {
                kinds[node].isAsync ? node * 7 + 3 : -1
            }
        }

        // MARK: The store the random graphs run in

        struct PropState: Sendable {
            var visits: [Int] = []
            var fallbacks: [Int] = []
        }

        struct Visit: Action {
            let node: Int
            let inputs: [Int]?
        }

        struct Fallback: Action {
            let node: Int
        }

        struct NodeFailure: Error, Equatable {
            let node: Int
        }

        /// The async node: records `start`, its inputs, then does what its kind says.
        struct Work: AsyncAction {
            let node: Int
            let kind: Kind
            let inputs: [Int]?
            let answer: Int
            let probe: Probe
            let runBox: Box<GraphRun<PropState>>
            let runReady: Latch
            let cancelled: Box<Bool>

            func run(_ context: ActionContext<PropState>) async throws -> Int {
                // One record: a timed-out node's run may end before this task gets further.
                probe.record(together: ["start \(node)"] + (inputs.map { ["inputs \(node): \($0)"] } ?? []))
                switch kind {
                case .answers:
                    probe.record("end \(node)")
                    return answer
                case .throwsError:
                    throw NodeFailure(node: node)
                case .timesOut, .cancelsRun:
                    if kind == .cancelsRun {
                        await runReady.wait()
                        cancelled.value = true
                        runBox.value?.cancel()
                    }
                    try await withTaskCancellationHandler {
                        try await Latch().waitUnlessCancelled()
                    } onCancel: {
                        probe.record("cancelled \(node)")
                    }
                    throw NodeFailure(node: -node)
                case .sync, .foreign:
                    preconditionFailure("not an async kind")
                }
            }
        }

        enum Built {
            case void(Node<Void>)
            case int(Node<Int>)

            var erased: any GraphNode {
                switch self {
                case .void(let node): node
                case .int(let node): node
                }
            }

            var index: Int {
                switch self {
                case .void(let node): node.index
                case .int(let node): node.index
                }
            }
        }

        typealias PropGraph = ActionGraph<PropState>

        // MARK: One graph

        /// Builds, runs and checks the graph of `seed`; returns whether its run was cancelled.
        static func check(seed: UInt64) async throws -> Bool {
            var rng = SplitMix64(seed: seed)
            let plan = Plan.random(&rng)
            let probe = Probe()
            let clock = VirtualClock()
            let runBox = Box<GraphRun<PropState>>()
            let runReady = Latch()
            let cancelFlag = Box<Bool>(false)
            // Even seeds watch sync nodes from a middleware, so the store applies them one by one;
            // odd seeds from the reducer, on a store with no middleware and no subscriber, which
            // applies them in batches with its locks held across each batch.
            let watchesFromMiddleware = seed % 2 == 0
            @Sendable func watch(_ action: any Action, _ apply: () -> Void) {
                switch action {
                case let visit as Visit:
                    probe.record("start \(visit.node)")
                    if let inputs = visit.inputs { probe.record("inputs \(visit.node): \(inputs)") }
                    apply()
                    probe.record("end \(visit.node)")
                case let fallback as Fallback:
                    probe.record("fallback \(fallback.node)")
                    apply()
                default:
                    apply()
                }
            }
            let recorder = Middleware<PropState> { action, _, next in watch(action) { next(action) } }
            let reducer = Reducer<PropState> { state, action in
                func apply() {
                    switch action {
                    case let visit as Visit: state.visits.append(visit.node)
                    case let fallback as Fallback: state.fallbacks.append(fallback.node)
                    default: break
                    }
                }
                if watchesFromMiddleware { apply() } else { watch(action, apply) }
            }
            let store = Store(
                initialState: PropState(), reducer: reducer,
                middleware: watchesFromMiddleware ? [recorder] : [],
                options: StoreOptions(clock: clock))

            // Build.
            var foreignGraph = PropGraph()
            let stranger = foreignGraph.send(Visit(node: -1, inputs: nil))
            var graph = PropGraph()
            var built: [Built] = []
            for node in plan.kinds.indices {
                let kind = plan.kinds[node]
                let prerequisites = plan.prerequisites[node].map { built[$0] }
                let answer = plan.response(of: node)
                let work: @Sendable ([Int]?) -> Work = { inputs in
                    Work(
                        node: node, kind: kind, inputs: inputs, answer: answer, probe: probe,
                        runBox: runBox, runReady: runReady, cancelled: cancelFlag)
                }
                let made: Built
                switch (kind.isAsync, plan.typed[node]) {
                case (false, true):
                    made = .void(sendTyped(&graph, prerequisites) { inputs in Visit(node: node, inputs: inputs) })
                case (false, false):
                    var erased = prerequisites.map(\.erased)
                    if kind == .foreign { erased.insert(stranger, at: erased.isEmpty ? 0 : 1) }
                    made = .void(graph.send(Visit(node: node, inputs: nil), after: erased))
                case (true, true):
                    made = .int(runTyped(&graph, prerequisites) { inputs in work(inputs) })
                case (true, false):
                    made = .int(graph.run(work(nil), after: prerequisites.map(\.erased)))
                }
                #expect(made.index == node, "seed \(seed)")
                if kind == .timesOut { if case .int(let n) = made { graph.setTimeout(timeout, for: n) } }
                if plan.fallback[node], kind == .throwsError || kind == .timesOut || kind == .foreign {
                    switch made {
                    case .void(let n): graph.setFallback(for: n) { _ in Fallback(node: node) }
                    case .int(let n): graph.setFallback(for: n) { _ in Fallback(node: node) }
                    }
                }
                built.append(made)
            }
            let foreignCount = plan.kinds.filter { $0 == .foreign }.count
            #expect(graph.problems.count == foreignCount, "seed \(seed)")

            // Run, advancing the test clock whenever something sleeps on it.
            let done = Box<Bool>(false)
            let driver = Task {
                while true {
                    do { try await clock.waitForSleepers(1) } catch { continue }  // none yet: wait again
                    if done.value == true { return }
                    await clock.advance(by: timeout)
                }
            }
            let run = store.dispatch(graph)
            runBox.value = run
            runReady.open()
            var beforeCancel: GraphReport?
            switch plan.cancel {
            case .never, .fromInside:
                break
            case .atOnce:
                cancelFlag.value = true
                run.cancel()
            case .afterNode(let node):
                switch built[node] {
                case .void(let n): _ = try await withDeadline(10, "the outcome of n") { await run.outcome(of: n) }
                case .int(let n): _ = try await withDeadline(10, "the outcome of n") { await run.outcome(of: n) }
                }
                beforeCancel = run.report
                cancelFlag.value = true
                run.cancel()
            }
            let report = try await withDeadline { await run.wait() }
            done.value = true
            // Wake the driver with a sleeper of our own (a long delay node), so that it sees `done`.
            var pokeGraph = PropGraph()
            pokeGraph.delay(.seconds(1_000_000_000))
            let poke = store.dispatch(pokeGraph)
            try await withDeadline(10, "the driver") { await driver.value }
            poke.cancel()
            _ = try await withDeadline(10, "the poke run") { await poke.wait() }

            // Check.
            let wasCancelled = cancelFlag.value == true
            // One snapshot of the log: in a cancelled run, an async node released just before cancel()
            // may still enter its action after wait() returned (on a cancelled task).
            let log = probe.log
            var firstPosition: [String: Int] = [:]
            var counts: [String: Int] = [:]
            for (position, event) in log.enumerated() {
                if firstPosition[event] == nil { firstPosition[event] = position }
                counts[event, default: 0] += 1
            }
            let model = referenceOutcomes(plan)
            let where_ = "seed \(seed) (\(plan.kinds.count) nodes, cancel \(plan.cancel))"

            for node in plan.kinds.indices {
                let kind = plan.kinds[node]
                let entry = report[node]
                let here = "node #\(node) \(kind), \(where_)"
                guard let outcome = entry.outcome else {
                    Issue.record("not terminal after wait(): \(here)")
                    continue
                }
                let starts = counts["start \(node)", default: 0]
                #expect(starts <= 1 && probe.count("start \(node)") <= 1, "started twice: \(here)")
                #expect(counts["end \(node)", default: 0] <= 1, "ended twice: \(here)")
                #expect(counts["fallback \(node)", default: 0] <= 1, "fallback sent twice: \(here)")
                let prerequisiteOutcomes = plan.prerequisites[node].map { report[$0].outcome }

                if starts > 0 {
                    // Never before every prerequisite succeeded.
                    for prerequisite in plan.prerequisites[node] {
                        #expect(
                            report[prerequisite].outcome == .succeeded,
                            "started though #\(prerequisite) \(String(describing: report[prerequisite].outcome)): \(here)"
                        )
                        if let end = firstPosition["end \(prerequisite)"], let start = firstPosition["start \(node)"] {
                            #expect(end < start, "started before #\(prerequisite) ended: \(here)")
                        } else {
                            Issue.record("started, but #\(prerequisite) never ended: \(here)")
                        }
                    }
                    // Typed responses flowed in, in order.
                    if plan.typed[node] {
                        let expected = plan.prerequisites[node].map { plan.response(of: $0) }
                        #expect(counts["inputs \(node): \(expected)", default: 0] == 1, "wrong inputs: \(here)\n\(log)")
                    }
                }

                switch outcome {
                case .succeeded:
                    #expect(starts == 1, "succeeded without running: \(here)")
                    #expect(kind == .sync || kind == .answers, "succeeded: \(here)")
                    if case .int(let n) = built[node] {
                        #expect(
                            try await withDeadline(10, "the value of n") { try await run.value(of: n) }
                                == plan.response(of: node), "wrong response: \(here)")
                    }
                case .failed:
                    let error = entry.error
                    switch kind {
                    case .throwsError:
                        #expect(
                            error as? NodeFailure == NodeFailure(node: node),
                            "error \(String(describing: error)): \(here)")
                    case .timesOut:
                        #expect(
                            error as? GraphError == .timedOut(after: timeout),
                            "error \(String(describing: error)): \(here)")
                    case .foreign:
                        #expect(error as? GraphError == .foreignNode(index: stranger.index), "error: \(here)")
                        #expect(starts == 0, "a foreign node ran: \(here)")
                    default:
                        Issue.record("failed with \(String(describing: error)): \(here)")
                    }
                case .skipped:
                    #expect(starts == 0, "skipped but ran: \(here)")
                case .cancelled:
                    #expect(wasCancelled, "cancelled in a run nobody cancelled: \(here)")
                }
                // Skipped exactly when a prerequisite failed or was skipped.
                let blocked = prerequisiteOutcomes.contains { $0 == .failed || $0 == .skipped }
                if kind != .foreign {
                    #expect(
                        (outcome == .skipped) == blocked,
                        "outcome \(outcome), prerequisites \(prerequisiteOutcomes): \(here)")
                }
                if starts == 0 {
                    #expect(outcome != .succeeded, "succeeded without starting: \(here)")
                }
                if counts["fallback \(node)", default: 0] == 1 {
                    #expect(outcome == .failed && plan.fallback[node], "fallback without failure: \(here)")
                }
                if let beforeCancel, let earlier = beforeCancel[node].outcome {
                    #expect(earlier == outcome, "was \(earlier) before cancel, \(outcome) after: \(here)")
                }
                if !wasCancelled {
                    // The whole run must match the model.
                    #expect(outcome == model[node], "model says \(model[node]): \(here)\n\(plan)")
                    let hasFallback =
                        plan.fallback[node] && (kind == .throwsError || kind == .timesOut || kind == .foreign)
                    #expect(
                        counts["fallback \(node)", default: 0] == (outcome == .failed && hasFallback ? 1 : 0),
                        "fallback count: \(here)")
                    if kind == .sync && outcome == .succeeded {
                        #expect(store.state.visits.filter { $0 == node }.count == 1, "applied more than once: \(here)")
                    }
                }
            }
            if case .fromInside(let node) = plan.cancel, wasCancelled {
                #expect(report[node].outcome == .cancelled, "the node that cancelled the run: \(where_)")
            }
            if !wasCancelled {
                #expect(report.count(of: .cancelled) == 0, "\(where_)")
            }
            return wasCancelled
        }

        /// The outcomes of a run nobody cancelled, computed in index order (prerequisites come first).
        /// A node with bad input fails with its own error whatever is above it.
        static func referenceOutcomes(_ plan: Plan) -> [OutcomeKind] {
            var outcomes: [OutcomeKind] = []
            for node in plan.kinds.indices {
                if plan.kinds[node] == .foreign {
                    outcomes.append(.failed)
                } else if plan.prerequisites[node].contains(where: { outcomes[$0] != .succeeded }) {
                    outcomes.append(.skipped)
                } else {
                    switch plan.kinds[node] {
                    case .sync, .answers: outcomes.append(.succeeded)
                    case .throwsError, .timesOut, .foreign: outcomes.append(.failed)
                    case .cancelsRun: outcomes.append(.cancelled)  // it runs, so the run is cancelled
                    }
                }
            }
            return outcomes
        }

        // MARK: The typed pack forms, for zero to two prerequisites of either response type

        static func sendTyped(
            _ graph: inout PropGraph, _ prerequisites: [Built],
            _ make: @escaping @Sendable ([Int]) -> Visit
        ) -> Node<Void> {
            switch prerequisites.count {
            case 0:
                return graph.send { make([]) }
            case 1:
                switch prerequisites[0] {
                case .void(let a): return graph.send(after: a) { (_: Void) in make([-1]) }
                case .int(let a): return graph.send(after: a) { a in make([a]) }
                }
            default:
                switch (prerequisites[0], prerequisites[1]) {
                case (.void(let a), .void(let b)):
                    return graph.send(after: a, b) { (_: Void, _: Void) in make([-1, -1]) }
                case (.void(let a), .int(let b)): return graph.send(after: a, b) { (_: Void, b: Int) in make([-1, b]) }
                case (.int(let a), .void(let b)): return graph.send(after: a, b) { (a: Int, _: Void) in make([a, -1]) }
                case (.int(let a), .int(let b)): return graph.send(after: a, b) { a, b in make([a, b]) }
                }
            }
        }

        static func runTyped(
            _ graph: inout PropGraph, _ prerequisites: [Built],
            _ make: @escaping @Sendable ([Int]) -> Work
        ) -> Node<Int> {
            switch prerequisites.count {
            case 0:
                return graph.run { make([]) }
            case 1:
                switch prerequisites[0] {
                case .void(let a): return graph.run(after: a) { (_: Void) in make([-1]) }
                case .int(let a): return graph.run(after: a) { a in make([a]) }
                }
            default:
                switch (prerequisites[0], prerequisites[1]) {
                case (.void(let a), .void(let b)):
                    return graph.run(after: a, b) { (_: Void, _: Void) in make([-1, -1]) }
                case (.void(let a), .int(let b)): return graph.run(after: a, b) { (_: Void, b: Int) in make([-1, b]) }
                case (.int(let a), .void(let b)): return graph.run(after: a, b) { (a: Int, _: Void) in make([a, -1]) }
                case (.int(let a), .int(let b)): return graph.run(after: a, b) { a, b in make([a, b]) }
                }
            }
        }
    }

}

// Every random graph can be rebuilt from its seed (Tests/Support/SplitMix64.swift).
extension SplitMix64 {
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
