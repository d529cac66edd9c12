import OresRedux
import Testing

/// DESIGN.md semantics 8, case by case: each misuse and the clear error it gets. (A reducer that
/// dispatches stops the process with a message: see `CoreStore.BadInput`, an exit test.)
@Suite("Bad input table")
struct BadInputTable {
    typealias Counter = Reliability.Counter
    typealias Add = Reliability.Add
    typealias Fetch = Reliability.Fetch

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Returns what was observed; the test compares it with `expected`.
        let observe: @Sendable () async -> String
        let expected: String
        var testDescription: String { name }
    }

    static func store() -> Store<Counter> { Store(initialState: Counter(), reducer: Reliability.reducer) }

    static let cases: [Case] = [
        Case(
            name: "a node of another graph as a prerequisite",
            observe: {
                var other = ActionGraph<Counter>()
                let stranger = other.send(Add())
                var graph = ActionGraph<Counter>()
                let node = graph.send(Add(), after: stranger)
                let outcome = await store().dispatch(graph).outcome(of: node)
                return "\(graph.problems) \(outcome.kind) \(outcome.error.map { "\($0)" } ?? "")"
            },
            expected:
                "[node #0 belongs to another graph; a node may only wait on nodes added before it to the same graph] failed node #0 belongs to another graph; a node may only wait on nodes added before it to the same graph"
        ),

        Case(
            name: "a cycle: no API can express one; waiting on a node of a later copy is a foreign node",
            observe: {
                var graph = ActionGraph<Counter>()
                let first = graph.send(Add())
                var later = graph
                let second = later.send(Add(), after: first)
                let looped = graph.send(Add(), after: second)  // `second` exists only in the copy
                let report = await store().dispatch(graph).wait()
                return "\(report[looped].outcome!) \(report[looped].error.map { "\($0)" } ?? "")"
            },
            expected:
                "failed node #1 belongs to another graph; a node may only wait on nodes added before it to the same graph"
        ),

        Case(
            name: "asking a run about a node of another graph",
            observe: {
                let graph = ActionGraph<Counter>()
                var other = ActionGraph<Counter>()
                let stranger = other.send(Add())
                do {
                    _ = try await store().dispatch(graph).value(of: stranger)
                    return "no error"
                } catch {
                    return "\(error)"
                }
            },
            expected:
                "node #0 belongs to another graph; a node may only wait on nodes added before it to the same graph"),

        Case(
            name: "a setting on a node of another graph",
            observe: {
                var other = ActionGraph<Counter>()
                let stranger = other.run(Fetch(answer: 1))
                var graph = ActionGraph<Counter>()
                graph.setTimeout(.seconds(1), for: stranger)
                return "\(graph.problems)"
            },
            expected:
                "[node #0 belongs to another graph; a node may only wait on nodes added before it to the same graph]"),

        Case(
            name: "joining a run of another store",
            observe: {
                let first = store()
                var graph = ActionGraph<Counter>()
                let node = graph.send(Add())
                let run = first.dispatch(graph)
                var joining = ActionGraph<Counter>()
                let join = joining.join(node, of: run)
                let second = store()  // kept: releasing a store cancels its runs
                let outcome = await second.dispatch(joining).outcome(of: join)
                return "\(outcome.kind) \(outcome.error.map { "\($0)" } ?? "")"
            },
            expected:
                "failed the joined run belongs to another store; a graph can only join runs of the store it runs in"),

        Case(
            name: "a subscriber that dispatches: allowed, applied after the current action",
            observe: {
                let counter = store()
                let seen = CoreStore.Recorder<Int>()
                let subscription = counter.subscribe { state in
                    seen.record(state.value)
                    if state.value == 1 { counter.dispatch(Add(amount: 10)) }
                }
                counter.dispatch(Add())
                withExtendedLifetime(subscription) {}
                return "\(seen.values) \(counter.state.value)"
            }, expected: "[0, 1, 11] 11"),

        Case(
            name: "a sync dispatch after the store is gone",
            observe: {
                let diagnostics = CoreStore.Recorder<String>()
                let context = contextOfReleasedStore(diagnostics)
                context.dispatch(Add())
                return diagnostics.values.joined()
            }, expected: "Add was dispatched after its store was released; it was dropped."),

        Case(
            name: "an async dispatch after the store is gone",
            observe: {
                let context = contextOfReleasedStore(CoreStore.Recorder<String>())
                do {
                    _ = try await context.dispatch(Fetch(answer: 1)).value
                    return "no error"
                } catch {
                    return "\(error)"
                }
            }, expected: "the store was released before this work could run"),

        Case(
            name: "a graph dispatched after the store is gone",
            observe: {
                let context = contextOfReleasedStore(CoreStore.Recorder<String>())
                var graph = ActionGraph<Counter>()
                graph.send(Add())
                graph.run(Fetch(answer: 1))
                return await context.dispatch(graph).wait().summary.components(separatedBy: " in ")[0]
            }, expected: "2 nodes: 0 succeeded, 0 failed, 0 skipped, 2 cancelled"),
    ]

    @Test("Each misuse gets its clear answer", arguments: cases)
    func misuse(_ misuse: Case) async throws {
        let observed = try await withDeadline(10, "the misuse's answer") { await misuse.observe() }
        #expect(observed == misuse.expected)
    }

    /// A context whose store has been released; diagnostics go to `log`.
    static func contextOfReleasedStore(_ log: CoreStore.Recorder<String>) -> ActionContext<Counter> {
        let kept = CoreStore.Locked<ActionContext<Counter>?>(nil)
        let keep = Middleware<Counter> { action, context, next in
            kept.withLock { $0 = context }
            next(action)
        }
        do {
            let store = Store(
                initialState: Counter(), reducer: Reliability.reducer, middleware: [keep],
                options: StoreOptions(onDiagnostic: { log.record($0.message) }))
            store.dispatch(Add())
        }
        return kept.current!
    }
}
