import OresRedux
import OresReduxTesting
import Testing

/// Issue 13: every wait of a test store ends, and says what is still in flight.
@Suite("TestStore: no wait hangs, and a timeout names what is in flight")
struct TestStoreWaitsTests {
    typealias App = HomeApp

    @Test("receive with a held call never answered fails, naming the held call and the run's open nodes")
    func receiveNamesTheHeldCall() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .seconds(1))
        _ = store.hold(App.LogIn.self)
        store.dispatch(App.home(user: "ada").graph)

        let failure = try await withDeadline(30, "receive") {
            await #expect(throws: TestStoreFailure.self) {
                try await store.receive(App.SetToken.self, timeout: .milliseconds(100)) { $0.token = "t" }
            }
        }
        let message = failure?.message ?? ""
        #expect(message.contains("waited 0.1 s to receive SetToken"))
        #expect(message.contains("held call not answered: 1 x LogIn"))
        #expect(message.contains("run 1: LogIn (async, running), SetToken (sync, waiting)"))
    }

    @Test("after a held call times out and its run ends, finish finds no call still waiting, every time")
    func timedOutHeldCallIsGoneWhenTheRunEnds() async throws {
        typealias Guide = GuideApp
        for round in 0..<100 {
            let store = TestStore(initialState: Guide.AppState(), reducer: Guide.appReducer)
            _ = store.hold(Guide.FetchFeed.self)
            var graph = ActionGraph<Guide.AppState>()
            let feed = graph.run(Guide.FetchFeed(token: "t"))
            graph.setTimeout(.seconds(5), for: feed)
            graph.setFallback(for: feed) { _ in Guide.ShowBanner(message: "could not load the feed") }
            let run = store.dispatch(graph)
            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .seconds(5))
            _ = try await withDeadline(10, "the run") { await run.wait() }
            try await store.receive(Guide.ShowBanner.self) { $0.banner = "could not load the feed" }
            do { try await store.finish() } catch {
                Issue.record("round \(round): \(error)")
                return
            }
        }
    }

    @Test("receive while a back-off sleeps on a clock nobody advances fails, naming the sleeper and its deadline")
    func receiveNamesTheSleeper() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .seconds(1))
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, sequence: [.failure(App.Offline()), .success([])])
        store.dispatch(App.home(user: "ada", feedRetry: .retry(1, backoff: .constant(.seconds(2)))).graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }

        let failure = try await withDeadline(30, "receive") {
            await #expect(throws: TestStoreFailure.self) {
                try await store.receive(App.ShowHome.self, timeout: .milliseconds(100))
            }
        }
        let message = failure?.message ?? ""
        #expect(message.contains("asleep on the clock until +2.0 seconds (now +0.0 seconds"))
        #expect(message.contains("FetchFeed (async, running)"))

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(2))
        try await store.receive(App.ShowHome.self) { $0.profile = App.Profile(name: "Ada") }
        try await store.finish()
    }

    @Test("finish waits for a run stuck outside the store only as long as the store's timeout, then lists it")
    func finishTimesOutWithTheStoreWideSetting() async throws {
        let outside = GraphStories.Latch()  // something the store cannot see, opened after the failure
        let store = TestStore(initialState: App.State(), reducer: App.reducer, exhaustivity: .off, timeout: .seconds(1))
        store.timeout = .milliseconds(150)
        store.stub(App.LogIn.self) { _, _ in
            await outside.wait()
            return "t"
        }
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        store.dispatch(App.home(user: "ada").graph)

        let failure = try await withDeadline(30, "finish") {
            await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        }
        outside.open()
        #expect(
            failure?.message.contains("waited 0.15 s for the work in flight to finish") == true,
            "the store-wide timeout, not the default")
        #expect(failure?.message.contains("LogIn") == true)
    }

    @Test("nextCall fails when the held action is never called, and says why")
    func nextCallTimesOut() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, exhaustivity: .off, timeout: .seconds(1))
        store.stub(App.LogIn.self, throwing: App.Offline())  // so the feed is never fetched
        let feed = store.hold(App.FetchFeed.self)
        store.dispatch(App.home(user: "ada").graph)

        let failure = try await withDeadline(30, "nextCall") {
            await #expect(throws: TestStoreFailure.self) { try await feed.nextCall(timeout: .milliseconds(100)) }
        }
        #expect(failure?.message.contains("waited 0.1 s for a call of FetchFeed, but none came") == true)
        try await store.finish()
    }

    @Test("waitForSleepers fails when nothing goes to sleep")
    func waitForSleepersTimesOut() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .seconds(1))
        let failure = try await withDeadline(30, "waitForSleepers") {
            await #expect(throws: TestStoreFailure.self) {
                try await store.clock.waitForSleepers(1, timeout: .milliseconds(100))
            }
        }
        #expect(failure?.message.contains("waited 0.1 s for 1 sleeper(s) on the clock, but 0 went to sleep") == true)
        #expect(failure?.message.contains("no run or task in flight") == true)
    }

    @Test("assertSkipped does not wait forever for a node stuck behind a held call")
    func assertSkippedTimesOut() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .seconds(1))
        let logIn = store.hold(App.LogIn.self)
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        let home = App.home(user: "ada")
        let run = store.dispatch(home.graph)

        _ = try await withDeadline(30, "assertSkipped") {
            await #expect(throws: TestStoreFailure.self) {
                try await store.assertSkipped(home.show, in: run, because: home.feed, timeout: .milliseconds(100))
            }
        }
        run.cancel()
        _ = logIn
        try await store.finish()
    }

    @Test("a failure carries the test's file, line and column")
    func failureLocation() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .seconds(1))
        let line = #line + 1
        let failure = #expect(throws: TestStoreFailure.self) {
            try store.send(App.SetToken(token: "a")) { $0.token = "b" }
        }
        #expect(failure?.fileID == "OresReduxTests/TestStoreWaitsTests.swift")
        #expect(failure?.filePath.hasSuffix("Tests/TestStore/TestStoreWaitsTests.swift") == true)
        #expect(failure?.line == line)
        #expect((failure?.column ?? 0) > 1)
        #expect(failure?.location == "OresReduxTests/TestStoreWaitsTests.swift:\(line)")
    }
}

