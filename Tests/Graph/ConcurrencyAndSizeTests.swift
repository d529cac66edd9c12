import Dispatch
import Foundation
import OresRedux
import Testing

extension GraphStories {
    /// Semantics 9: graphs may be dispatched from any thread or task at once.
    @Suite("Threads")
    struct Threads {
        @Test("200 graphs dispatched at once from 200 tasks into one store: every run finishes, the total is exact")
        func manyGraphsFromManyTasks() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let clients = 200

            let reports = try await withDeadline(30, "\(clients) clients' runs") {
                await withTaskGroup(of: GraphReport.self) { group in
                    for client in 0..<clients {
                        group.addTask {
                            var graph = Graph()
                            let opened = graph.send(Add(1))
                            let fetched = graph.run(call("Fetch\(client)", probe, answering: client), after: opened)
                            graph.send(after: fetched) { value in Add(value) }
                            let broken = graph.run(failing("Broken\(client)", probe, as: Int.self), after: opened)
                            graph.send(after: broken) { value in Add(value + 1_000_000) }
                            graph.setFallback(for: broken) { _ in Add(10) }
                            return await store.dispatch(graph).wait()
                        }
                        // Direct dispatches from other tasks at the same time.
                        group.addTask {
                            store.dispatch(Add(100))
                            return await store.dispatch(Graph()).wait()
                        }
                    }
                    var reports: [GraphReport] = []
                    for await report in group { reports.append(report) }
                    return reports
                }
            }

            let graphReports = reports.filter { !$0.isEmpty }
            #expect(graphReports.count == clients)
            for report in graphReports {
                #expect(report.map(\.outcome) == [.succeeded, .succeeded, .succeeded, .failed, .skipped])
            }
            let expected = clients * (1 + 10 + 100) + (0..<clients).reduce(0, +)
            #expect(store.state.total == expected)
            #expect(store.state.applied.count == clients * 4)
            for client in 0..<clients {
                #expect(probe.count("start Fetch\(client)") == 1)
                #expect(probe.count("start Broken\(client)") == 1)
            }
        }

