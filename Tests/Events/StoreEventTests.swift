import Foundation
import OresRedux
import Testing

extension GraphStories {
    /// Every event an observer was given, in order, from any thread.
    final class EventLog: @unchecked Sendable {
        // @unchecked: `events` is read and written only under `lock` (NSLock, which ThreadSanitizer sees).
        private let lock = NSLock()
        private var events: [StoreEvent] = []

        func record(_ event: StoreEvent) {
            lock.lock()
            events.append(event)
            lock.unlock()
        }

        var all: [StoreEvent] {
            lock.lock()
            defer { lock.unlock() }
            return events
        }

        var lines: [String] { all.map(\.description) }

        /// The events of run `id`, in order.
        func events(ofRun id: StoreEvent.ID) -> [StoreEvent] {
            all.filter { $0.runID == id }
        }
    }

    /// Run and async-action events, through a real store: what they tell, in which order, on which
    /// thread, and that observers cannot hang or break a run.
    @Suite("Store events")
    struct StoreEventStories {
        static func observedStore(
            _ probe: Probe, _ log: EventLog, middleware: [Middleware<AppState>] = []
        ) -> Store<AppState> {
            var options = StoreOptions()
            options.onEvent = { log.record($0) }
            return Store(initialState: AppState(), reducer: reducer, middleware: middleware, options: options)
        }

