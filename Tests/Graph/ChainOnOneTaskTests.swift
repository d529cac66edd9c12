import Foundation
import OresRedux
import Testing

extension GraphStories {
    /// Issue 23: when an async node's end releases the next async node, the ending task runs it.
    /// Cancellation must still reach exactly the node that task runs now (semantics 5).
    @Suite("A chain of async nodes on one task")
    struct ChainOnOneTaskStories {
        @Test(
            "cancel while the second node of a chain runs on the first node's task: it is cancelled, the third never starts"
        )
        func cancelReachesTheSecondNodeOnTheReusedTask() async throws {
            let probe = Probe()
            let tasks = TaskLog()
            let store = makeStore(probe: probe)
            let firstGate = Latch()
            var graph = Graph()
            let first = graph.run(Step(name: "A", probe: probe, tasks: tasks, gate: firstGate))
            let second = graph.run(Step(name: "B", probe: probe, tasks: tasks, gate: Latch()), after: first)
            let third = graph.run(Step(name: "C", probe: probe, tasks: tasks), after: second)
            let done = graph.send(Note("done"), after: third)
            let run = store.dispatch(graph)
            try await withDeadline(10, "A to start") { await probe.waitFor("start A") }

            firstGate.open()
            try await withDeadline(10, "B to start") { await probe.waitFor("start B") }
            #expect(tasks.task(of: "B") == tasks.task(of: "A"), "B runs on the task that ran A")
            run.cancel()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            try await withDeadline(10, "B to see its task cancelled") { await probe.waitFor("cancelled B") }
            try await withDeadline(10, "B to leave") { await probe.waitFor("left B") }
            #expect(report[first].outcome == .succeeded)
            #expect(report[second].outcome == .cancelled)
            #expect(report[third].outcome == .cancelled)
            #expect(report[third].start == nil)
            #expect(report[done].outcome == .cancelled)
            #expect(probe.count("start C") == 0)
            #expect(store.state.applied.isEmpty)
        }

        @Test(
            "cancel while the third node of a chain runs on the reused task: it is cancelled, the fourth never starts")
        func cancelReachesTheThirdNodeOnTheReusedTask() async throws {
            let probe = Probe()
            let tasks = TaskLog()
            let store = makeStore(probe: probe)
            let firstGate = Latch()
            var graph = Graph()
            let first = graph.run(Step(name: "A", probe: probe, tasks: tasks, gate: firstGate))
            let second = graph.run(Step(name: "B", probe: probe, tasks: tasks), after: first)
            let third = graph.run(Step(name: "C", probe: probe, tasks: tasks, gate: Latch()), after: second)
            let fourth = graph.run(Step(name: "D", probe: probe, tasks: tasks), after: third)
            let run = store.dispatch(graph)
            try await withDeadline(10, "A to start") { await probe.waitFor("start A") }

            firstGate.open()
            try await withDeadline(10, "C to start") { await probe.waitFor("start C") }
            #expect(tasks.task(of: "C") == tasks.task(of: "A"), "C runs on the task that ran A and B")
            run.cancel()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            try await withDeadline(10, "C to see its task cancelled") { await probe.waitFor("cancelled C") }
            try await withDeadline(10, "C to leave") { await probe.waitFor("left C") }
            #expect(report[first].outcome == .succeeded)
            #expect(report[second].outcome == .succeeded)
            #expect(report[third].outcome == .cancelled)
            #expect(report[fourth].outcome == .cancelled)
            #expect(report[fourth].start == nil)
            #expect(probe.count("start D") == 0)
        }

        @Test("each node of a chain on one task has its own start and end, in order, none before its prerequisite")
        func chainedNodesReportTheirOwnTimes() async throws {
            let probe = Probe()
            let tasks = TaskLog()
            let store = makeStore(probe: probe)
            let firstGate = Latch()
            var graph = Graph()
            var nodes = [graph.run(Step(name: "A", probe: probe, tasks: tasks, gate: firstGate))]
            for name in ["B", "C", "D"] {
                nodes.append(graph.run(Step(name: name, probe: probe, tasks: tasks), after: nodes[nodes.count - 1]))
            }
            let run = store.dispatch(graph)
            try await withDeadline(10, "A to start") { await probe.waitFor("start A") }
            firstGate.open()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(tasks.task(of: "D") == tasks.task(of: "A"))
            for node in nodes { #expect(report[node].outcome == .succeeded) }
            for (before, after) in zip(nodes, nodes.dropFirst()) {
                let end = try #require(report[before].end)
                let start = try #require(report[after].start)
                #expect(end <= start, "node #\(after.index) started before node #\(before.index) ended")
            }
        }

        @Test("a node run on the reused task sees the task-local values bound around the dispatch, as a new task would")
        func chainedNodesSeeTheDispatchersTaskLocals() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let firstGate = Latch()
            var graph = Graph()
            let first = graph.run(ReadRequestID(name: "A", probe: probe, gate: firstGate))
            let second = graph.run(ReadRequestID(name: "B", probe: probe, gate: nil), after: first)
            graph.run(ReadRequestID(name: "C", probe: probe, gate: nil), after: second)
            let run = RequestContext.$id.withValue("r-42") { store.dispatch(graph) }
            try await withDeadline(10, "A to start") { await probe.waitFor("A sees r-42") }
            firstGate.open()
            _ = try await withDeadline(10, "the run") { await run.wait() }

            #expect(probe.log == ["A sees r-42", "B sees r-42", "C sees r-42"])
        }
    }

    /// A task-local value an app binds around a dispatch (a request id, a logger).
    enum RequestContext {
        @TaskLocal static var id = "none"
    }

    /// An async node that records the request id its call sees.
    struct ReadRequestID: AsyncAction {
        typealias State = AppState
        let name: String
        let probe: Probe
        let gate: Latch?

        func run(_ context: ActionContext<AppState>) async throws -> Int {
            probe.record("\(name) sees \(RequestContext.id)")
            if let gate { await gate.wait() }
            return 1
        }
    }

    /// An async node that records, on the probe, `start`, `cancelled` (seen through its task's
    /// cancellation while it waits for `gate`) and `left`, and in `tasks` the task that ran it.
    struct Step: AsyncAction {
        typealias State = AppState

        let name: String
        let probe: Probe
        let tasks: TaskLog
        var gate: Latch?

        func run(_ context: ActionContext<AppState>) async throws -> Int {
            tasks.record(name)
            probe.record("start \(name)")
            defer { probe.record("left \(name)") }
            if let gate {
                try await withTaskCancellationHandler {
                    try await gate.waitUnlessCancelled()
                } onCancel: {
                    probe.record("cancelled \(name)")
                }
            }
            return 1
        }
    }

    /// Which task ran each step, by name.
    final class TaskLog: @unchecked Sendable {
        // @unchecked: `tasks` is read and written only under `lock`.
        private let lock = NSLock()
        private var tasks: [String: Int] = [:]

        func record(_ name: String) {
            let task = withUnsafeCurrentTask { $0?.hashValue }
            lock.lock()
            tasks[name] = task
            lock.unlock()
        }

        func task(of name: String) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            return tasks[name]
        }
    }
}