        @Test("graphs dispatched from plain threads at once all finish, each node applied once")
        func graphsFromThreads() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let runs = Box<[GraphRun<AppState>]>([])
            let lock = NSLock()
            // 64 plain threads, not `concurrentPerform`: that would block this test's pool thread
            // until every iteration returned.
            await onThreads(64) { _ in
                var graph = Graph()
                var previous = graph.send(Add(1))
                for _ in 0..<20 {
                    let fetched = graph.run(call("Fetch", probe, answering: 1), after: previous)
                    previous = graph.send(after: fetched) { value in Add(value) }
                }
                let run = store.dispatch(graph)
                lock.lock()
                runs.value!.append(run)
                lock.unlock()
            }
            for run in runs.value! {
                let report = try await withDeadline { await run.wait() }
                #expect(report.count(of: .succeeded) == 41)
            }
            #expect(store.state.total == 64 * 21)
            #expect(probe.count("start Fetch") == 64 * 20)
            #expect(probe.count("mw Add(1)") == 64 * 21)
        }
    }

    /// Every walk over the graph is a loop: huge graphs build, run and are released without recursion.
    ///
    /// A 100,000-node graph is built and its sync nodes applied on a plain thread (``onThread(_:)``):
    /// that is seconds of work under ThreadSanitizer, and on a pool thread it would starve the tests
    /// beside it. `dispatch` applies ready sync nodes on the thread that calls it, so the thread is
    /// the one that walks the chain, as an app's thread would.
    @Suite("Size")
    struct Size {
        static let largeEnabled = ProcessInfo.processInfo.environment["ORESREDUX_LARGE"] == "1"

        static func chain(_ length: Int) -> Graph {
            var graph = Graph()
            var previous = graph.send(Add(1))
            for _ in 1..<length { previous = graph.send(Add(1), after: previous) }
            return graph
        }

        @Test("a 100,000-node sync chain is built, run and released")
        func hundredThousandNodeChain() async throws {
            let store = Store(initialState: AppState(), reducer: .on(Add.self) { $0.total += $1.amount })
            var run: GraphRun<AppState>? = await onThread { store.dispatch(Self.chain(100_000)) }
            let report = try await withDeadline(60, "the 100,000-node chain") { [run] in await run!.wait() }
            #expect(report.count(of: .succeeded) == 100_000)
            #expect(report[99_999].prerequisites == [99_998])
            #expect(store.state.total == 100_000)
            run = nil
        }

        @Test("a failure at the head of a 100,000-node chain skips the rest; cancelling another cancels the rest")
        func hundredThousandNodeChainFailsAndCancels() async throws {
            let probe = Probe()
            let store = Store(initialState: AppState(), reducer: .on(Add.self) { $0.total += $1.amount })

            let failingRun = await onThread {
                var failing = Graph()
                var previous: any GraphNode = failing.run(GraphStories.failing("Head", probe))
                for _ in 1..<100_000 { previous = failing.send(Add(1), after: previous) }
                return store.dispatch(failing)
            }
            let failed = try await withDeadline(60, "the failing 100,000-node chain") { await failingRun.wait() }
            #expect(failed.count(of: .skipped) == 99_999)

            let run = await onThread {
                var gated = Graph()
                var previous: any GraphNode = gated.run(call("Head", probe, answering: 0, gate: Latch()))
                for _ in 1..<100_000 { previous = gated.send(Add(1), after: previous) }
                let run = store.dispatch(gated)
                run.cancel()
                return run
            }
            let cancelled = try await withDeadline(60, "the cancelled 100,000-node chain") { await run.wait() }
            #expect(cancelled.count(of: .cancelled) == 100_000)
            #expect(store.state.total == 0)
        }

        @Test(
            "a graph built after reserveCapacity is the same graph, whenever the room is reserved and whatever the mix of nodes"
        )
        func reservingRoomChangesNothingButAllocation() async throws {
            func build(reserving: (nodes: Int, prerequisites: Int)?, reserveAfter: Int) -> Graph {
                var graph = Graph()
                var previous: Node<Void>? = nil
                for index in 0..<60 {
                    if index == reserveAfter, let reserving {
                        graph.reserveCapacity(nodes: reserving.nodes, prerequisites: reserving.prerequisites)
                    }
                    let after: [any GraphNode] = previous.map { [$0] } ?? []
                    switch index % 3 {
                    case 0: previous = graph.send(Add(index), after: after)
                    case 1: previous = graph.delay(.zero, after: after)
                    default:
                        guard let last = previous else { continue }
                        previous = graph.send(after: last) { (_: Void) in Add(index) }
                    }
                }
                return graph
            }
            let plain = build(reserving: nil, reserveAfter: 0)
            let variants = [
                build(reserving: (60, 60), reserveAfter: 0),  // before anything
                build(reserving: (60, 60), reserveAfter: 7),  // once both kinds exist
                build(reserving: (10, 0), reserveAfter: 0),  // too little: grows as usual
                build(reserving: (10_000, 10_000), reserveAfter: 3),  // far too much
                build(reserving: (-5, -1), reserveAfter: 2),  // nothing: not an error
            ]
            let store = Store(initialState: AppState(), reducer: reducer)
            let expected = try await withDeadline { await store.dispatch(plain).wait() }
            for graph in variants {
                #expect(graph.count == plain.count)
                let report = try await withDeadline { await store.dispatch(graph).wait() }
                #expect(report.map(\.label) == expected.map(\.label))
                #expect(report.map(\.prerequisites) == expected.map(\.prerequisites))
                #expect(report.count(of: .succeeded) == plain.count)
            }
            #expect(store.state.applied.count == 6 * 40)

            // Reserving room in a copy leaves the original alone.
            let original = plain
            var copy = plain
            copy.reserveCapacity(nodes: 1_000)
            copy.send(Note("copy only"))
            #expect(original.count == 60 && copy.count == 61)
        }

        @Test(
            "a 1,000,000-node sync chain is built, run and released (ORESREDUX_LARGE=1)",
            .enabled(if: Size.largeEnabled, "set ORESREDUX_LARGE=1 to run"))
        func millionNodeChain() async throws {
            let store = Store(initialState: AppState(), reducer: .on(Add.self) { $0.total += $1.amount })
            var graph: Graph? = Self.chain(1_000_000)
            var run: GraphRun<AppState>? = store.dispatch(graph!)
            let report = try await withDeadline(300, "the 1,000,000-node chain") { [run] in await run!.wait() }
            #expect(report.count(of: .succeeded) == 1_000_000)
            #expect(store.state.total == 1_000_000)
            run = nil
            graph = nil
        }
    }
}
