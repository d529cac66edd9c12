import OresRedux
import OresReduxTesting
import Testing

/// A test says what closing a screen did: which nodes its owner's end cancelled and which went on,
/// and `finish()` names work that outlived its owner with no policy that allows it.
@Suite("TestStore: what closing a screen did")
struct TestStoreOwnerTests {
    typealias AppState = OwnerStories.AppState
    typealias Gate = OwnerStories.Gate
    typealias Note = OwnerStories.Note
    typealias Call = OwnerStories.Call<AppState>

    static func makeStore() -> TestStore<AppState> {
        let store = TestStore(initialState: AppState(), reducer: OwnerStories.reducer, exhaustivity: .off)
        store.runForReal(Call.self)
        return store
    }

    @Test("closing the log-in screen: the feed and home were cancelled, the profile went on")
    func closingTheLogInScreen() async throws {
        let store = Self.makeStore()
        let owner = store.makeOwner("Log-in screen")
        let (profileGate, feedGate) = (Gate(), Gate())
        var graph = ActionGraph<AppState>()
        let profile = graph.run(Call("profile", profileGate))
        let feed = graph.run(Call("feed", feedGate))
        let home = graph.send(after: profile, feed) { profile, feed in Note("home \(profile) \(feed)") }
        graph.setOwnerEndPolicy(.finish, for: profile)
        let run = owner.dispatch(graph)
        try await withDeadline {
            await profileGate.arrivals(1)
            await feedGate.arrivals(1)
        }

        owner.end()

        try store.assertOwnerEnd(of: run, cancelled: feed, home, wentOn: profile)
        #expect(throws: TestStoreFailure.self) {
            try store.assertOwnerEnd(of: run, cancelled: profile)
        }
        profileGate.open()
        try await store.finish()
        #expect(store.state.applied.isEmpty)
    }

    @Test("finish names an async action that finished after its owner ended")
    func finishNamesWorkThatOutlivedItsOwner() async throws {
        struct Stubborn: AsyncAction {
            let gate: Gate
            func run(_ context: ActionContext<AppState>) async throws -> String {
                try? await gate.pass()  // ignores its cancellation
                return "done anyway"
            }
        }
        let store = Self.makeStore()
        store.runForReal(Stubborn.self)
        let owner = store.makeOwner("Screen")
        let gate = Gate()
        owner.dispatch(Stubborn(gate: gate))
        try await withDeadline { await gate.arrivals(1) }
        owner.end()
        let failure = await #expect(throws: TestStoreFailure.self) { try await store.finish() }
        #expect(failure?.message.contains("Stubborn of the owner \"Screen\"") == true)
    }
}
