import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/InspectingARecording.md.

extension GuideApp {
    @Suite("Guide: Inspecting a Recording")
    struct InspectingARecordingGuide {
        static func trendingGraph() -> ActionGraph<AppState> { RunEventsGuide.trendingGraph() }

        @Test("InspectingARecording guide: redact, record, write the page; the exports come from Swift")
        func recordAndWrite() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            var options = InspectorOptions<AppState>()
            options.redactFields("password", "token")  // any field so named: actions, states, responses
            options.redact(\.session, with: nil)  // a part of the state, by key path
            options.redactActions { action in  // any sync action, by a closure
                action is SignedIn ? SignedIn(session: Session(token: "•••")) : action
            }

            let inspector = InspectorRecorder<AppState>(options: options)
            let store = Store(
                initialState: AppState(), reducer: appReducer,
                middleware: [inspector.middleware], options: inspector.storeOptions())

            await store.dispatch(Self.trendingGraph()).wait()  // log in, then trending posts: the server is down
            let url = directory.appendingPathComponent("recording.html")
            try inspector.writeHTML(to: url)

            let page = try String(contentsOf: url, encoding: .utf8)
            #expect(page.hasPrefix("<!DOCTYPE html>"))
            #expect(!page.contains("secret"), "the password never reaches the page")
            #expect(inspector.recording.actionTypes == ["ShowBanner"])

            let recording = inspector.recording
            let devTools = recording.reduxDevToolsJSON()  // Redux DevTools' lifted state
            let test = recording.generatedTest(
                named: "homeNeverShows", reducer: "appReducer", initialState: "AppState()",
                graph: { _, _ in "trendingGraph()" })

            #expect(devTools.contains(#""type":"PERFORM_ACTION""#))
            #expect(
                test == """
                    import OresRedux
                    import OresReduxTesting
                    import Testing

                    @Test func homeNeverShows() async throws {
                        let store = TestStore(initialState: AppState(), reducer: appReducer)
                        store.stub(LogIn.self, with: Session(token: <#redacted#>))
                        store.stub(FetchTrending.self, throwing: Offline())
                        store.dispatch(trendingGraph())
                        try await store.receive(ShowBanner.self) { $0.banner = "could not load trending posts" }
                        try await store.finish()
                    }

                    """)
        }
    }
}
