import OresRedux
import OresReduxTesting
import Testing

// The snippets of OresReduxTesting/OresReduxTesting.docc (the guide and the landing page) and of the README's section
// "Testing the order of things".

extension GuideApp {
    // The guide's own types.

    @MainActor
    final class WelcomeScreen {
        var greeting = "welcome"
    }

    final class HomeModel<S: StoreProtocol<AppState>>: Sendable {
        let store: S
        init(store: S) { self.store = store }

        var title: String { store.state.profile?.name ?? "Signing in…" }
        func appear() { store.dispatch(homeGraph().graph) }
    }
}

extension TestStoreFailure {
    var sourceLocation: SourceLocation {
        SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension GuideApp {
    @Suite("Guide: Testing with TestStore")
    struct TestingWithTestStoreGuide {
        @Test("OresReduxTesting landing page: counts up")
        func countsUp() async throws {
            let store = TestStore(
                initialState: 0,
                reducer: .on(Increment.self) { count, action in
                    count += action.amount
                })
            try store.send(Increment(amount: 2)) { $0 = 2 }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: home loads after log in, profile and feed fetched with the token")
        func homeLoadsAfterLogIn() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self) { action in Profile(name: "Ada (\(action.token))") }
            store.stub(FetchFeed.self, with: [Post(id: 1)])

            store.dispatch(homeGraph().graph)

            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            try await store.receive(ShowHome.self) {
                $0.profile = Profile(name: "Ada (t1)")
                $0.feed = [Post(id: 1)]
            }
            #expect(store.calls(to: FetchFeed.self) == [FetchFeed(token: "t1")])
            try await store.finish()  // nothing left unasserted, no stub missing, every run ended
        }

        @Test("README: home shows profile and feed after log in")
        func homeShowsProfileAndFeedAfterLogIn() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self) { action in Profile(name: "Ada (\(action.token))") }
            store.stub(FetchFeed.self, with: [Post(id: 1)])

            store.dispatch(homeGraph().graph)

            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            try await store.receive(ShowHome.self) {
                $0.profile = Profile(name: "Ada (t1)")
                $0.feed = [Post(id: 1)]
            }
            try await store.finish()  // nothing left unasserted, no stub missing, every run ended
        }

        @Test("README: a slow feed times out in virtual time")
        func aSlowFeedTimesOutInVirtualTime() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            let feed = store.hold(FetchFeed.self)  // never answers until told to

