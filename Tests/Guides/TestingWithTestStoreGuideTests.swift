import Testing
import OresRedux

// The snippets of Sources/OresRedux.docc/TestingWithTestStore.md.

extension GuideApp {
    @Suite("Guide: Testing with TestStore")
    struct TestingWithTestStoreGuide {
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
            try await store.finish()      // nothing left unasserted, no stub missing, every run ended
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

        @Test("TestingWithTestStore guide: a held log-in waits until the test answers it")
        func holdingACall() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])

            let logIns = store.hold(LogIn.self)
            store.dispatch(homeGraph().graph)

            let call = try await logIns.nextCall()              // the action that was called, to check its fields
            #expect(call.user == "ada")
            await #expect(throws: TestStoreFailure.self) { try await store.finish() }   // a held call waits
            try store.send(ShowBanner(message: "signing in…")) { $0.banner = "signing in…" }
            logIns.respond(with: Session(token: "late"))    // or logIns.fail(with: Offline())

            try await store.receive(SignedIn.self) { $0.session = Session(token: "late") }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }
            try await store.finish()
        }

        @Test("TestingWithTestStore guide: graph facts, the order of actions and why a node was skipped")
        func graphFacts() async throws {
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t1"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            store.stub(FetchFeed.self, with: [])
            let good = store.dispatch(homeGraph().graph)
            _ = await good.wait()

            try store.assertReached(ShowHome.self, after: SignedIn.self)
            #expect(throws: TestStoreFailure.self) { try store.assertReached(SignedIn.self, after: ShowHome.self) }
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t1") }
            try await store.receive(ShowHome.self) { $0.profile = Profile(name: "Ada") }

            store.stub(FetchFeed.self, throwing: Offline())
            let home = homeGraph()
            let run = store.dispatch(home.graph)
            try await store.assertSkipped(home.home, in: run, because: home.feed)
            try await store.receive(SignedIn.self)       // the same session again: no change
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
                $0.session = Session(token: "t1")       // SignedIn was skipped, its change is still there
                $0.profile = Profile(name: "Ada")
                $0.feed = [Post(id: 3)]
            }
            try await store.finish()
        }
    }
}