/// Issue 20: a wait that gives up fails, and says what was still running.
@Suite("TestStore: waits end on the store's own count of its work")
struct TestStoreCountedWaitsTests {
    typealias App = HomeApp

    @Test("an advance that finds work running with no progress gives up, and the next wait fails naming it")
    func advanceThatGivesUpFails() async throws {
        let outside = GraphStories.Latch()  // something the store cannot see, never opened in time
        let store = TestStore(initialState: App.State(), reducer: App.reducer, timeout: .milliseconds(200))
        store.stub(App.LogIn.self) { _, _ in
            await outside.wait()
            return "t"
        }
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        store.dispatch(App.home(user: "ada").graph)

        await store.clock.advance(by: .seconds(1))  // cannot throw: records the failure

        outside.open()  // even when the work ends afterwards, the advance that gave up fails the test
        let failure = await #expect(throws: TestStoreFailure.self) {
            try await store.receive(App.SetToken.self) { $0.token = "t" }
        }
        let message = failure?.message ?? ""
        #expect(message.contains("advancing the clock to +1.0 seconds gave up"), "\(message)")
        // It names the last step the node's task reached: inside the stub, not before it.
        #expect(message.contains("running: LogIn (node #0) of a run, last called its stub"), "\(message)")
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        store.exhaustivity = .off
        try await store.finish()
    }

    @Test("a timeout scenario walks virtual time in milliseconds of real time, every time")
    func timeoutScenarioIsFast() async throws {
        let start = ContinuousClock.now
        for _ in 0..<200 {
            let store = TestStore(initialState: App.State(), reducer: App.reducer, exhaustivity: .off)
            store.stub(App.LogIn.self, with: "t")
            store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
            _ = store.hold(App.FetchFeed.self)
            store.dispatch(App.home(user: "ada", feedTimeout: .seconds(30)).graph)
            try await store.receive(App.SetToken.self) { $0.token = "t" }
            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .seconds(30))
            try await store.finish()
        }
        // Not a timed assertion: a report of how long 200 timeouts of 30 s took, for the log.
        print("200 timed-out feeds, 30 s of virtual time each, in \(ContinuousClock.now - start) of real time")
    }
}
