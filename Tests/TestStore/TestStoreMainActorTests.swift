import OresRedux
import OresReduxTesting
import Testing
import XCTest

/// Main-actor state a screen would own: what the test compares against, read in assertion closures.
@MainActor
final class HomeScreen {
    var greeting = "hi"
    var feedRequests = 0
}

/// Issue 13: a `@MainActor` test uses `receive` with closures that touch main-actor state.
@MainActor
@Suite("TestStore from the main actor")
struct TestStoreMainActorTests {
    typealias App = HomeApp

    @Test("A main-actor test stubs, sends and receives with closures that read main-actor state")
    func mainActorTest() async throws {
        let screen = HomeScreen()
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self) { @MainActor _, _ in
            screen.feedRequests += 1
            return [App.Post(id: screen.feedRequests)]
        }
        store.dispatch(App.home(user: "ada").graph)

        try store.send(App.ShowError(message: screen.greeting)) { $0.error = screen.greeting }
        try await store.receive(App.SetToken.self) { $0.token = "t" }
        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: "Ada")
            $0.feed = [App.Post(id: screen.feedRequests)]
        }
        #expect(screen.feedRequests == 1)
        try await store.finish()
    }
}

/// The same story under XCTest, on the main actor.
@MainActor
final class TestStoreXCTestCase: XCTestCase {
    typealias App = HomeApp

    func testHomeLoadsOnTheMainActor() async throws {
        let screen = HomeScreen()
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        store.stub(App.LogIn.self, with: "t")
        store.stub(App.FetchProfile.self, with: App.Profile(name: "Ada"))
        store.stub(App.FetchFeed.self, with: [])
        store.dispatch(App.home(user: "ada").graph)

        try await store.receive(App.SetToken.self) { $0.token = "t" }
        try await store.receive(App.ShowHome.self) {
            $0.profile = App.Profile(name: screen.greeting == "hi" ? "Ada" : "?")
        }
        try await store.finish()
    }

    func testAFailureCarriesTheTestLine() async throws {
        let store = TestStore(initialState: App.State(), reducer: App.reducer)
        let line = #line + 2
        do {
            try store.send(App.SetToken(token: "a")) { $0.token = "b" }
            XCTFail("expected a failure")
        } catch let failure as TestStoreFailure {
            XCTAssertEqual(failure.line, line)
            XCTAssertTrue(failure.filePath.hasSuffix("TestStoreMainActorTests.swift"))
        }
    }
}
