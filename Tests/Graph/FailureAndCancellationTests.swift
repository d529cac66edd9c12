import Foundation
import OresRedux
import Testing

extension GraphStories {
    /// Semantics 4: a failed node skips exactly what depends on it; everything else goes on.
    @Suite("Failure")
    struct FailureStories {
        @Test("log in fails: profile, feed and home are skipped and never run; the unrelated banner still shows")
        func failureSkipsEveryDependentAndNothingElse() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(failing("LogIn", probe, as: String.self))
            let profile = graph.run(after: token) { token in
                call("FetchProfile", probe, answering: Profile(name: token))
            }
            let feed = graph.run(after: token) { _ in call("FetchFeed", probe, answering: [Post]()) }
            let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
            let afterHome = graph.send(Note("track home shown"), after: home)
            let news = graph.run(call("FetchNews", probe, answering: "maintenance tonight"))
            let banner = graph.send(after: news) { news in ShowBanner(text: news) }

            let run = store.dispatch(graph)
            let report = try await withDeadline { await run.wait() }

            let logInError = try #require(
                try await withDeadline(10, "the outcome of token") { await run.outcome(of: token) }.error as? Failure)
            #expect(logInError == Failure("LogIn"))
            for node in [profile.index, feed.index, home.index, afterHome.index] {
                #expect(report[node].outcome == .skipped, "node #\(node)")
                #expect(report[node].start == nil, "node #\(node) started")
            }
            #expect(probe.count("start FetchProfile") == 0)
            #expect(probe.count("start FetchFeed") == 0)
            #expect(probe.count("mw ShowHome") == 0)
            #expect(
                try await withDeadline(10, "the outcome of banner") { await run.outcome(of: banner) }.kind == .succeeded
            )
            #expect(store.state.applied == ["ShowBanner(maintenance tonight)"])
            #expect(store.state.banner == "maintenance tonight")
            #expect(report.count(of: .failed) == 1)
            #expect(report.count(of: .skipped) == 4)
            #expect(report.count(of: .succeeded) == 2)
        }

        @Test("value(of:) throws the node's own error for a failed node and GraphError.skipped for a skipped one")
        func valueOfThrowsTheReason() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(failing("LogIn", probe, as: String.self))
            let profile = graph.run(after: token) { token in call("FetchProfile", probe, answering: token) }
            let run = store.dispatch(graph)

            await #expect(throws: Failure("LogIn")) {
                try await withDeadline(10, "the value of token") { try await run.value(of: token) }
            }
            await #expect(throws: GraphError.skipped) {
                try await withDeadline(10, "the value of profile") { try await run.value(of: profile) }
            }
        }

        @Test("in a diamond, one failing side skips the join; the other side still succeeds")
        func diamondWithOneFailingSide() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let start = graph.run(call("Start", probe, answering: 1))
            let left = graph.run(after: start) { _ in failing("Left", probe) }
            let right = graph.run(after: start) { value in call("Right", probe, answering: value + 1) }
            let join = graph.send(after: left, right) { left, right in Add(left + right) }
            let after = graph.send(Note("after join"), after: join)
            let run = store.dispatch(graph)
            let report = try await withDeadline { await run.wait() }

            #expect(report[start].outcome == .succeeded)
            #expect(report[left].outcome == .failed)
            #expect(report[right].outcome == .succeeded)
            #expect(report[join].outcome == .skipped)
            #expect(report[after].outcome == .skipped)
            #expect(store.state.applied.isEmpty)
        }

        @Test("a failure at the top of a diamond skips all four levels below it")
        func diamondUnderAFailureIsSkippedEntirely() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let top = graph.run(failing("Top", probe))
            let left = graph.run(after: top) { value in call("Left", probe, answering: value) }
            let right = graph.send(Note("right"), after: top)
            let bottom = graph.send(after: left, right) { left, _ in Add(left) }
            let tail = graph.run(call("Tail", probe, answering: 0), after: bottom)
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report.map(\.outcome) == [.failed, .skipped, .skipped, .skipped, .skipped])
            #expect(report[tail].attempts == 0)
            #expect(probe.log.filter { $0.hasPrefix("start") } == ["start Top"])
            #expect(store.state.applied.isEmpty)
        }

        @Test("a fallback turns a failure into a 'could not load' banner before wait() returns")
        func fallbackIsAppliedWhenTheNodeFails() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let feed = graph.run(failing("FetchFeed", probe, as: [Post].self))
            graph.setFallback(for: feed) { error in ShowBanner(text: "could not load: \(error)") }
            graph.send(after: feed) { feed in Note("\(feed.count) posts") }
            let run = store.dispatch(graph)
            let report = try await withDeadline { await run.wait() }

            #expect(store.state.banner == "could not load: Failure(FetchFeed)")
            #expect(probe.count("mw ShowBanner(could not load: Failure(FetchFeed))") == 1)
            #expect(store.state.applied == ["ShowBanner(could not load: Failure(FetchFeed))"])
            #expect(report[feed].outcome == .failed)
        }

        @Test("the fallback is sent once, after the last retry, with the last attempt's error")
        func fallbackWaitsForTheLastRetry() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let feed = graph.run(
                Call<Int>(name: "FetchFeed", probe: probe) { attempt in
                    throw Failure("attempt \(attempt)")
                })
            graph.setRetry(.retry(2), for: feed)
            graph.setFallback(for: feed) { error in ShowBanner(text: "\(error)") }
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(probe.count("start FetchFeed") == 3)
            #expect(report[feed].attempts == 3)
            #expect(store.state.applied == ["ShowBanner(Failure(attempt 3))"])
            // Every attempt threw before the banner reached the middleware.
            let log = probe.log
            #expect(log.lastIndex(of: "threw FetchFeed")! < log.firstIndex(of: "mw ShowBanner(Failure(attempt 3))")!)
        }

        @Test("a skipped node's fallback is not sent")
        func fallbackIsNotSentForASkippedNode() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(failing("LogIn", probe, as: String.self))
            let profile = graph.run(after: token) { token in call("FetchProfile", probe, answering: token) }
            graph.setFallback(for: profile) { _ in ShowBanner(text: "could not load profile") }
            graph.setFallback(for: token) { _ in ShowBanner(text: "could not log in") }
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report[profile].outcome == .skipped)
            #expect(store.state.applied == ["ShowBanner(could not log in)"])
        }

        @Test("a cancelled node's fallback is not sent, even when its action throws on cancellation")
        func fallbackIsNotSentForACancelledNode() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let feed = graph.run(call("FetchFeed", probe, answering: 1, gate: Latch()))
            graph.setFallback(for: feed) { _ in ShowBanner(text: "could not load") }
            let run = store.dispatch(graph)
            try await withDeadline(10, "start FetchFeed") { await probe.waitFor("start FetchFeed") }

            run.cancel()
            let report = try await withDeadline { await run.wait() }
            try await withDeadline(10, "cancelled FetchFeed") { await probe.waitFor("cancelled FetchFeed") }
            for _ in 0..<100 { await Task.yield() }  // let the CancellationError travel back

            #expect(report[feed].outcome == .cancelled)
            #expect(store.state.applied.isEmpty)
        }

        @Test("wait() returns when every node failed")
        func waitReturnsWhenEverythingFails() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            for index in 0..<20 { graph.run(failing("Request\(index)", probe)) }
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report.count(of: .failed) == 20)
        }
    }

    /// Semantics 5: cancel() cancels the async nodes in flight and every node not started.
    @Suite("Cancellation")
    struct CancellationStories {
        @Test("cancel while the feed loads: its task is cancelled, the rest is cancelled, committed state stays")
        func cancelStopsTheNodeInFlight() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let open = graph.send(Note("show spinner"))
            let feed = graph.run(call("FetchFeed", probe, answering: [Post(title: "a")], gate: Latch()), after: open)
            let show = graph.send(after: feed) { feed in Note("show \(feed.count) posts") }
            let hide = graph.send(Note("hide spinner"), after: show)
            let run = store.dispatch(graph)
            try await withDeadline(10, "start FetchFeed") { await probe.waitFor("start FetchFeed") }

            run.cancel()
            let report = try await withDeadline { await run.wait() }

            try await withDeadline(10, "cancelled FetchFeed") { await probe.waitFor("cancelled FetchFeed") }
            #expect(report[open].outcome == .succeeded)
            #expect(report[feed].outcome == .cancelled)
            #expect(report[show].outcome == .cancelled)
            #expect(report[hide].outcome == .cancelled)
            #expect(report[show].start == nil)
            #expect(store.state.applied == ["show spinner"])
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the value of feed") { try await run.value(of: feed) }
            }
            #expect(
                try await withDeadline(10, "the outcome of hide") { await run.outcome(of: hide) }.kind == .cancelled)
        }

        @Test("cancel returns at once even when the action in flight ignores cancellation; its late answer is dropped")
        func waitReturnsWhenTheActionIgnoresCancellation() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let stubborn = graph.run(
                Call(name: "Stubborn", probe: probe, gate: gate, ignoresCancellation: true) { _ in 7 })
            let dependent = graph.send(after: stubborn) { value in Add(value) }
            let run = store.dispatch(graph)
            try await withDeadline(10, "start Stubborn") { await probe.waitFor("start Stubborn") }

            run.cancel()
            // Returns although Stubborn still waits for its gate
            let report = try await withDeadline { await run.wait() }

            // Stubborn sees its cancellation on its own task, which may get there after the report.
            try await withDeadline(10, "Stubborn to see its cancellation") { await probe.waitFor("cancelled Stubborn") }
            #expect(probe.count("cancelled Stubborn") == 1)
            #expect(probe.count("end Stubborn") == 0)
            #expect(report[stubborn].outcome == .cancelled)
            #expect(report[dependent].outcome == .cancelled)

            // The stubborn action answers late: nothing changes.
            gate.open()
            try await withDeadline(10, "end Stubborn") { await probe.waitFor("end Stubborn") }
            for _ in 0..<100 { await Task.yield() }
            #expect(
                try await withDeadline(10, "the outcome of stubborn") { await run.outcome(of: stubborn) }.kind
                    == .cancelled)
            #expect(
                try await withDeadline(10, "the outcome of dependent") { await run.outcome(of: dependent) }.kind
                    == .cancelled)
            #expect(store.state.total == 0)
            #expect(probe.count("mw Add(7)") == 0)
        }

        @Test("cancelling twice is the same as once; cancelling a finished run changes nothing")
        func cancelIsIdempotentAndLateCancelIsHarmless() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let count = graph.run(call("Count", probe, answering: 3))
            let failed = graph.run(failing("Broken", probe))
            graph.setFallback(for: failed) { _ in Note("broken fallback") }
            graph.send(after: count) { count in Add(count) }
            let run = store.dispatch(graph)
            let before = try await withDeadline { await run.wait() }
            let stateBefore = store.state

            run.cancel()
            run.cancel()

            let after = try await withDeadline { await run.wait() }
            #expect(after.map(\.outcome) == before.map(\.outcome))
            #expect(after.count(of: .cancelled) == 0)
            #expect(store.state == stateBefore)
            #expect(try await withDeadline(10, "the value of count") { try await run.value(of: count) } == 3)
            #expect(probe.count("mw broken fallback") == 1)

            // Twice while running:
            var slow = Graph()
            let wait = slow.run(call("Slow", probe, answering: 1, gate: Latch()))
            let next = slow.send(Note("next"), after: wait)
            let running = store.dispatch(slow)
            try await withDeadline(10, "start Slow") { await probe.waitFor("start Slow") }
            running.cancel()
            running.cancel()
            let report = try await withDeadline(10, "the running run") { await running.wait() }
            #expect(report[wait].outcome == .cancelled)
            #expect(report[next].outcome == .cancelled)
            // The call sees its cancellation on its own task, which may get there after the report
            // (a cancel between its start and its handler reaches the handler when it is installed).
            try await withDeadline(10, "Slow to see its cancellation") { await probe.waitFor("cancelled Slow") }
            #expect(probe.count("cancelled Slow") == 1)
        }

        @Test("a run cancelled right after dispatch keeps its applied roots and cancels the rest")
        func cancelRightAfterDispatch() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let root = graph.send(Note("root"))
            let fetch = graph.run(call("Fetch", probe, answering: 1, gate: Latch()), after: root)
            let later = graph.send(Note("later"), after: fetch)
            let run = store.dispatch(graph)
            run.cancel()
            let report = try await withDeadline { await run.wait() }

            #expect(report[root].outcome == .succeeded)
            #expect(report[fetch].outcome == .cancelled)
            #expect(report[later].outcome == .cancelled)
            #expect(store.state.applied == ["root"])
        }

        @Test("a run cancelled while a node's make closure runs: the node makes no attempt and ends cancelled")
        func cancelBetweenMakeAndTheAttempt() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let running = Box<GraphRun<AppState>>()
            let gate = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "token", gate: gate))
            let profile = graph.run(after: token) { token in
                running.value?.cancel()
                return call("FetchProfile", probe, answering: token)
            }
            let run = store.dispatch(graph)
            running.value = run
            gate.open()
            let report = try await withDeadline(10, "the run") { await run.wait() }

            #expect(report[token].outcome == .succeeded)
            #expect(report[profile].outcome == .cancelled)
            #expect(probe.count("start FetchProfile") == 0, "the cancel came before the attempt's start")
        }

        @Test(
            "runs cancelled as they start: an async node's action is called exactly when its attempt's start is shown")
        func everyCalledAttemptIsShown() async throws {
            let probe = Probe()
            let starts = Box<[Int]>([])
            let lock = NSLock()
            var options = StoreOptions()
            options.onEvent = { event in
                guard case .nodeStarted(_, let node) = event else { return }
                lock.withLock { starts.value!.append(node.index) }
            }
            let store = Store(initialState: AppState(), reducer: reducer, options: options)
            var graph = Graph()
            let built = graph.run(call("Built", probe, answering: 1))
            let made = graph.run(makeFromState: { _ in call("Made", probe, answering: 2) })
            for _ in 0..<50 {
                let run = store.dispatch(graph)
                run.cancel()
                let report = try await withDeadline(10, "the run") { await run.wait() }
                #expect(report[built].outcome != nil && report[made].outcome != nil)
            }
            // An action called after its attempt's start may be called after its run ended (the
            // cancel came in between): wait for every call shown, then no more can come.
            let shown = lock.withLock { starts.value! }
            let (builtShown, madeShown) = (
                shown.filter { $0 == built.index }.count, shown.filter { $0 == made.index }.count
            )
            try await withDeadline(10, "the calls whose start was shown") {
                await probe.waitFor("start Built", count: builtShown)
                await probe.waitFor("start Made", count: madeShown)
            }
            #expect(probe.count("start Built") == builtShown)
            #expect(probe.count("start Made") == madeShown)
        }

        @Test("a sync node being applied when the run is cancelled completes; its dependents are cancelled")
        func syncNodeInProgressCompletes() async throws {
            let probe = Probe()
            let runBox = Box<GraphRun<AppState>>()
            let cancelling = Middleware<AppState> { action, _, next in
                if String(describing: action) == "save" { runBox.value?.cancel() }
                next(action)
            }
            let store = Store(initialState: AppState(), reducer: reducer, middleware: [cancelling])
            let gate = Latch()
            var graph = Graph()
            let load = graph.run(call("Load", probe, answering: 1, gate: gate))
            let save = graph.send(Note("save"), after: load)
            let after = graph.send(Note("after save"), after: save)
            let run = store.dispatch(graph)
            runBox.value = run
            gate.open()
            let report = try await withDeadline { await run.wait() }

            #expect(report[load].outcome == .succeeded)
            #expect(report[save].outcome == .succeeded)
            #expect(report[after].outcome == .cancelled)
            #expect(store.state.applied == ["save"])
        }

        @Test("releasing the store cancels its runs in flight, and wait() returns")
        func releasingTheStoreCancelsRuns() async throws {
            let probe = Probe()
            var store: Store<AppState>? = makeStore(probe: probe)
            var graph = Graph()
            let fetch = graph.run(call("Fetch", probe, answering: 1, gate: Latch()))
            let show = graph.send(Note("show"), after: fetch)
            let run = store!.dispatch(graph)
            try await withDeadline(10, "start Fetch") { await probe.waitFor("start Fetch") }

            store = nil
            let report = try await withDeadline { await run.wait() }

            #expect(report[fetch].outcome == .cancelled)
            #expect(report[show].outcome == .cancelled)
            try await withDeadline(10, "cancelled Fetch") { await probe.waitFor("cancelled Fetch") }
        }

        @Test("a graph dispatched through the context of a released store ends at once, cancelled")
        func dispatchAfterTheStoreIsGone() async throws {
            let probe = Probe()
            let contextBox = Box<ActionContext<AppState>>()
            struct KeepContext: AsyncAction {
                let box: Box<ActionContext<AppState>>
                func run(_ context: ActionContext<AppState>) async throws -> Int {
                    box.value = context
                    return 0
                }
            }
            var store: Store<AppState>? = makeStore(probe: probe)
            do {
                let kept = store!.dispatch(KeepContext(box: contextBox))
                _ = try await withDeadline(10, "KeepContext") { try await kept.value }
            }
            store = nil
            let context = try #require(contextBox.value)
            #expect(context.isStoreReleased)

            var graph = Graph()
            let fetch = graph.run(call("Fetch", probe, answering: 1))
            graph.send(Note("show"), after: fetch)
            let report = try await withDeadline(10, "the run of a released store") { [graph] in
                await context.dispatch(graph).wait()
            }

            #expect(report.count(of: .cancelled) == 2)
            #expect(probe.count("start Fetch") == 0)
        }
    }
}
