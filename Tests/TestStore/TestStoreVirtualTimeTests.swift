import Dispatch
import OresRedux
import OresReduxTesting
import Testing

/// Issue 13: virtual time passes like real time, deadline by deadline.
@Suite("VirtualClock: time walks deadline by deadline")
struct TestStoreVirtualTimeTests {
    typealias App = HomeApp

    /// The README's settings: a 5 s timeout, two retries with an exponential back-off from 200 ms.
    static let readmeRetry = RetryPolicy.retry(2, backoff: .exponential(initial: .milliseconds(200)))

    @Test("A feed that times out at 5 s retries after its 200 ms back-off within one advance to 5.2 s")
    func timeoutThenBackoffInOneAdvance() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        let feed = store.hold(App.FetchFeed.self)
        store.dispatch(App.home(user: "ada", feedTimeout: .seconds(5), feedRetry: Self.readmeRetry).graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        _ = try await feed.nextCall()

        try await store.clock.waitForSleepers(1)  // the 5 s timeout of the first attempt
        await store.clock.advance(by: .milliseconds(5_100))  // it fires at 5 s; the back-off runs to 5.2 s
        #expect(feed.calls.count == 1, "the retry came before its back-off ended")
        await store.clock.advance(by: .milliseconds(100))  // 5.2 s: the second attempt starts
        #expect(try await feed.nextCall() == App.FetchFeed(token: "t"))
        #expect(store.clock.now == VirtualClock.Instant(offset: .milliseconds(5_200)))

        feed.respond(with: [App.Post(id: 1)])
        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: "Ada")
            $0.feed = [App.Post(id: 1)]
        }
        try await store.finish()
    }

    @Test(
        "A chain on one task: the chained feed's timeout, back-off and retry run on virtual time; the store is quiet only at the end"
    )
    func chainedNodeWithTimeoutAndRetry() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        // Log in is held, so its task is registered before it ends: its end hands the profile on to
        // that task, and the profile's end hands the feed on to it in turn.
        let logIn = store.hold(App.LogIn.self)
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        let feed = store.hold(App.FetchFeed.self)
        var graph = ActionGraph<App.State>()
        let token = graph.run(App.LogIn(user: "ada"))
        let profile = graph.run(after: token) { token in App.FetchProfile(token: token) }
        let posts = graph.run(after: token, profile) { token, _ in App.FetchFeed(token: token) }
        graph.setTimeout(.seconds(5), for: posts)
        graph.setRetry(Self.readmeRetry, for: posts)
        graph.send(after: profile, posts) { profile, posts in App.ShowHome(profile: profile, feed: posts) }
        store.dispatch(graph)
        _ = try await logIn.nextCall()
        logIn.respond(with: "t")
        #expect(try await feed.nextCall() == App.FetchFeed(token: "t"))

        try await store.clock.waitForSleepers(1)  // the 5 s timeout of the first attempt
        await store.clock.advance(by: .milliseconds(5_100))  // it fires at 5 s; the back-off runs to 5.2 s
        #expect(feed.calls.count == 1, "the retry came before its back-off ended")
        await store.clock.advance(by: .milliseconds(100))
        #expect(try await feed.nextCall() == App.FetchFeed(token: "t"))

        feed.respond(with: [App.Post(id: 1)])
        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: "Ada")
            $0.feed = [App.Post(id: 1)]
        }
        try await store.finish()
    }

    @Test("One advance across a timeout and its back-off reaches the second attempt, as real time would")
    func timeoutAndBackoffInsideOneLongAdvance() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        let feed = store.hold(App.FetchFeed.self)
        store.dispatch(App.home(user: "ada", feedTimeout: .seconds(5), feedRetry: Self.readmeRetry).graph)
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        _ = try await feed.nextCall()

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(6))  // timeout at 5, back-off to 5.2, 2nd attempt
        _ = try await feed.nextCall()
        #expect(feed.calls.count == 2)
        feed.respond(with: [])
        try await store.receive(App.ShowHome.self) { $0.profile = App.Profile(name: "Ada") }
        try await store.finish()
    }

    @Test("The README's timeout and retry, failing once: waitForSleepers, advance 200 ms, receive, 1,000 times")
    func readmeRetryScenarioThousandTimes() async throws {
        for round in 1...1_000 {
            let store = TestStore(initialState: App.State(), reducer: App.reducer)
            store.stub(App.LogIn.self, with: "t")
            store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
            store.stub(App.FetchFeed.self, sequence: [.failure(App.Offline()), .success([App.Post(id: 7)])])
            store.dispatch(App.home(user: "ada", feedTimeout: .seconds(5), feedRetry: Self.readmeRetry).graph)

            do {
                try await store.receive(App.SetToken.self) { $0.token = "t" }
                try await store.clock.waitForSleepers(1)  // the 200 ms back-off
                await store.clock.advance(by: .milliseconds(200))
                try await store.receive(App.ShowHome.self) {
                    $0.profile = App.Profile(name: "Ada")
                    $0.feed = [App.Post(id: 7)]
                }
                try await store.finish()
            } catch {
                Issue.record("round \(round): \(error)")
                return
            }
        }
    }

    @Test("run() walks a chain of delays until nothing sleeps")
    func runWalksUntilNothingSleeps() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        var graph = ActionGraph<App.State>()
        let first = graph.delay(.seconds(1))
        let second = graph.delay(.seconds(2), after: first)
        graph.send(App.SetToken(token: "late"), after: second)
        store.dispatch(graph)

        try await store.clock.waitForSleepers(1)
        try await store.clock.run()

        #expect(store.clock.now == VirtualClock.Instant(offset: .seconds(3)))
        try await store.receive(App.SetToken.self) { $0.token = "late" }
        try await store.finish()
    }

    /// An action that polls on the store's clock: it sleeps between checks.
    struct Poll: AsyncAction {
        func run(_ context: ActionContext<App.State>) async throws { try await context.clock.sleep(for: .seconds(2)) }
    }

    @Test("Waiting for a sleeper of an action that has no stub fails at once, naming the missing stub")
    func waitForSleepersNamesAMissingStub() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.timeout = .seconds(60)  // the failure must come from the missing stub, not from the wait running out
        store.dispatch(Poll())

        let failure = await #expect(throws: TestStoreFailure.self) { try await store.clock.waitForSleepers(1) }
        let message = failure?.message ?? ""
        #expect(message.contains("Poll was run but has no stub"), "\(message)")
        #expect(!message.contains("waited"), "it did not wait out its timeout: \(message)")
    }

    /// A call whose stub sleeps, works and sleeps again on the test store's clock.
    struct Nap: AsyncAction {
        func run(_ context: ActionContext<App.State>) async throws {}
    }

    // On a test store's clock, the store's own count of its work says when the woken stub went
    // back to sleep: no quiet, yield or real time decides it, so no host's scheduling can outrun
    // it. A clock used alone can only take a quiet moment for the end of the woken work (its
    // `waitForSleepers` says so), which a preempted thread breaks: no test relies on that guess.
    @Test(
        "A sleep that starts during an advance is measured from when it started, even after a moment of work"
    )
    func wokenWorkBetweenSleepsIsWaitedFor() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        let log = CoreStore.Recorder<String>()
        store.stub(Nap.self) { [clock = store.clock] _, _ in
            try await clock.sleep(for: .seconds(1))
            log.record("1 s at \(clock.now)")
            // Work that holds its thread for 2 ms of real time (decoding a response, say): a clock
            // that trusted a few yields or a moment of quiet would advance past +2 s before the next
            // sleep starts, whenever the host preempts this thread for longer than that.
            let busyUntil = ContinuousClock.now + .milliseconds(2)
            while ContinuousClock.now < busyUntil {}  // computing, not waiting: no sleep, no lock
            try await clock.sleep(for: .seconds(1))  // starts at +1 s, so ends at +2 s
            log.record("2 s at \(clock.now)")
        }
        let nap = store.dispatch(Nap())
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(3))
        #expect(log.values == ["1 s at +1.0 seconds", "2 s at +2.0 seconds"])
        #expect(store.clock.now == VirtualClock.Instant(offset: .seconds(3)))
        try await withDeadline(30, "the nap") { try await nap.value }
        try await store.finish()
    }
}
