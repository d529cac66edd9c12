import OresRedux
import Testing

extension GraphStories {
    /// How the executor gets its speed, checked for the semantics it must keep: sync nodes go to the
    /// reducer in batches when nothing observes the store, and an async node's task goes on with the
    /// async node it releases.
    @Suite("Executor lanes")
    struct ExecutorLanes {
        /// A root, `width` sync nodes ready together after it (more than one batch), and a sink.
        static func fan(width: Int) -> Graph {
            var graph = Graph()
            let root = graph.send(Note("root"))
            let middle = (0..<width).map { graph.send(Add($0), after: root) }
            graph.send(Note("sink"), after: middle)
            return graph
        }

        static func expectedOrder(width: Int) -> [String] {
            ["root"] + (0..<width).map { "Add(\($0))" } + ["sink"]
        }

        @Test("300 sync nodes ready together reach the reducer in insertion order, with or without observers")
        func batchesKeepInsertionOrder() async throws {
            let width = 300
            let plain = Store(initialState: AppState(), reducer: reducer)
            let watched = Store(initialState: AppState(), reducer: reducer)
            let seen = CoreStore.Locked<[String]>([])
            let subscription = watched.subscribe { state in seen.withLock { $0 = state.applied } }
            let probe = Probe()
            let withMiddleware = makeStore(probe: probe)

            for store in [plain, watched, withMiddleware] {
                let report = try await withDeadline { await store.dispatch(Self.fan(width: width)).wait() }
                #expect(report.count(of: .succeeded) == width + 2)
                #expect(store.state.applied == Self.expectedOrder(width: width))
                #expect(store.state.total == (0..<width).reduce(0, +))
            }
            #expect(seen.withLock { $0 } == Self.expectedOrder(width: width))
            subscription.cancel()
        }

        @Test(
            "sync actions known at build time and sync actions built from responses keep insertion order in one batch")
        func builtAndKnownActionsShareTheBatchInOrder() async throws {
            // The store keeps the two kinds of sync node in different places; the order they reach
            // the reducer in must not show it.
            let probe = Probe()
            var graph = Graph()
            let amount = graph.run(call("Amount", probe, answering: 5))
            var expected: [String] = []
            for index in 0..<200 {
                if index % 3 == 0 {
                    graph.send(after: amount) { amount in Add(amount + index) }
                    expected.append("Add(\(5 + index))")
                } else {
                    graph.send(Note("known \(index)"), after: amount)
                    expected.append("known \(index)")
                }
            }
            for store in [Store(initialState: AppState(), reducer: reducer), makeStore(probe: probe)] {
                let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }
                #expect(report.count(of: .succeeded) == 201)
                #expect(store.state.applied == expected)
                #expect(report.dropFirst().allSatisfy { $0.kind == .sync })
                #expect(report.first?.kind == .async)
                #expect(report[1].label == "Add" && report[2].label == "Note")
            }
        }

        @Test("every sync node of a batch reports a start and an end that bound its application, in order")
        func batchTimesBoundEachNode() async throws {
            let width = 300
            let store = Store(initialState: AppState(), reducer: reducer)
            let report = try await withDeadline { await store.dispatch(Self.fan(width: width)).wait() }
            var previousStart = Duration.zero
            for entry in report {
                guard let start = entry.start, let end = entry.end else {
                    Issue.record("node #\(entry.index) has no start or end")
                    continue
                }
                #expect(start <= end, "node #\(entry.index)")
                #expect(start >= previousStart, "node #\(entry.index) started before the node applied before it")
                previousStart = start
            }
            #expect(report.duration != nil)
        }

        @Test("a dispatch from a subscriber goes before the run's next ready node")
        func subscriberDispatchIsNotOvertakenByTheBatch() async throws {
            let store = Store(initialState: AppState(), reducer: reducer)
            let subscription = store.subscribe { state in
                if state.applied.last == "Add(0)" { store.dispatch(Note("from subscriber")) }
            }
            _ = try await withDeadline { await store.dispatch(Self.fan(width: 3)).wait() }
            #expect(store.state.applied == ["root", "Add(0)", "from subscriber", "Add(1)", "Add(2)", "sink"])
            subscription.cancel()
        }

        @Test("cancelling while the second node of an async chain runs cancels that node's task")
        func cancelReachesAChainedNodeOnItsPredecessorsTask() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let first = graph.run(call("First", probe, answering: 1))
            let second = graph.run(hanging("Second", probe), after: first)
            let third = graph.run(call("Third", probe, answering: 3), after: second)
            let run = store.dispatch(graph)
            try await withDeadline(10, "start Second") { await probe.waitFor("start Second") }

            run.cancel()
            let report = try await withDeadline { await run.wait() }

            try await withDeadline(10, "cancelled Second") { await probe.waitFor("cancelled Second") }
            #expect(report[first].outcome == .succeeded)
            #expect(report[second].outcome == .cancelled)
            #expect(report[third].outcome == .cancelled)
            #expect(probe.count("start Third") == 0)
        }

        @Test("when value(of:) of an async node returns, the sync node it released is already applied")
        func releasedSyncNodeIsAppliedBeforeAwaitersResume() async throws {
            for _ in 0..<50 {
                let probe = Probe()
                let store = makeStore(probe: probe)
                var graph = Graph()
                let logIn = graph.run(call("LogIn", probe, answering: 5))
                graph.send(after: logIn) { value in Add(value) }
                let run = store.dispatch(graph)
                _ = try await withDeadline(10, "the value of logIn") { try await run.value(of: logIn) }
                #expect(store.state.total == 5)
                run.cancel()
            }
        }

        @Test("a node released by an async node that was cancelled meanwhile never starts")
        func noChainedStartAfterCancel() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let first = graph.run(Call(name: "First", probe: probe, gate: gate, ignoresCancellation: true) { _ in 1 })
            let second = graph.run(call("Second", probe, answering: 2), after: first)
            let run = store.dispatch(graph)
            try await withDeadline(10, "start First") { await probe.waitFor("start First") }

            run.cancel()
            gate.open()
            try await withDeadline(10, "end First") { await probe.waitFor("end First") }
            let report = try await withDeadline { await run.wait() }

            #expect(report[first].outcome == .cancelled)
            #expect(report[second].outcome == .cancelled)
            #expect(probe.count("start Second") == 0)
        }

        @Test("200 async nodes released together all run at once: none waits for another's task")
        func releasedAsyncNodesRunConcurrently() async throws {
            let width = 200
            let probe = Probe()
            let store = makeStore(probe: probe)
            let allStarted = Latch()
            var graph = Graph()
            let root = graph.run(call("Root", probe, answering: 0))
            let middle = (0..<width).map { index in
                graph.run(Call(name: "Middle", probe: probe, gate: allStarted) { _ in index }, after: root)
            }
            let sink = graph.send(Note("sink"), after: middle)
            let run = store.dispatch(graph)

            // Each middle node waits for the gate, which opens only once all of them have started:
            // were any two run one after the other on one task, this would never happen.
            // A deadline that counts only time the pool was running (not a wall-clock time limit):
            // a loaded machine makes this slow, never fails it; nodes that wait for each other do.
            try await withDeadline(30, "all \(width) middle nodes to start") {
                await probe.waitFor("start Middle", count: width)
            }
            allStarted.open()
            let report = try await withDeadline(30, "the run") { await run.wait() }

            #expect(report.count(of: .succeeded) == width + 2)
            #expect(report[sink].outcome == .succeeded)
            for (index, node) in middle.enumerated() {
                #expect(
                    try await withDeadline(10, "the outcome of node") { await run.outcome(of: node) }.value == index)
            }
        }
    }
}
