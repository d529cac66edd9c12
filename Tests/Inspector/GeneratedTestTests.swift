import Foundation
import OresRedux
import Testing

@testable import OresRedux
@testable import OresReduxTesting

/// "Generate a test": a recording becomes Swift Testing code for a `TestStore`. The code below, in
/// `GeneratedReplay`, is the generator's output pasted as is; the first test checks that it still is,
/// and Swift compiles and runs it against the app's reducer.
@Suite("Inspector generated test")
struct GeneratedTestTests {
    @Test("the generated test is the one pasted below, which compiles and passes")
    func generatedTextIsPastedBelow() async throws {
        let recording = try await InspectorApp.record(graph: InspectorApp.plainGraph()).inspector.recording
        let generated = recording.generatedTest(
            named: "replaysTheRecordedLogIn", reducer: "reducer", initialState: "AppState()",
            graph: { _, _ in "plainGraph()" })

        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let pasted = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let lines = generated.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("import ") && !$0.isEmpty }
        let start = try #require(pasted.firstIndex(of: lines[0]), "the generated test is pasted in this file")
        #expect(Array(pasted[start..<min(pasted.count, start + lines.count)]) == lines)
        #expect(generated.hasPrefix("import OresRedux\nimport OresReduxTesting\nimport Testing\n"))
        #expect(generated.contains("store.stub(LogIn.self, with: Session(token: \"t-ada\"))"))
    }

    @Test("a node retried after failing is answered with its last answer, and says so")
    func retriedNode() async throws {
        let recording = try await InspectorApp.record().inspector.recording
        let generated = recording.generatedTest()
        // The profile and the feed run in parallel: their calls are held and answered in order.
        #expect(
            generated.contains(
                #"fetchFeedCalls.respond(with: [Post(id: 1, text: "hello"), Post(id: 2, text: "world")])"#))
        #expect(
            generated.contains("// FetchFeed: 1 earlier tries failed; the recording keeps each node's last answer only")
        )
        #expect(generated.contains("// run #1 was dispatched here: store.dispatch(<its graph: LogIn, SignedIn, "))
    }
}

extension InspectorApp {
    /// The generator's output for `plainGraph()`'s story, pasted (see `GeneratedTestTests`).
    @Suite("Inspector generated test, pasted")
    struct GeneratedReplay {
        @Test func replaysTheRecordedLogIn() async throws {
            let store = TestStore(initialState: AppState(), reducer: reducer)
            store.stub(LogIn.self, with: Session(token: "t-ada"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            try store.send(StartLoading()) { $0.screen = .loading }
            store.dispatch(plainGraph())
            try await store.receive(SignedIn.self) { $0.session = Session(token: "t-ada") }
            try await store.receive(ShowHome.self) {
                $0.screen = .home(user: "Ada")
                $0.profile = Profile(name: "Ada")
            }
            try store.send(AddPost(post: Post(id: 3, text: "middle"), at: 1)) {
                $0.feed = [Post(id: 3, text: "middle")]
            }
            try store.send(RemovePost(id: 1))
            try store.send(Tag(name: "swift", count: 2)) { $0.tags = ["swift": 2] }
            try store.send(Nothing())
            try await store.finish()
        }
    }
}
