import OresRedux
import OresReduxTesting
import Testing

/// `send` and `receive` with `notAsserting:`: the parts named are taken as the action left them;
/// the rest of the state is checked as always.
@Suite("TestStore: leaving parts of the state unasserted")
struct TestStoreNotAssertingTests {
    typealias App = HomeApp

    @Test("a part left unasserted may hold anything; the rest is still checked")
    func sendNotAsserting() throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        try store.send(App.ShowError(message: "offline"), notAsserting: [\.error])

        let failure = #expect(throws: TestStoreFailure.self) {
            try store.send(App.ShowError(message: "again"), notAsserting: [\.feed]) { $0.error = "other" }
        }
        #expect(failure?.message.contains("error") == true)
    }

    @Test("receive leaves the named parts unasserted, nested paths included")
    func receiveNotAsserting() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [App.Post(id: 1)])
        store.dispatch(App.home(user: "ada").graph)

        try await store.receive(App.SetToken.self, notAsserting: [\.token])
        try await store.receive(App.ShowHome.self, notAsserting: [\.feed[0]]) {
            $0.profile = App.Profile(name: "Ada")
            $0.feed = [App.Post(id: 2)]  // the first post is left unasserted, the count is not
        }
        try await store.finish()
    }

    @Test("a key path that is not writable is a failure that says so, not a pass")
    func readOnlyKeyPath() throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        let failure = #expect(throws: TestStoreFailure.self) {
            try store.send(App.ShowError(message: "offline"), notAsserting: [\.feed.count]) { $0.error = "offline" }
        }
        #expect(failure?.message.contains("not a writable key path") == true)
    }
}
