import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/RunningWork/TimeoutsAndRetries.md.

extension GuideApp {
    @Suite("Guide: Timeouts and Retries")
    struct TimeoutsAndRetriesGuide {
        @Test("TimeoutsAndRetries guide: timeout, retry and fallback are settings of a node")
        func nodeSettings() async throws {
            // A feed that never answers: each attempt times out, on a clock the test moves.
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            _ = store.hold(FetchFeed.self)
            var graph = ActionGraph<AppState>()
            let feed = graph.run(FetchFeed(token: "t"))

            graph.setTimeout(.seconds(5), for: feed)
            graph.setRetry(.retry(2, backoff: .exponential(initial: .milliseconds(200))), for: feed)
            graph.setFallback(for: feed) { error in ShowBanner(message: "could not load the feed") }

            let run = store.dispatch(graph)
            // Each step waits for the one timer that is due next, so the order is certain.
            for step in [Duration.seconds(5), .milliseconds(200), .seconds(5), .milliseconds(400), .seconds(5)] {
                try await store.clock.waitForSleepers(1)
                await store.clock.advance(by: step)
            }
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].attempts == 3)
            #expect(report[feed].error as? GraphError == .timedOut(after: .seconds(5)))
            #expect(store.clock.now == VirtualClock.Instant(offset: .milliseconds(15_600)))
            try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
            try await store.finish()
        }

        @Test("TimeoutsAndRetries guide: retry policies and their back-off delays")
        func retryPolicies() {
            let twiceMore = RetryPolicy.retry(2, backoff: .exponential(initial: .milliseconds(200)))
            let patient = RetryPolicy(maxAttempts: 4, backoff: .constant(.seconds(1)))
            let notOnBadPassword = RetryPolicy.retry(3, when: { error in !(error is WrongPassword) })
            let once = RetryPolicy.never  // the default: one attempt

            #expect(twiceMore.maxAttempts == 3)  // 3: the first, then two retries
            #expect(twiceMore.backoff.delay(beforeRetry: 2) == .milliseconds(400))
            #expect(twiceMore.backoff.delay(beforeRetry: 1) == .milliseconds(200))
            #expect(patient.maxAttempts == 4)
            #expect(patient.backoff.delay(beforeRetry: 3) == .seconds(1))
            #expect(notOnBadPassword.maxAttempts == 4)
            #expect(!notOnBadPassword.shouldRetry(WrongPassword()))
            #expect(notOnBadPassword.shouldRetry(Offline()))
            #expect(once.maxAttempts == 1)
            #expect(RetryPolicy.Backoff.exponential(initial: .seconds(1)).delay(beforeRetry: 10) == .seconds(60))
        }

        @Test("TimeoutsAndRetries guide: a store on a VirtualClock")
        func storeOnATestClock() async throws {
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: appReducer, options: StoreOptions(clock: clock))

            var graph = ActionGraph<AppState>()
            let pause = graph.delay(.seconds(30))
            graph.send(ShowBanner(message: "half a minute later"), after: pause)
            let run = store.dispatch(graph)
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(30))
            _ = try await withDeadline { await run.wait() }
            #expect(store.state.banner == "half a minute later")
            #expect(clock.now == VirtualClock.Instant(offset: .seconds(30)))
        }

        @Test("TimeoutsAndRetries guide: a slow feed times out in virtual time")
        func slowFeedTimesOut() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            let feed = store.hold(FetchFeed.self)  // never answers until told to

            let home = homeGraph()  // the feed has a 30 s timeout
            let run = store.dispatch(home.graph)
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t") }
            _ = try await feed.nextCall()

            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .seconds(30))  // microseconds, not 30 seconds

            try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
            #expect(await run.outcome(of: home.feed).error as? GraphError == .timedOut(after: .seconds(30)))
            try await store.finish()
        }

        @Test("TimeoutsAndRetries guide: a flaky feed succeeds on retry after the back-off")
        func flakyFeedSucceedsOnRetry() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, sequence: [.failure(Offline()), .success([Post(id: 7)])])

            var home = homeGraph(feedTimeout: nil)  // no timeout timer: the back-off is the only sleeper
            home.graph.setRetry(.retry(1, backoff: .constant(.seconds(2))), for: home.feed)
            let run = store.dispatch(home.graph)
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t") }

            try await store.clock.waitForSleepers(1)  // the back-off before the second attempt
            await store.clock.advance(by: .seconds(2))

            try await store.receive(ShowHome.self) {
                $0.profile = Profile(name: "Ada")
                $0.feed = [Post(id: 7)]
            }
            #expect(await run.wait()[home.feed].attempts == 2)
            try await store.finish()
        }
    }
}