            let home = homeGraph()  // the feed has a 30 s timeout
            let run = store.dispatch(home.graph)
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            _ = try await feed.nextCall()
            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .seconds(30))  // microseconds, not 30 seconds

            try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
            try await store.assertSkipped(home.home, in: run, because: home.feed)
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: a wrong expectation throws a field-by-field diff")
        func wrongExpectationShowsADiff() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self) { action in Profile(name: "Ada (\(action.token))") }
            store.stub(FetchFeed.self, with: [Post(id: 1)])
            store.dispatch(homeGraph().graph)
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }

            let failure = await #expect(throws: TestStoreFailure.self) {
                try await store.receive(ShowHome.self) {
                    $0.profile = Profile(name: "Bob")
                    $0.feed = [Post(id: 1)]
                }
            }
            let message = failure?.message ?? ""
            #expect(message.hasPrefix("state after ShowHome differs from the expected state:"))
            #expect(message.contains(#"profile.name: expected "Bob", actual "Ada (t1)""#))
            #expect(!message.contains("feed"))
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: a held log-in waits until the test answers it; send checks its own action")
        func holdingACall() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])

            let logIns = store.hold(LogIn.self)
            store.dispatch(homeGraph().graph)

            let call = try await logIns.nextCall()  // the action that was called, to check its fields
            #expect(call.user == "ada")
            await #expect(throws: TestStoreFailure.self) { try await store.finish() }  // a held call waits
            logIns.respond(with: Session(token: "late"))  // or logIns.fail(with: Offline())
            try store.send(ShowBanner(message: "signing in…")) { $0.banner = "signing in…" }

            try await store.receive(SignedIn.self) { $0.session = Session(token: "late") }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: a held log-in never answered fails instead of hanging")
        func aHeldLogInNeverAnsweredFailsInsteadOfHanging() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.timeout = .milliseconds(500)  // for every wait of this store
            _ = store.hold(LogIn.self)
            store.dispatch(homeGraph().graph)

            let failure = await #expect(throws: TestStoreFailure.self) {
                try await store.receive(SignedIn.self, timeout: .milliseconds(100))  // or for one wait
            }
            #expect(failure?.message.contains("held call not answered: 1 x LogIn") == true)
            #expect(
                failure?.message.contains("waited 0.1 s to receive SignedIn, but it did not reach the reducer") == true)
            #expect(
                failure?.message.contains(
                    "run 1: LogIn (async, running), SignedIn (sync, waiting), FetchProfile (async, waiting)") == true)
            #expect(failure?.message.contains("nothing asleep on the clock (now +0.0 seconds)") == true)
        }

        @Test("TestingWithTestStore guide: an async stub sees the action and its context")
        func asyncStub() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self) { action, context in
                context.dispatch(ShowBanner(message: "loading for \(context.state.session?.token ?? "nobody")"))
                return [Post(id: 1)]
            }
            // The feed waits for SignedIn here: in the home graph both follow the log-in, and a sync
            // node and an async node released together are not ordered against each other.
            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            let signedIn = graph.send(after: session) { session in SignedIn(session: session) }
            graph.run(after: session, signedIn) { session, _ in FetchFeed(token: session.token) }
            store.dispatch(graph)

            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            try await store.receive(ShowBanner.self) { $0.banner = "loading for t1" }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: a timeout and its back-off within one advance")
        func aTimeoutAndItsBackOffWithinOneAdvance() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            let feeds = store.hold(FetchFeed.self)
            var home = homeGraph()  // the feed times out after 30 s
            home.graph.setRetry(.retry(1, backoff: .constant(.seconds(2))), for: home.feed)
            store.dispatch(home.graph)
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t") }
            _ = try await feeds.nextCall()

            try await store.clock.waitForSleepers(1)  // the first attempt's 30 s timeout
            await store.clock.advance(by: .seconds(32))  // times out at 30 s, retries at 32 s
            _ = try await feeds.nextCall()
            feeds.respond(with: [Post(id: 2)])

            try await store.receive(ShowHome.self) {
                $0.profile = Profile(name: "Ada")
                $0.feed = [Post(id: 2)]
            }
            try await store.finish()
        }

        @MainActor
        @Test("TestingWithTestStore guide: a test on the main actor")
        func homeFromTheMainActor() async throws {
            let screen = WelcomeScreen()
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self) { @MainActor _, _ in Session(token: screen.greeting) }
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])
            store.dispatch(homeGraph().graph)

            try await store.receive(SignedIn.self) { $0.session = Session(token: screen.greeting) }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: one view model, either store")
        func homeModelOnATestStore() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])
            let model = HomeModel(store: store)  // in the app: HomeModel(store: appStore)

            model.appear()
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t") }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }
            #expect(model.title == "Ada")
            try await store.finish()

            let appStore = Store(initialState: AppState(), reducer: appReducer)
            let live = HomeModel(store: appStore)  // the same model on the app's store
            #expect(live.title == "Signing in…")
        }

        @Test("TestingWithTestStore guide: a failure's source location for Issue.record")
        func failureLocation() throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            do {
                try store.send(Increment()) { $0.count = 2 }
                Issue.record("expected a failure")
            } catch let failure as TestStoreFailure {
                #expect(failure.sourceLocation.line == #line - 3)
                #expect(failure.sourceLocation.fileID == "OresReduxTests/TestingWithTestStoreGuideTests.swift")
            }
        }

        @Test("TestingWithTestStore guide: graph facts, the order of actions and why a node was skipped")
        func graphFacts() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])
            let good = store.dispatch(homeGraph().graph)
            _ = try await withDeadline { await good.wait() }

            try store.assertReached(ShowHome.self, after: SignedIn.self)
            #expect(throws: TestStoreFailure.self) { try store.assertReached(SignedIn.self, after: ShowHome.self) }
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }

            store.stub(FetchFeed.self, throwing: Offline())
            let home = homeGraph()
            let run = store.dispatch(home.graph)
            try await store.assertSkipped(home.home, in: run, because: home.feed)
            try await store.receive(SignedIn.self)  // the same session again: no change
            try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: non-exhaustive mode asserts only what the test cares about")
        func nonExhaustive() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer, exhaustivity: .off)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [Post(id: 3)])
            store.dispatch(homeGraph().graph)

            try await store.receive(ShowHome.self) {
                $0.session = Session(token: "t1")  // SignedIn was skipped, its change is still there
                $0.profile = Profile(name: "Ada")
                $0.feed = [Post(id: 3)]
            }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: a part of the state left unasserted")
        func homeWithAnUnknownToken() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self) { action in Session(token: "\(action.user)-\(Int.random(in: 1...9))") }
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [Post(id: 1)])
            store.dispatch(homeGraph().graph)

            try await store.receive(SignedIn.self, notAsserting: [\.session])
            try await store.receive(ShowHome.self) {
                $0.profile = Profile(name: "Ada")
                $0.feed = [Post(id: 1)]
            }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: finish() after the test moved the clock past a debounce")
        func finishAfterTheDebounce() async throws {
            typealias SearchState = SearchGuideApp.SearchState
            typealias Search = SearchGuideApp.Search
            typealias SetResults = SearchGuideApp.SetResults
            typealias SearchID = SearchGuideApp.SearchID
            let searchReducer = SearchGuideApp.searchReducer
            let searchGraph = SearchGuideApp.searchGraph

            let store = TestStore(initialState: SearchState(), reducer: searchReducer)
            store.stub(Search.self) { search in ["\(search.text) 1"] }
            store.dispatch(searchGraph("ore"), id: SearchID.search, policy: .debounce(.milliseconds(300)))

            try await store.clock.waitForSleepers(1)  // the debounce sleeps on the test's clock...
            await store.clock.advance(by: .milliseconds(300))  // ...until the test moves it
            try await store.receive(SetResults(results: ["ore 1"])) { $0.results = ["ore 1"] }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: finish() with a debounce pending fails, naming the sleeper")
        func finishWithADebouncePendingFails() async throws {
            let store = TestStore(initialState: SearchGuideApp.SearchState(), reducer: SearchGuideApp.searchReducer)
            store.stub(SearchGuideApp.Search.self) { search in ["\(search.text) 1"] }
            store.dispatch(
                SearchGuideApp.searchGraph("ore"), id: SearchGuideApp.SearchID.search,
                policy: .debounce(.milliseconds(300)))

            let failure = await #expect(throws: TestStoreFailure.self) {
                try await store.finish(timeout: .milliseconds(200))
            }
            #expect(failure?.message.contains("asleep on the clock until +0.3 seconds") == true)

            store.cancel(id: SearchGuideApp.SearchID.search)  // or: drop the pending search
            try await store.finish()
            #expect(store.calls(to: SearchGuideApp.Search.self).isEmpty)
        }
    }
}
