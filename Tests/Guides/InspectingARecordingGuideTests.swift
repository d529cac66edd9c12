import Foundation
import OresRedux
import OresReduxTesting
import Testing

@testable import OresRedux

// The snippets of Sources/OresRedux.docc/SeeingWhatHappened/InspectingARecording.md.

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

        @Test("InspectingARecording guide: the limits are options; a large export is written from Swift")
        func limitsAndExport() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            var options = InspectorOptions<AppState>()
            options.maximumSteps = 50_000  // 10,000 by default
            options.maximumStringLength = 64 * 1_024  // characters; 1,048,576 by default
            options.maximumDepth = 16  // levels of values; 64 by default

            #expect(InspectorOptions<AppState>().maximumSteps == 10_000)
            #expect(InspectorOptions<AppState>().maximumStringLength == 1_048_576)
            #expect(InspectorOptions<AppState>().maximumDepth == 64)
            let inspector = InspectorRecorder<AppState>(options: options)
            let store = Store(
                initialState: AppState(), reducer: appReducer,
                middleware: [inspector.middleware], options: inspector.storeOptions())
            _ = try await withDeadline { await store.dispatch(Self.trendingGraph()).wait() }

            let url = directory.appendingPathComponent("recording.devtools.json")
            try inspector.recording.writeReduxDevToolsJSON(to: url)
            #expect(try String(contentsOf: url, encoding: .utf8) == inspector.recording.reduxDevToolsJSON())
        }

        /// The guide's depth example: two levels a node, so the default shows 32 nodes deep.
        struct Node: Sendable { var children: [Node] }

        @Test("InspectingARecording guide: depth counts levels of values, two a node of a tree")
        func depthInLevels() {
            var node = Node(children: [])
            for _ in 0..<40 { node = Node(children: [node]) }
            var value = InspectorValue(describing: node)
            var nodes = 0
            while case .structure(_, let fields) = value, case .collection(_, let elements) = fields[0].value,
                let child = elements.first
            {
                nodes += 1
                value = child
            }
            #expect(nodes == 32, "32 nodes shown: the 33rd is cut")
            #expect(value == .truncated(type: "Node"))
        }
    }
}
