import Foundation
import OresRedux
import Testing

extension GraphStories {
    /// A graph's cancel action (`setCancelAction`), through a real store: "stop the spinner" is sent
    /// once when the run is cancelled, through middleware, reducer and subscribers, and `wait()`
    /// returns after it; never when the run finished first, never twice.
    @Suite("Cancel action")
    struct CancelActionStories {
        static let stop = Note("stop spinner")

        /// Start the spinner, log in (held by `gate`, never answered unless opened), then show the
        /// profile; the graph stops the spinner when cancelled.
        static func spinnerGraph(_ probe: Probe, gate: Latch = Latch()) -> (Graph, Node<String>, Node<Void>) {
            var graph = Graph()
            let spinner = graph.send(Note("start spinner"))
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: gate), after: spinner)
            let shown = graph.send(after: token) { token in Note("signed in \(token)") }
            graph.setCancelAction(stop)
            return (graph, token, shown)
        }

        @Test(
            "cancel while an async node runs: the cancel action reaches middleware and reducer once, before wait returns"
        )
        func cancelWhileAsyncNodeRuns() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let seen = Probe()
            let subscription = store.subscribe { state in seen.record(state.applied.last ?? "-") }
            let (graph, token, shown) = Self.spinnerGraph(probe)
            let run = store.dispatch(graph)
            try await withDeadline(10, "LogIn to start") { await probe.waitFor("start LogIn") }

            run.cancel()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(store.state.applied == ["start spinner", "stop spinner"])
            #expect(probe.count("mw stop spinner") == 1)
            #expect(seen.count("stop spinner") == 1, "subscribers see it like any action")
            #expect(report[token].outcome == .cancelled)
            #expect(report[shown].outcome == .cancelled)
            subscription.cancel()
        }

        @Test("cancel while a call that ignores it runs: what the call dispatches through its context is dropped")
        func cancelledCallsContextIsClosed() async throws {
            let store = makeStore(probe: Probe())
            let answer = Latch()
            let logIn = StubbornCall<AppState>(answer: answer, note: Note("signed in, said the call"))
            var graph = Graph()
            graph.run(logIn)
            graph.setCancelAction(Self.stop)
            let run = store.dispatch(graph)
            try await withDeadline(10, "the call to start") { await logIn.started.wait() }

            run.cancel()
            answer.open()
            try await withDeadline(10, "the call to dispatch") { await logIn.finished.wait() }

            #expect(store.state.applied == ["stop spinner"], "the cancel action is the one action of the run applied")
            _ = try await withDeadline(10, "the run") { await run.wait() }
        }

        @Test("cancel right after dispatch, before the async root ran: the cancel action is applied once")
        func cancelBeforeTheFirstNodeRan() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            // Held by a gate never opened: on a busy machine the root's task could otherwise run the
            // whole graph between the dispatch and the cancel, which then finds the run finished.
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: Latch()))
            graph.send(after: token) { Note("signed in \($0)") }
            graph.setCancelAction(Self.stop)

            let run = store.dispatch(graph)
            run.cancel()
            // Nothing of the run was scheduled in the pipeline: this thread applied the cancel action.
            #expect(store.state.applied == ["stop spinner"])
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(store.state.applied == ["stop spinner"])
            #expect(report.count(of: .cancelled) == 2)
        }

        @Test("a graph refused before it started (dispatched from a reducer) sends no cancel action")
        func refusedGraphSendsNothing() async throws {
            final class Box: @unchecked Sendable {
                // @unchecked: `store` is set once before the only dispatch that reads it, and cleared after.
                var store: Store<AppState>?
                var run: GraphRun<AppState>?
            }
            let box = Box()
            var inner = Graph()
            inner.send(Note("never"))
            inner.setCancelAction(Self.stop)
            let refused = inner
            let store = Store(
                initialState: AppState(),
                reducer: Reducer { state, action in
                    reducer(&state, action)
                    if (action as? Note)?.text == "go" { box.run = box.store?.dispatch(refused) }
                }, options: StoreOptions(onDiagnostic: { _ in }))
            box.store = store
            store.dispatch(Note("go"))
            let run = try #require(box.run)
            let report = try await withDeadline(10, "the refused run") { await run.wait() }
            box.store = nil

            #expect(report.count(of: .cancelled) == 1)
            #expect(store.state.applied == ["go"])
        }

        @Test("releasing the store cancels its runs without their cancel actions")
        func storeReleaseSendsNothing() async throws {
            let probe = Probe()
            var store: Store<AppState>? = makeStore(probe: probe)
            let (graph, _, _) = Self.spinnerGraph(probe)
            let run = try #require(store?.dispatch(graph))
            try await withDeadline(10, "LogIn to start") { await probe.waitFor("start LogIn") }
            store = nil

            let report = try await withDeadline(10, "the run") { await run.wait() }
            #expect(report.count(of: .cancelled) == 2)
            #expect(probe.count("mw stop spinner") == 0)
            #expect(store == nil)
        }

        @Test("cancel while another thread applies a sync node: the node completes, then the cancel action")
        func cancelWhileAnotherThreadAppliesASyncNode() async throws {
            // The middleware holds the sync node (on the pool thread that ended LogIn) while a plain
            // Thread, started from inside the middleware, cancels the run; the middleware waits for
            // that thread only, which needs no pool thread, so the hold lasts as long as one
            // `cancel()`. (Waiting on a plain thread for the middleware to be entered, as this test
            // once did, waited for LogIn's task: a real-time bound on pool work, which ran out while
            // other tests kept the pool busy.) The wait is bounded all the same, in case `cancel()`
            // ever waits for the thread it holds.
            let probe = Probe()
            let run = Box<GraphRun<AppState>>()
            let seenByCanceller = Probe()
            let blocking = Middleware<AppState> { action, _, next in
                if (action as? Note)?.text == "slow", let run = run.value {
                    let cancelled = DispatchSemaphore(value: 0)
                    let canceller = Thread {
                        run.cancel()  // returns while this thread is still inside the middleware
                        seenByCanceller.record(run.isFinished ? "finished" : "not finished")
                        cancelled.signal()
                    }
                    canceller.start()
                    if cancelled.wait(timeout: .now() + 10) == .timedOut {
                        seenByCanceller.record("cancel() did not return while a sync node was applied")
                    }
                }
                next(action)
            }
            let store = Store(initialState: AppState(), reducer: reducer, middleware: [blocking])
            let gate = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: gate))
            let slow = graph.send(Note("slow"), after: token)
            let after = graph.send(Note("after"), after: slow)
            graph.setCancelAction(Self.stop)

            let dispatched = store.dispatch(graph)
            run.value = dispatched  // before the gate opens: LogIn cannot end before this
            gate.open()
            let report = try await withDeadline(10, "the run") { await dispatched.wait() }

            #expect(seenByCanceller.log == ["not finished"])
            #expect(store.state.applied == ["slow", "stop spinner"])
            #expect(report[slow].outcome == .succeeded)
            #expect(report[after].outcome == .cancelled)
        }

        @Test("cancel from inside a subscriber: applied right after the current action, before dispatch returns")
        func cancelFromASubscriber() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let (graph, token, _) = Self.spinnerGraph(probe)
            let run = store.dispatch(graph)
            let subscription = store.subscribe { state in
                if state.applied.last == "leave screen" { run.cancel() }
            }
            try await withDeadline(10, "LogIn to start") { await probe.waitFor("start LogIn") }

            store.dispatch(Note("leave screen"))

            #expect(store.state.applied == ["start spinner", "leave screen", "stop spinner"])
            let report = try await withDeadline(10, "the run") { await run.wait() }
            #expect(report[token].outcome == .cancelled)
            #expect(probe.count("mw stop spinner") == 1)
            subscription.cancel()
        }

        @Test("cancel from a subscriber while the run's own sync node is applied: the node, then the cancel action")
        func cancelFromASubscriberOfTheRunsNode() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "ada", gate: gate))
            let signedIn = graph.send(after: token) { Note("signed in \($0)") }
            let profile = graph.run(call("FetchProfile", probe, answering: 1), after: signedIn)
            graph.setCancelAction(Self.stop)
            let run = store.dispatch(graph)
            let subscription = store.subscribe { state in
                if state.applied.last == "signed in ada" { run.cancel() }
            }
            gate.open()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(store.state.applied == ["signed in ada", "stop spinner"])
            #expect(report[signedIn].outcome == .succeeded)
            #expect(report[profile].outcome == .cancelled)
            #expect(probe.count("start FetchProfile") == 0)
            subscription.cancel()
        }

        @Test("cancel from a subscriber of the run's last sync node: nothing is left to end, so no cancel action")
        func cancelFromASubscriberOfTheLastNode() async throws {
            // The screen closes when the order is confirmed, and cancels its run as it leaves.
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            let (graph, token, shown) = Self.spinnerGraph(probe, gate: gate)
            let run = store.dispatch(graph)
            let subscription = store.subscribe { state in
                if state.applied.last == "signed in ada" { run.cancel() }
            }
            gate.open()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(store.state.applied == ["start spinner", "signed in ada"], "the run finished as it would have")
            #expect(probe.count("mw stop spinner") == 0)
            #expect(report[token].outcome == .succeeded)
            #expect(report[shown].outcome == .succeeded)
            subscription.cancel()
        }

        @Test("cancel twice, from two tasks at once: one cancel action")
        func cancelTwice() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let (graph, _, _) = Self.spinnerGraph(probe)
            let run = store.dispatch(graph)
            try await withDeadline(10, "LogIn to start") { await probe.waitFor("start LogIn") }

            await withTaskGroup(of: Void.self) { group in
                group.addTask { run.cancel() }
                group.addTask { run.cancel() }
            }
            run.cancel()
            _ = try await withDeadline(10, "the run") { await run.wait() }
            run.cancel()

            #expect(probe.count("mw stop spinner") == 1)
            #expect(store.state.applied == ["start spinner", "stop spinner"])
        }

        @Test("the run finished first: no cancel action")
        func finishedFirst() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            gate.open()
            let (graph, _, _) = Self.spinnerGraph(probe, gate: gate)
            let run = store.dispatch(graph)
            _ = try await withDeadline(10, "the run") { await run.wait() }
            run.cancel()

            #expect(store.state.applied == ["start spinner", "signed in ada"])
        }

        @Test("a cancel racing the natural finish: the cancel action once when it ended a node, else not at all")
        func cancelRacingTheFinish() async throws {
            for round in 0..<300 {
                let probe = Probe()
                let store = makeStore(probe: probe)
                var graph = Graph()
                let token = graph.run(call("LogIn", probe, answering: "ada"))
                graph.send(after: token) { Note("signed in \($0)") }
                graph.setCancelAction(Self.stop)
                let run = store.dispatch(graph)
                let canceller = Task.detached { run.cancel() }
                let report = try await withDeadline(10, "round \(round)") { await run.wait() }
                try await withDeadline(10, "round \(round), the canceller") { await canceller.value }
                _ = try await withDeadline(10, "round \(round), after the cancel") { await run.wait() }

                let stops = probe.count("mw stop spinner")
                #expect(stops <= 1, "round \(round)")
                if report.count(of: .cancelled) > 0 {
                    #expect(stops == 1, "round \(round): a cancelled node, so the cancel action")
                    #expect(store.state.applied.last == "stop spinner", "round \(round): it is the run's last action")
                } else {
                    #expect(stops == 0, "round \(round): the cancel ended nothing, so no cancel action")
                }
            }
        }
    }
}
