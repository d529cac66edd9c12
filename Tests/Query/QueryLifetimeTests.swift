import OresRedux
import OresReduxTesting
import Testing

@testable import OresReduxQuery

/// How long an entry and its work live: one poll shared by the screens that show an entry, paused
/// while none does; a call in flight when the last screen leaves, cancelled or finished into the
/// cache as its endpoint says; the entry removed a set time after that, on the store's clock.
/// Time is the test store's virtual clock, walked deadline by deadline.
@Suite("Query cache: lifetime and sharing")
struct QueryLifetimeTests {
    typealias Feed = QueryFixtures.Feed
    typealias Profile = QueryFixtures.Profile
    let queries = QueryFixtures.queries
    let hello = QueryFixtures.hello

    @Test("two screens polling one feed share one poll, at the shorter interval, paused once both left")
    func twoScreensShareOnePoll() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self, with: [hello])
        let home = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.clock.waitForSleepers(1)  // home's poll, asleep for 10 s
        let profile = queries.observe(Feed(userID: 1), polling: .seconds(4), in: store)  // fresh: no call
        #expect(store.state.cache[Feed(userID: 1)]?.pollInterval == .seconds(4))

        await store.clock.advance(by: .seconds(10))  // the poll's tick; the next one 4 s later
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.clock.waitForSleepers(1)  // one poll, not two
        await store.clock.advance(by: .seconds(4))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.calls(to: Feed.self).count == 3)

        home.cancel()  // profile still polls, every 4 s
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(4))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.calls(to: Feed.self).count == 4)

        profile.cancel()  // nobody polls: the poll's next tick calls nobody, and it ends
        #expect(store.state.cache[Feed(userID: 1)]?.pollInterval == nil)
        try await store.clock.waitForSleepers(2)  // the poll's tick and the entry's removal
        await store.clock.advance(by: .seconds(4))
        #expect(store.clock.sleeperCount == 1)  // the removal alone
        #expect(store.calls(to: Feed.self).count == 4)

        let back = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)  // fresh: the poll resumes
        try await store.clock.waitForSleepers(2)  // the new poll, and the removal of before
        await store.clock.advance(by: .seconds(10))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.calls(to: Feed.self).count == 5)
        back.cancel()
        try await store.clock.run()
        #expect(store.state.cache[Feed(userID: 1)] == nil)
        try await store.finish()
    }

    @Test("finish fails at once, naming the poll, when the only work left sleeps on the test store's clock")
    func finishNamesThePollAsleepOnTheClock() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self, with: [hello])
        let screen = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        let failure = try await withDeadline(30, "finish") {
            await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        }
        let message = failure?.message ?? ""
        #expect(
            message.contains("waits for the test store's clock, which only the test moves: advance the clock past it"))
        #expect(message.contains("asleep on the clock until +10.0 seconds"), "\(message)")

        screen.cancel()  // the poll calls nobody at its tick and ends; the entry is removed a minute on
        try await store.clock.run()
        #expect(store.state.cache[Feed(userID: 1)] == nil)
        try await store.finish()
    }

    @Test("finish passes once a prefetch ended, while the removal it started inside the store sleeps on the clock")
    func finishAfterAPrefetchIgnoresTheRemovalStartedInsideTheStore() async throws {
        for _ in 0..<20 {  // the prefetch's end and finish() race: every round must pass
            let store = QueryFixtures.makeStore()
            store.stub(Feed.self, with: [hello])
            queries.prefetch(Feed(userID: 1), in: store)
            try await store.finish()  // the removal, a minute on, is the cache's own work: not followed
            #expect(store.state.cache.feed(1) == [hello])
        }
    }

    @Test("the last screen leaving cancels the feed's call in flight; its answer is never applied")
    func theLastLeaveCancelsTheCall() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let home = queries.observe(Feed(userID: 1), in: store)
        let profile = queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()

        home.cancel()  // one screen still shows the feed: the call goes on
        #expect(store.state.cache[Feed(userID: 1)]?.isFetching == true)
        profile.cancel()
        #expect(store.state.cache[Feed(userID: 1)]?.isFetching == false)  // forgotten at this commit
        #expect(store.state.cache[Feed(userID: 1)]?.status == .idle)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])  // cancelled, not answered
        #expect(feeds.waitingCount == 0)
        feeds.respond(with: [hello])  // kept for a next call that never comes
        #expect(store.state.cache.feed(1) == nil)

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache[Feed(userID: 1)] == nil)
        try await store.finish()
    }

    @Test("an observation made through a screen's owner ends when the owner ends; an ended owner's at once")
    func anObservationEndsWithItsOwner() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = store.makeOwner("Feed screen")
        let feed = queries.observe(Feed(userID: 1), in: screen)
        _ = try await feeds.nextCall()

        screen.end()  // the screen closes: its observation and its fetch end with it

        #expect(feed.isCancelled)
        #expect(store.state.cache[Feed(userID: 1)]?.isFetching == false)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])  // cancelled, not answered
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache[Feed(userID: 1)] == nil)

        let late = queries.observe(Feed(userID: 1), in: screen)
        #expect(late.isCancelled, "an owner that has ended holds nothing")
        #expect(feeds.calls.count == 1, "and starts nothing")
        #expect(store.state.cache[Feed(userID: 1)] == nil, "not even an entry")
        try await store.finish()
    }

    @Test(
        "observing through an owner that has ended observes nothing, fetches nothing, and the store says what was refused"
    )
    func observingThroughAnEndedOwnerIsRefused() async throws {
        let diagnostics = CoreStore.Recorder<StoreDiagnostic>()
        let observers = LockedValue<[Int]>([])
        let store = Store(
            initialState: QueryFixtures.AppState(), reducer: queries.reducer,
            options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
        let watching = store.subscribe({ $0.cache[Feed(userID: 1)]?.observers ?? 0 }) { count in
            observers.withLock { $0.append(count) }
        }
        let screen = store.makeOwner("Feed screen")
        screen.end()

        let feed = queries.observe(Feed(userID: 1), in: screen)

        #expect(feed.isCancelled)
        #expect(store.state.cache[Feed(userID: 1)] == nil, "no entry made for it")
        #expect(observers.withLock { $0 } == [0], "no observer counted in and out")
        #expect(diagnostics.values.map(\.kind) == [.dispatchRefusedByOwner])
        #expect(diagnostics.values.first?.message.contains("Feed") == true, "it names the endpoint")
        #expect(diagnostics.values.first?.message.contains("FetchQuery") == false, "not the cache's machinery")
        watching.cancel()
    }

    @Test("a screen's owner ending leaves the one poll to the screen that still polls")
    func anOwnersEndLeavesThePollToOthers() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = store.makeOwner("Home")
        let home = queries.observe(Feed(userID: 1), polling: .seconds(10), in: screen)  // its poll claims the entry
        _ = try await feeds.nextCall()
        let profile = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)  // joins the call

        screen.end()  // home's fetch is cancelled; the call goes on for profile

        #expect(home.isCancelled)
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.clock.waitForSleepers(1)
        let callsBefore = feeds.calls.count
        await store.clock.advance(by: .seconds(10))  // the poll's tick: profile still polls
        _ = try await feeds.nextCall()
        #expect(feeds.calls.count == callsBefore + 1)
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        profile.cancel()
        try await store.clock.run()
        #expect(store.state.cache[Feed(userID: 1)] == nil)
        try await store.finish()
    }

    @Test(
        "a profile's call in flight when its last screen leaves finishes into the cache, for a screen that comes back")
    func aCallFinishesIntoTheCache() async throws {
        let store = QueryFixtures.makeStore()
        let profiles = store.hold(Profile.self)
        let screen = queries.observe(Profile(userID: 1), in: store)
        _ = try await profiles.nextCall()

        screen.cancel()
        #expect(store.state.cache[Profile(userID: 1)]?.isFetching == true)
        profiles.respond(with: "Ada")
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache[Profile(userID: 1)]?.data(as: String.self) == "Ada")

        try await store.clock.waitForSleepers(1)  // the removal, 60 s after the leave
        await store.clock.advance(by: .seconds(20))
        let back = queries.observe(Profile(userID: 1), in: store)  // fresh: shown without a call
        #expect(store.state.cache[Profile(userID: 1)]?.data(as: String.self) == "Ada")
        #expect(profiles.calls.count == 1)
        back.cancel()
        try await store.clock.waitForSleepers(2)
        await store.clock.advance(by: .seconds(40))  // the first removal is due, and finds an observer's leave since
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache[Profile(userID: 1)] != nil)
        await store.clock.advance(by: .seconds(19))
        #expect(store.state.cache[Profile(userID: 1)] != nil)
        await store.clock.advance(by: .seconds(1))  // 60 s after the second leave
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache[Profile(userID: 1)] == nil)
        try await store.finish()
    }

    @Test(
        "a profile's call in flight when its screen's owner ends finishes into the cache, as when the screen's observation ends"
    )
    func aCallFinishesIntoTheCacheWhenTheScreensOwnerEnds() async throws {
        let store = QueryFixtures.makeStore()
        let profiles = store.hold(Profile.self)
        let screen = store.makeOwner("Profile screen")
        let profile = queries.observe(Profile(userID: 1), in: screen)
        _ = try await profiles.nextCall()

        screen.end()  // the screen closes: its observation ends, and the profile's rule keeps the call

        #expect(profile.isCancelled)
        #expect(store.state.cache[Profile(userID: 1)]?.isFetching == true)
        profiles.respond(with: "Ada")
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache[Profile(userID: 1)]?.data(as: String.self) == "Ada")
        #expect(profiles.calls.count == 1)

        let back = queries.observe(Profile(userID: 1), in: store.makeOwner("Profile screen, again"))
        #expect(store.state.cache[Profile(userID: 1)]?.data(as: String.self) == "Ada", "fresh: shown without a call")
        #expect(profiles.calls.count == 1)
        back.cancel()
        try await store.clock.run()
        #expect(store.state.cache[Profile(userID: 1)] == nil)
        try await store.finish()
    }

    /// A feed whose server call starts, then waits until it is cancelled (by its store's release).
    struct FeedUntilCancelled: QueryEndpoint {
        let started: CoreStore.Latch
        var key: QueryKey { QueryKey("feed until cancelled") }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.started === rhs.started }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(started)) }
        func run(_ context: ActionContext<QueryFixtures.AppState>) async throws -> [QueryFixtures.Post] {
            started.open()
            try await CoreStore.untilCancelled()
            return []
        }
    }

    @Test(
        "a call that ends after its store was released reports nothing: the cache's own bookkeeping ends with the store"
    )
    func aCallEndingAfterTheStoreIsGoneIsSilent() async throws {
        let diagnostics = CoreStore.Recorder<StoreDiagnostic>()
        let started = CoreStore.Latch()
        let fetch: ActionTask<[QueryFixtures.Post]>
        do {
            let store = Store(
                initialState: QueryFixtures.AppState(), reducer: queries.reducer,
                options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
            fetch = queries.fetch(FeedUntilCancelled(started: started), in: store)
            try await withDeadline { try await started.wait() }
        }  // the last reference to the store goes here: its work is cancelled

        // The fetch ends once its call ended, and its bookkeeping (the call's answer, the removal of
        // an entry nobody observes) was dispatched or skipped.
        await #expect(throws: CancellationError.self) { try await withDeadline { try await fetch.value } }
        #expect(diagnostics.values.map(\.message) == [])
    }

    @Test("a call asked for on a read that an answer replaced since is served that answer: the server is called once")
    func aCallAskedOnAStaleReadIsServedTheAnswer() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let home = queries.observe(Feed(userID: 1), in: store)
        let readBeforeTheAnswer = try #require(store.state.cache[Feed(userID: 1).key]?.version)
        _ = try await feeds.nextCall()
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        // A second screen's fetch read the entry before that answer, and asks for its call only
        // now, once the call it would have joined has ended.
        var late = QueryCall(endpoint: Feed(userID: 1), basis: readBeforeTheAnswer)
        late.cacheOfUnforcedFetch = \QueryFixtures.AppState.cache
        let call = late
        let answer = try await withDeadline { try await store.dispatch(call).value }
        #expect(answer == [hello])
        #expect(store.calls(to: Feed.self) == [Feed(userID: 1)])

        home.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }

    @Test("a call for a list's pages asked for on a read that an answer replaced since is served that answer")
    func aPagesCallAskedOnAStaleReadIsServedTheAnswer() async throws {
        typealias Timeline = QueryFixtures.Timeline
        let store = QueryFixtures.makeStore()
        let timelines = store.hold(Timeline.self)
        let home = queries.observe(Timeline(), in: store)
        let readBeforeTheAnswer = try #require(store.state.cache[Timeline().key]?.version)
        #expect(try await timelines.nextCall() == Timeline(page: 0))
        timelines.respond(with: QueryFixtures.TimelinePage(posts: [hello], next: nil))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        // A second screen's fetch read the list before that answer, and asks for its call only
        // now, once the call it would have joined has ended.
        var late = QueryPagesCall(
            endpoint: Timeline(), basis: readBeforeTheAnswer, pages: .all, cache: \QueryFixtures.AppState.cache)
        late.isAskedByUnforcedFetch = true
        let call = late
        let list = try await withDeadline { try await store.dispatch(call).value }
        #expect(list.pages.flatMap(\.posts) == [hello])
        #expect(timelines.calls == [Timeline(page: 0)])

        home.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }
}