        @Test("a failed graph tells its whole story, started first and finished last, before wait() returns")
        func failedGraphTellsItsStory() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            let answer = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: answer))
            let feed = graph.run(after: token) { _ in failing("FetchFeed", probe, as: [Post].self) }
            graph.setLabel("feed", for: feed)
            graph.send(after: feed) { ShowHome(profile: Profile(name: "ada"), feed: $0) }
            graph.send(Note("spinner"))

            let run = store.dispatch(graph)
            answer.open()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            // No waiting for the log: wait() returned after the last event was delivered. The run's
            // start comes first and its end last; inside, each branch tells its story in order. The
            // two roots' stories interleave as threads go: the start of the async root against the
            // sync root is not ordered (The Store guide, "What is not ordered").
            let lines = log.lines
            #expect(lines.first == "run #1 started: 4 nodes")
            #expect(lines.last == "run #1 finished: \(report.summary)")
            #expect(lines.count == 9)
            #expect(
                lines.filter { $0.hasPrefix("run #1 node 3 ") } == [
                    "run #1 node 3 Note started, attempt 1",
                    "run #1 node 3 Note succeeded",
                ])
            #expect(
                lines.filter { !$0.hasPrefix("run #1 node 3 ") && $0.hasPrefix("run #1 node ") } == [
                    "run #1 node 0 Call<String> started, attempt 1",
                    "run #1 node 0 Call<String> succeeded",
                    "run #1 node 1 feed started, attempt 1",
                    "run #1 node 1 feed failed: Failure(FetchFeed)",
                    "run #1 node 2 ShowHome skipped",
                ])
            let chain = log.all.filter {
                switch $0 {
                case .nodeStarted(_, let node): node.index != 3
                case .nodeFinished(_, let node): node.index != 3
                default: false
                }
            }
            guard chain.count == 5, case .nodeFinished(let run, let node) = chain[3] else {
                Issue.record("expected the feed's end, got \(chain)")
                return
            }
            #expect(run.nodeCount == 4)
            #expect(node.kind == .async)
            #expect(node.outcome.error as? Failure == Failure("FetchFeed"))
            guard case .nodeFinished(_, let logIn) = chain[1] else { return }
            guard case .nodeStarted(_, let feedStart) = chain[2] else { return }
            #expect(feedStart.kind == .async && feedStart.attempt == 1 && feedStart.backoff == .zero)
            #expect(feedStart.time >= report[0].end!, "a node starts after its prerequisite ended")
            #expect(logIn.outcome.value as? String == "ada", "a node's event carries its response")
            guard case .runFinished(_, let finished) = log.all.last else { return }
            #expect(finished.count(of: .failed) == 1)
            #expect(finished.summary == report.summary)
        }

        @Test("outcome(of:) returns after that node's event was delivered")
        func outcomeAfterItsEvent() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada"))
            graph.run(call("Hang", probe, answering: 0, gate: Latch()))
            let run = store.dispatch(graph)
            _ = try await withDeadline(10, "LogIn") { try await run.value(of: token) }
            #expect(log.lines.contains("run #1 node 0 Call<String> succeeded"))
            run.cancel()
            _ = try await withDeadline(10, "the run") { await run.wait() }
        }

        @Test("observers run outside the pipeline: a sync node's event sees a dispatch applied at once")
        func observersRunOutsideThePipeline() async throws {
            let log = EventLog()
            let checks = Probe()
            final class Box: @unchecked Sendable {
                // @unchecked: `store` is set once, before the graph that reads it is dispatched.
                var store: Store<AppState>?
            }
            let box = Box()
            var options = StoreOptions()
            options.onEvent = { event in
                log.record(event)
                guard case .nodeFinished(_, let node) = event, node.label == "Note", let store = box.store else {
                    return
                }
                // Inside the pipeline this dispatch would only be queued; outside, it is applied now.
                store.dispatch(Note("seen \(node.index)"))
                checks.record(store.state.applied.last == "seen \(node.index)" ? "applied at once" : "queued")
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            box.store = store
            var graph = Graph()
            let first = graph.send(Note("first"))
            graph.send(Note("second"), after: first)

            let run = store.dispatch(graph)
            _ = try await withDeadline(10, "the run") { await run.wait() }

            #expect(checks.log == ["applied at once", "applied at once"])
            #expect(store.state.applied == ["first", "second", "seen 0", "seen 1"])
            box.store = nil
        }

        @Test("observers run outside the run's lock: reading the run from an observer never deadlocks")
        func observersRunOutsideTheRunsLock() async throws {
            let probe = Probe()
            let box = CoreStore.Locked<GraphRun<AppState>?>(nil)
            let seen = CoreStore.Recorder<String>()
            var options = StoreOptions()
            options.onEvent = { event in
                guard let run = box.current, case .nodeFinished = event else { return }
                seen.record("\(run.report.count(of: .succeeded)) succeeded so far")
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            let gate = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: gate))
            graph.send(after: token) { Note("signed in \($0)") }
            let run = store.dispatch(graph)
            box.withLock { $0 = run }
            gate.open()
            _ = try await withDeadline(10, "the run") { await run.wait() }

            // Each event is delivered after it happened, so the count read may already be further on.
            #expect(seen.values.count == 2)
            #expect(seen.values.last == "2 succeeded so far")
        }

        @Test("an observer that dispatches, on every event, cannot hang or break a run")
        func observerThatDispatches() async throws {
            let probe = Probe()
            let log = EventLog()
            final class Box: @unchecked Sendable {
                // @unchecked: `store` is set once, before the graph that reads it is dispatched.
                var store: Store<AppState>?
            }
            let box = Box()
            let second = CoreStore.Locked<GraphRun<AppState>?>(nil)
            var options = StoreOptions()
            options.onEvent = { event in
                log.record(event)
                guard let store = box.store else { return }
                store.dispatch(Add(1))
                if case .runStarted(let run) = event, run.id == StoreEvent.ID(rawValue: 1) {
                    var more = Graph()
                    more.send(Note("from an observer"))
                    let started = store.dispatch(more)  // a second run, dispatched while the first is reported
                    second.withLock { $0 = started }
                }
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            box.store = store
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada"))
            let feed = graph.run(after: token) { _ in failing("FetchFeed", probe, as: Int.self) }
            graph.setFallback(for: feed) { _ in Note("could not load") }
            graph.send(Note("spinner"))

            let run = store.dispatch(graph)
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(report.count(of: .failed) == 1)
            #expect(store.state.applied.contains("could not load"))
            #expect(log.events(ofRun: StoreEvent.ID(rawValue: 1)).count == 8, "start, 3 starts, 3 ends, finish")
            let other = try #require(second.current)
            _ = try await withDeadline(10, "the observer's run") { await other.wait() }
            #expect(log.events(ofRun: StoreEvent.ID(rawValue: 2)).map(\.description).first == "run #2 started: 1 nodes")
            #expect(store.state.applied.contains("from an observer"))
            #expect(store.state.total == log.all.count, "one Add per event, each applied")
            box.store = nil
        }

        @Test("an observer that cancels the run when a node fails: the run ends, cancel action and all")
        func observerThatCancels() async throws {
            let probe = Probe()
            let log = EventLog()
            let box = CoreStore.Locked<GraphRun<AppState>?>(nil)
            var options = StoreOptions()
            options.onEvent = { event in
                log.record(event)
                guard case .nodeFinished(_, let node) = event, node.outcome.kind == .failed else { return }
                box.current?.cancel()
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            let gate = Latch()
            var graph = Graph()
            let broken = graph.run(failing("Broken", probe, gate: gate))
            let hanging = graph.run(hanging("Hang", probe))
            graph.setCancelAction(Note("stop spinner"))
            let run = store.dispatch(graph)
            box.withLock { $0 = run }
            gate.open()

            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(report[broken].outcome == .failed)
            #expect(report[hanging].outcome == .cancelled)
            #expect(store.state.applied == ["stop spinner"])
            // Broken starts; Hang may be cancelled before its task calls it. Each start comes before its end.
            #expect(log.lines.contains("run #1 node 0 Call<Int> started, attempt 1"))
            #expect(
                log.lines.filter { !$0.hasSuffix("started, attempt 1") } == [
                    "run #1 started: 2 nodes",
                    "run #1 node 0 Call<Int> failed: Failure(Broken)",
                    "run #1 node 1 Call<Int> cancelled",
                    "run #1 finished: \(report.summary)",
                ])
        }

        @Test("a subscriber that cancels a run: its events wait until the pipeline is left, then come in order")
        func subscriberThatCancels() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            var graph = Graph()
            graph.run(hanging("Hang", probe))
            let run = store.dispatch(graph)
            let subscription = store.subscribe { state in
                if state.applied.last == "leave" { run.cancel() }
            }
            try await withDeadline(10, "Hang to start") { await probe.waitFor("start Hang") }
            store.dispatch(Note("leave"))
            // Delivered when the dispatch left the pipeline, on this thread, before it returned.
            #expect(log.lines.last?.hasPrefix("run #1 finished:") == true)
            _ = try await withDeadline(10, "the run") { await run.wait() }
            #expect(log.lines.count == 4, "started, Hang started, Hang cancelled, finished")
            subscription.cancel()
        }

        @Test("many runs at once from many tasks: one event at a time, each run's story in order")
        func manyRunsAtOnce() async throws {
            let probe = Probe()
            let log = EventLog()
            let overlaps = Probe()
            let inside = NSLock()
            var options = StoreOptions()
            options.onEvent = { event in
                if !inside.try() { overlaps.record("overlap") } else { inside.unlock() }
                inside.lock()
                log.record(event)
                inside.unlock()
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            let reports = try await withDeadline(30, "40 runs") {
                await withTaskGroup(of: GraphReport.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            var graph = Graph()
                            let a = graph.run(call("A\(index)", probe, answering: index))
                            let b = graph.send(after: a) { Add($0) }
                            let c = graph.run(call("C\(index)", probe, answering: 1), after: b)
                            if index % 3 == 0 {
                                graph.run(after: c) { _ in failing("D\(index)", probe) }
                            } else {
                                graph.send(after: c) { Add($0) }
                            }
                            return await store.dispatch(graph).wait()
                        }
                    }
                    return await group.reduce(into: [GraphReport]()) { $0.append($1) }
                }
            }
            #expect(reports.count == 40)
            #expect(overlaps.count("overlap") == 0, "observers were called for two events at once")
            let ids = Set(log.all.compactMap(\.runID))
            #expect(ids.count == 40)
            for id in ids {
                let story = log.events(ofRun: id)
                #expect(story.first?.isRunStarted == true, "run \(id)")
                #expect(story.last?.isRunFinished == true, "run \(id)")
                let ended = story.compactMap(\.endedNode)
                #expect(ended.count == 4, "run \(id)")
                #expect(ended == ended.sorted(), "run \(id): a chain ends in order")
            }
        }

        @Test("an async action: started, then succeeded with its response, before value returns")
        func asyncActionSucceeds() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            let value = try await withDeadline(10, "the action") {
                try await store.dispatch(call("FetchAvatar", probe, answering: "ada.png")).value
            }
            #expect(value == "ada.png")
            #expect(
                log.lines == [
                    #"async #1 started: Call<String>(name: "FetchAvatar", probe: OresReduxTests.GraphStories.Probe, gate: nil, ignoresCancellation: false, answer: (Function))"#,
                    "async #1 Call<String> succeeded",
                ])
            guard case .actionFinished(let info, .succeeded(let response)) = log.all.last else {
                Issue.record("expected a success, got \(log.lines)")
                return
            }
            #expect(response as? String == "ada.png")
            #expect((info.action as? Call<String>)?.name == "FetchAvatar")
        }

        @Test("an async action that throws reports failed with its error; one cancelled reports cancelled")
        func asyncActionFailsOrIsCancelled() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            await #expect(throws: Failure("Broken")) {
                try await withDeadline(10, "the failing action") {
                    try await store.dispatch(failing("Broken", probe)).value
                }
            }
            #expect(log.lines.last == "async #1 Call<Int> failed: Failure(Broken)")

            let task = store.dispatch(hanging("Hang", probe))
            try await withDeadline(10, "Hang to start") { await probe.waitFor("start Hang") }
            task.cancel()
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the cancelled action") { try await task.value }
            }
            #expect(log.lines.last == "async #2 Call<Int> cancelled")
        }

        @Test("an async action under an id: reported like any other; one replaced by a newer reports cancelled")
        func asyncActionUnderAnID() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            let first = store.dispatch(hanging("Search", probe), id: "search")
            try await withDeadline(10, "the first search to start") { await probe.waitFor("start Search") }
            let second = store.dispatch(call("Search", probe, answering: "found"), id: "search")
            let found = try await withDeadline(10, "the second search") { try await second.value }
            #expect(found == "found")
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the replaced search") { try await first.value }
            }
            let ends = log.lines.filter { !$0.contains("started") }.sorted()
            #expect(log.lines.filter { $0.contains("started") }.count == 2, "\(log.lines)")
            #expect(ends == ["async #1 Call<Int> cancelled", "async #2 Call<String> succeeded"], "\(log.lines)")
        }

        @Test("a scoped store's async action is reported by the root store")
        func scopedAsyncAction() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            let child = store.scope(\.applied)
            struct ChildCall: AsyncAction {
                func run(_ context: ActionContext<[String]>) async throws -> Int { 7 }
            }
            let value = try await withDeadline(10, "the child's action") { try await child.dispatch(ChildCall()).value }
            #expect(value == 7)
            #expect(log.lines.last == "async #1 ChildCall succeeded", "\(log.lines)")
        }

        @Test("a keyed action that joins a call in flight reports nothing of its own")
        func keyedJoinReportsOnce() async throws {
            let probe = Probe()
            let log = EventLog()
            let store = Self.observedStore(probe, log)
            let gate = Latch()
            let first = store.dispatch(FetchFeed(userID: 7, probe: probe, gate: gate))
            let second = store.dispatch(FetchFeed(userID: 7, probe: probe, gate: gate))
            gate.open()
            _ = try await withDeadline(10, "the call") { try await (first.value, second.value) }
            #expect(log.lines.count == 2)
            #expect(log.lines.last == "async #1 FetchFeed succeeded")
        }

        @Test("observeEvents: work dispatched before is not reported; cancel stops it; releasing the store ends it")
        func observeEventsLifetime() async throws {
            let probe = Probe()
            let log = EventLog()
            var store: Store<AppState>? = makeStore(probe: probe)
            let before = try #require(store?.dispatch(call("Before", probe, answering: 0, gate: Latch())))
            let subscription = try #require(store?.observeEvents { log.record($0) })
            before.cancel()
            _ = try? await withDeadline(10, "Before") { try await before.value }
            #expect(log.all.isEmpty, "dispatched before anyone observed")

            var one = Graph()
            one.send(Note("one"))
            let graph = one
            let run = try #require(store?.dispatch(graph))
            _ = try await withDeadline(10, "the run") { await run.wait() }
            #expect(log.all.count == 4, "started, the node's start and end, finished")

            let other = EventLog()
            let ended = try #require(store?.observeEvents { other.record($0) })
            ended.cancel()
            let again = try #require(store?.dispatch(graph))
            _ = try await withDeadline(10, "the run") { await again.wait() }
            #expect(other.all.isEmpty)
            #expect(log.all.count == 8)

            store = nil
            #expect(subscription.isCancelled, "releasing the store ends the subscription")
        }

        @Test("StoreEvent.logger writes one line per event, control characters escaped; Middleware.logger as before")
        func loggerLines() async throws {
            let lines = Probe()
            var options = StoreOptions()
            options.onEvent = StoreEvent.logger { lines.record($0) }
            let store = Store(
                initialState: AppState(), reducer: reducer, middleware: [.logger { lines.record($0) }],
                options: options)
            var graph = Graph()
            let note = graph.send(Note("hi"))
            graph.setLabel("two\nlines", for: note)
            let run = store.dispatch(graph)
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(
                lines.log == [
                    "run #1 started: 1 nodes",
                    "action: hi",
                    "state: \(store.state)",
                    "run #1 node 0 two\\nlines started, attempt 1",
                    "run #1 node 0 two\\nlines succeeded",
                    "run #1 finished: \(report.summary)",
                ])
        }

        @Test("no observer: nothing is recorded, and a run behaves as before")
        func noObserver() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada"))
            graph.send(after: token) { Note("signed in \($0)") }
            let run = store.dispatch(graph)
            let report = try await withDeadline(10, "the run") { await run.wait() }
            #expect(report.count(of: .succeeded) == 2)
        }

        @Test("a refused run (dispatched from a reducer) still tells a whole story: started, cancelled, finished")
        func refusedRunStory() async throws {
            let log = EventLog()
            final class Box: @unchecked Sendable {
                // @unchecked: `store` is set once before the only dispatch that reads it, and cleared after.
                var store: Store<AppState>?
            }
            let box = Box()
            var refused = Graph()
            refused.send(Note("never"))
            let graph = refused
            var options = StoreOptions(onDiagnostic: { _ in })
            options.onEvent = { log.record($0) }
            let store = Store(
                initialState: AppState(),
                reducer: Reducer { state, action in
                    reducer(&state, action)
                    if (action as? Note)?.text == "go" { box.store?.dispatch(graph) }
                }, options: options)
            box.store = store
            store.dispatch(Note("go"))
            box.store = nil
            #expect(
                log.lines.map { $0.prefix(20) } == [
                    "run #1 started: 1 no", "run #1 node 0 Note c", "run #1 finished: 1 n",
                ])
        }
    }
}

extension StoreEvent {
    /// The run an event belongs to, if any.
    var runID: StoreEvent.ID? {
        switch self {
        case .runStarted(let run), .nodeStarted(let run, _), .nodeFinished(let run, _), .runFinished(let run, _): run.id
        case .actionStarted, .actionFinished: nil
        }
    }

    var isRunStarted: Bool {
        if case .runStarted = self { return true }
        return false
    }

    var isRunFinished: Bool {
        if case .runFinished = self { return true }
        return false
    }

    var endedNode: Int? {
        if case .nodeFinished(_, let node) = self { return node.index }
        return nil
    }
}
