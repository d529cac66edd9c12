import OresRedux
import OresReduxTesting
import Testing

/// Issue 13: `send` asserts the action it sent, whatever other threads apply meanwhile.
@Suite("TestStore: send checks its own action")
struct TestStoreSendTests {
    typealias App = HomeApp

    @Test("Answering a held log-in, then sending, checks the sent action even as the graph's nodes land; 1,000 times")
    func heldCallThenSendThousandTimes() async throws {
        for round in 1...1_000 {
            let store = TestStore(initialState: App.State(), reducer: App.reducer)
            let logIn = store.hold(App.LogIn.self)
            store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
            store.stub(App.FetchFeed.self, with: [])
            store.dispatch(App.home(user: "ada").graph)
            do {
                _ = try await logIn.nextCall()
                logIn.respond(with: "t")
                try store.send(App.ShowError(message: "hi")) { $0.error = "hi" }  // SetToken may land first, or not

                try await store.receive(App.SetToken.self) { $0.token = "t" }
                try await store.receive(App.ShowHome.self) { $0.profile = App.Profile(name: "Ada") }
                try await store.finish()
            } catch {
                Issue.record("round \(round): \(error)")
                return
            }
        }
    }

    @Test("Sending while two parallel fetches release their nodes on other threads; 1,000 times")
    func concurrentNodesThousandTimes() async throws {
        for round in 1...1_000 {
            let store = TestStore(initialState: App.State(), reducer: App.reducer)
            store.stub(App.LogIn.self, with: "t")
            store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
            store.stub(App.FetchFeed.self, with: [App.Post(id: round)])
            store.dispatch(App.home(user: "ada").graph)
            do {
                try store.send(App.ShowError(message: "first")) { $0.error = "first" }
                try store.send(App.ShowError(message: "second")) { $0.error = "second" }
                try await store.receive(App.SetToken.self) { $0.token = "t" }
                try await store.receive(App.ShowHome.self) {
                    $0.profile = App.Profile(name: "Ada")
                    $0.feed = [App.Post(id: round)]
                }
                try await store.finish()
            } catch {
                Issue.record("round \(round): \(error)")
                return
            }
        }
    }

    @Test(
        "send checks what a middleware replaced its action with, and leaves what the middleware dispatched for receive")
    func sendWithMiddleware() async throws {
        struct Shout: Action { var text: String }
        let loud = Middleware<App.State> { action, context, next in
            if let shout = action as? Shout {
                next(App.ShowError(message: shout.text.uppercased()))
                context.dispatch(App.SetToken(token: "after \(shout.text)"))
            } else {
                next(action)
            }
        }
        let store = TestStore(initialState: App.State(), reducer: App.reducer, middleware: [loud])

        try store.send(Shout(text: "hi")) { $0.error = "HI" }
        try await store.receive(App.SetToken.self) { $0.token = "after hi" }
        try await store.finish()
    }

    @Test("send fails, naming the action, when a middleware drops it")
    func droppedActionFails() throws {
        let drop = Middleware<App.State> { _, _, _ in }
        let store = TestStore(initialState: App.State(), reducer: App.reducer, middleware: [drop])
        let failure = #expect(throws: TestStoreFailure.self) { try store.send(App.SetToken(token: "x")) }
        #expect(failure?.message.contains("SetToken was sent but did not reach the reducer") == true)
    }
}
