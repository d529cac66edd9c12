import OresRedux
import OresReduxQuery
import OresReduxTesting
import Testing

/// The query cache on a store, told as the stories of issue 39: one call for two screens, fresh
/// data served without a call, answers that lose to newer writes, optimistic posts and their
/// rollback, and entries removed a minute after nobody shows them.
@Suite("Query cache: stories on a store")
struct QueryStoryTests {
    typealias Feed = QueryFixtures.Feed
    typealias AddPost = QueryFixtures.AddPost
    let queries = QueryFixtures.queries
    let hello = QueryFixtures.hello
    let first = QueryFixtures.first
    let second = QueryFixtures.second

    /// A screen observes user 1's feed, and the server answers `[hello]`.
    func screenShowingHello(_ store: TestStore<QueryFixtures.AppState>, _ feeds: HeldCalls<Feed>) async throws
        -> QueryObservation
    {
        let screen = queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        return screen
    }

    @Test("two screens showing the same feed make one call")
    func twoScreensOneCall() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let home = queries.observe(Feed(userID: 1), in: store)
        let profile = queries.observe(Feed(userID: 1), in: store)

        _ = try await feeds.nextCall()
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        // Both screens' fetches end before the screens close: the second one's task may start late on
        // a loaded machine, and a fetch that starts after the entry was collected calls again.
        try await store.finish()
        #expect(store.state.cache.feed(1) == [hello])
        #expect(store.state.cache[Feed(userID: 1).key]?.observers == 2)
        #expect(store.calls(to: Feed.self) == [Feed(userID: 1)])
        home.cancel()
        profile.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }

    @Test("a fresh entry is served without a call; once stale, a fetch calls again")
    func freshIsServedStaleCalls() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = try await screenShowingHello(store, feeds)

        let fresh = queries.fetch(Feed(userID: 1), in: store)
        #expect(try await withDeadline { try await fresh.value } == [hello])
        #expect(store.calls(to: Feed.self).count == 1)

        await store.clock.advance(by: .seconds(30))  // the staleTime
        let stale = queries.fetch(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()
        feeds.respond(with: [first, hello])
        #expect(try await withDeadline { try await stale.value } == [first, hello])
        #expect(store.state.cache.feed(1) == [first, hello])
        #expect(store.calls(to: Feed.self).count == 2)
        withExtendedLifetime(screen) {}
    }

    @Test("an answer whose call started before an invalidation is not applied; the refetch after it is")
    func anAnswerOlderThanAnInvalidationLoses() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()  // the first call is in flight...

        queries.invalidate([.tag(QueryTag("Post"))], in: store)  // ...when the feed is invalidated
        try await store.receive(QueryInvalidated.self, notAsserting: [\.cache])
        try await store.receive(QueryCallStarted.self, notAsserting: [\.cache])  // the refetch, after the commit
        _ = try await feeds.nextCall()

        feeds.respond(with: [hello])  // the first call's answer, from before the invalidation
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == nil)
        #expect(store.state.cache[Feed(userID: 1).key]?.status == .loading)

        feeds.respond(with: [first, hello])  // the refetch's
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [first, hello])
        withExtendedLifetime(screen) {}
    }

    @Test("an invalidation's run ends once the observed entries were answered, by a call it joined too")
    func anInvalidationWaitsForTheCallItJoins() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = try await screenShowingHello(store, feeds)
        // The app pulls to refresh whenever the feed turns invalid: at the invalidation's commit, so
        // its call may start before the invalidation's refetch reads the cache.
        let pullToRefresh = store.subscribe({ $0.cache[Feed(userID: 1).key]?.isInvalidated == true }) { invalid in
            if invalid { queries.refetch(Feed(userID: 1), in: store) }
        }

        let invalidation = queries.invalidate([.tag(QueryTag("Post"))], in: store)
        let shownAtTheEnd = Task {
            await invalidation.wait()
            return store.state.cache.feed(1)
        }
        _ = try await feeds.nextCall()  // one call: whichever of the two started it, the other joined
        feeds.respond(with: [first, hello])
        #expect(try await withDeadline { await shownAtTheEnd.value } == [first, hello])
        #expect(store.calls(to: Feed.self).count == 2)
        pullToRefresh.cancel()
        withExtendedLifetime(screen) {}
    }

    @Test("a receive asserts entries like state: what views see, the cache's bookkeeping left out")
    func entriesAssertedLikeState() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let key = Feed(userID: 1).key
        let screen = queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache.bookkeeping]) {
            $0.cache.shown[key]?.data = QueryValue([hello])
        }

        queries.refetch(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()
        feeds.fail(with: QueryFixtures.Offline())
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache.bookkeeping]) {
            $0.cache.shown[key]?.error = QueryError(QueryFixtures.Offline())  // the data is kept
        }

        queries.invalidate([.tag(QueryTag("Post"))], in: store)
        try await store.receive(QueryInvalidated.self, notAsserting: [\.cache.bookkeeping]) {
            $0.cache.shown[key]?.isInvalidated = true
        }
        _ = try await feeds.nextCall()
        feeds.respond(with: [first, hello])
        // An expectation that leaves out part of what changed (the error cleared, the entry valid
        // again) fails, as it would for any state.
        await #expect(throws: TestStoreFailure.self) {
            try await store.receive(QueryAnswered.self, notAsserting: [\.cache.bookkeeping]) {
                $0.cache.shown[key]?.data = QueryValue([first, hello])
            }
        }
        #expect(
            store.state.cache.shown[key]
                == QueryShownEntry(data: QueryValue([first, hello]), error: nil, isInvalidated: false, observers: 1))
        withExtendedLifetime(screen) {}
    }

    @Test("an optimistic post shows at once; a failing one is rolled back exactly, the other kept")
    func optimisticPostsAndAnExactRollback() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let posts = store.hold(AddPost.self)
        let screen = try await screenShowingHello(store, feeds)

        let failing = queries.mutate(AddPost(post: first), in: store)
        _ = try await posts.nextCall()
        #expect(store.state.cache.feed(1) == [first, hello])  // shown before the server answered
        let succeeding = queries.mutate(AddPost(post: second), in: store)
        _ = try await posts.nextCall()
        #expect(store.state.cache.feed(1) == [second, first, hello])

        posts.fail(with: QueryFixtures.Offline())  // the first post
        try await store.receive(QueryMutationFailed.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [second, hello])  // exactly its change is gone

        posts.respond(with: second)
        try await store.receive(QueryMutationSucceeded.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [second, hello])  // settled: no flicker back
        _ = try await feeds.nextCall()  // the refetch of the invalidated, observed feed
        feeds.respond(with: [second, hello])
        _ = try await withDeadline { await succeeding.wait() }
        #expect(store.state.cache.feed(1) == [second, hello])
        #expect(store.state.cache[Feed(userID: 1).key]?.optimisticChanges == [])
        await #expect(throws: QueryFixtures.Offline.self) { try await withDeadline { try await failing.value } }
        withExtendedLifetime(screen) {}
    }

    @Test("a post made before its feed was ever fetched shows on the feed's first answer while it is in flight")
    func anOptimisticChangeToAnEntryNotCachedYet() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let posts = store.hold(AddPost.self)

        let post = queries.mutate(AddPost(post: first), in: store)
        _ = try await posts.nextCall()
        #expect(store.state.cache.feed(1) == nil)  // nothing to show the change on yet
        let screen = queries.observe(Feed(userID: 1), in: store)  // the user opens the feed
        _ = try await feeds.nextCall()
        feeds.respond(with: [hello])  // the server has not stored the post yet
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [first, hello])  // the post in flight is shown

        posts.respond(with: first)
        try await store.receive(QueryMutationSucceeded.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [first, hello])
        _ = try await feeds.nextCall()  // the refetch after the post
        feeds.respond(with: [first, hello])
        _ = try await withDeadline { await post.wait() }
        #expect(store.state.cache.feed(1) == [first, hello])
        #expect(store.state.cache[Feed(userID: 1).key]?.optimisticChanges == [])
        withExtendedLifetime(screen) {}
    }

    @Test("a post to a feed nobody fetched or opened leaves no entry behind, whether it succeeds or fails")
    func anOptimisticChangeToAnEntryNobodyShowsLeavesNothing() async throws {
        let store = QueryFixtures.makeStore()
        let posts = store.hold(AddPost.self)

        let failing = queries.mutate(AddPost(post: first), in: store)
        _ = try await posts.nextCall()
        #expect(store.state.cache[Feed(userID: 1).key]?.optimisticChanges.count == 1)
        posts.fail(with: QueryFixtures.Offline())
        _ = try await withDeadline { await failing.wait() }
        #expect(store.state.cache.entries.isEmpty)

        let succeeding = queries.mutate(AddPost(post: second), in: store)
        _ = try await posts.nextCall()
        posts.respond(with: second)
        _ = try await withDeadline { await succeeding.wait() }
        #expect(store.state.cache.entries.isEmpty)
        try await store.finish()
    }

    @Test("a poll that started before a mutation committed never overwrites the mutation")
    func aPollRacingAMutationLoses() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let posts = store.hold(AddPost.self)
        let screen = try await screenShowingHello(store, feeds)

        queries.refetch(Feed(userID: 1), in: store)  // a poll; the server reads [hello]...
        _ = try await feeds.nextCall()
        let post = queries.mutate(AddPost(post: first), in: store)  // ...while a post is published
        _ = try await posts.nextCall()
        posts.respond(with: first)
        try await store.receive(QueryMutationSucceeded.self, notAsserting: [\.cache])
        _ = try await feeds.nextCall()  // the refetch, started after the mutation's commit

        feeds.respond(with: [hello])  // the poll's answer arrives late
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [first, hello])  // the post is still there

        feeds.respond(with: [first, hello])
        _ = try await withDeadline { await post.wait() }
        #expect(store.state.cache.feed(1) == [first, hello])
        #expect(store.state.cache[Feed(userID: 1).key]?.optimisticChanges == [])
        withExtendedLifetime(screen) {}
    }

    @Test("an entry is removed 60 s after its last observer left, on the store's clock, unless observed again")
    func entriesLiveWhileObserved() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self, with: [hello])
        let screen = queries.observe(Feed(userID: 1), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        screen.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(59))
        #expect(store.state.cache.feed(1) == [hello])
        let back = queries.observe(Feed(userID: 1), in: store)  // stale by now: refetched
        await store.clock.advance(by: .seconds(1))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [hello])  // kept: observed again

        back.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache[Feed(userID: 1).key] == nil)
        #expect(store.calls(to: Feed.self).count == 2)
        try await store.finish()
    }

    @Test("a prefetched feed is shown at once when its screen comes, and removed if it never does")
    func prefetchedEntries() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self) { feed in [QueryFixtures.Post(id: feed.userID, text: "of \(feed.userID)")] }
        queries.prefetch(Feed(userID: 1), in: store)
        queries.prefetch(Feed(userID: 2), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.clock.waitForSleepers(2)  // each kept for 60 s unless observed

        let screen = queries.observe(Feed(userID: 1), in: store)  // fresh: shown without a call
        #expect(store.state.cache.feed(1) == [QueryFixtures.Post(id: 1, text: "of 1")])
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [QueryFixtures.Post(id: 1, text: "of 1")])
        #expect(store.state.cache[Feed(userID: 2).key] == nil)
        #expect(store.calls(to: Feed.self).count == 2)

        screen.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }

    @Test("a view that reads one entry is not redrawn when another entry changes")
    func aViewOfOneEntry() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self) { feed in [QueryFixtures.Post(id: feed.userID, text: "of \(feed.userID)")] }
        let one = queries.observe(Feed(userID: 1), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        let shown = CoreStore.Recorder<QueryEntry?>()
        let view = store.subscribe({ $0.cache[Feed(userID: 1).key] }) { shown.record($0) }

        let two = queries.observe(Feed(userID: 2), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        let invalidation = queries.invalidate([.keyPrefix(Feed(userID: 2).key)], in: store)
        _ = try await withDeadline { await invalidation.wait() }  // user 2's feed refetched

        #expect(shown.values.count == 1)  // called at once, never again
        #expect(store.calls(to: Feed.self) == [Feed(userID: 1), Feed(userID: 2), Feed(userID: 2)])
        withExtendedLifetime((one, two, view)) {}
    }

    @Test("a screen polls its feed every 10 s while it is shown, and not after it left")
    func pollingWhileObserved() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self, with: [hello])
        let screen = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(10))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(10))
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.calls(to: Feed.self).count == 3)

        screen.cancel()
        try await store.clock.waitForSleepers(2)  // the entry's removal, and the poll's tick that ends it
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        #expect(store.calls(to: Feed.self).count == 3)
        try await store.finish()
    }

    @Test("each call says why it was made, in its action and on its entry")
    func eachCallSaysWhy() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self, with: [hello])
        func nextReason() async throws -> QueryCallReason {
            try await store.receive(QueryCallStarted.self, notAsserting: [\.cache]).reason
        }
        func answered() async throws { try await store.receive(QueryAnswered.self, notAsserting: [\.cache]) }

        let screen = queries.observe(Feed(userID: 1), polling: .seconds(10), in: store)
        #expect(try await nextReason() == .observed)
        try await answered()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(10))
        #expect(try await nextReason() == .poll)
        try await answered()

        queries.refetch(Feed(userID: 1), in: store)
        #expect(try await nextReason() == .refetch)
        try await answered()
        queries.invalidate([.tag(QueryTag("Post"))], in: store)
        #expect(try await nextReason() == .invalidated)
        try await answered()
        #expect(store.state.cache[Feed(userID: 1).key]?.lastCallReason == .invalidated)

        screen.cancel()
        let other = queries.observe(Feed(userID: 2), in: store)
        #expect(try await nextReason() == .observed)
        try await answered()
        await store.clock.advance(by: .seconds(30))  // the feed's staleTime
        queries.refetchStale(in: store)
        #expect(try await nextReason() == .appSignal)
        try await answered()
        queries.prefetch(Feed(userID: 3), in: store)
        #expect(try await nextReason() == .prefetch)
        try await answered()
        other.cancel()
    }

    @Test("on the app's signal, only the observed entries that are stale are refetched")
    func theAppsSignalRefetchesWhatIsStale() async throws {
        let store = QueryFixtures.makeStore()
        store.stub(Feed.self) { feed in [QueryFixtures.Post(id: feed.userID, text: "of \(feed.userID)")] }
        let one = queries.observe(Feed(userID: 1), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        await store.clock.advance(by: .seconds(20))
        let two = queries.observe(Feed(userID: 2), in: store)
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        await store.clock.advance(by: .seconds(15))  // user 1's feed is stale, user 2's is not

        try await withDeadline { try await queries.refetchStale(in: store).value }
        #expect(store.calls(to: Feed.self) == [Feed(userID: 1), Feed(userID: 2), Feed(userID: 1)])
        withExtendedLifetime((one, two)) {}
    }

    @Test("clearing everything discards the calls in flight")
    func clearingDiscardsCallsInFlight() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()

        queries.clear(in: store)  // log-out
        feeds.respond(with: [hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        let entry = store.state.cache[Feed(userID: 1).key]
        #expect(entry?.data == nil)
        #expect(entry?.status == .idle)
        #expect(entry?.observers == 1)
        withExtendedLifetime(screen) {}
    }
}
