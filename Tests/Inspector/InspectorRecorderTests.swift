import Foundation
import OresRedux
import Testing

@testable import OresRedux

/// The inspector's recorder: what a person chasing "why did home never show?" needs to find in the
/// page, recorded as steps, patches and runs.
@Suite("Inspector recorder")
struct InspectorRecorderTests {
    typealias App = InspectorApp

    /// Where the browser tests want the pages written (`.ci/inspector-browser-test.py` sets it).
    static func writeForBrowser(_ recording: InspectorRecording, _ name: String, title: String) throws {
        guard let directory = ProcessInfo.processInfo.environment["INSPECTOR_PAGES_DIR"] else { return }
        try recording.writeHTML(to: URL(fileURLWithPath: directory).appendingPathComponent(name), title: title)
    }

    @Test("each action that reached the reducer is a step; its patches rebuild every state")
    func stepsAndPatches() async throws {
        let (inspector, final) = try await App.record()
        let recording = inspector.recording

        #expect(
            recording.actionTypes == [
                "StartLoading", "SignedIn", "ShowHome", "AddPost", "RemovePost", "Tag", "Nothing",
            ])
        #expect(recording.states.last == InspectorValue(describing: final))
        #expect(recording.steps.last?.patch.isEmpty == true, "Nothing changed nothing")
        try Self.writeForBrowser(recording, "story.html", title: "Inspector story")
    }

    @Test("a step applied by a graph node knows its run and node; the run keeps every attempt")
    func runsAndOrigins() async throws {
        let recording = try await App.record().inspector.recording
        let signedIn = recording.steps[1]
        #expect(signedIn.origin == SyncOrigin(run: StoreEvent.ID(rawValue: 1), node: 1, kind: .node))
        #expect(recording.steps[2].origin?.node == 4, "ShowHome is node 4")
        #expect(recording.steps[0].origin == nil && recording.steps[3].origin == nil)

        let run = try #require(recording.runs.first)
        #expect(run.nodes.map(\.label) == ["LogIn", "SignedIn", "FetchProfile", "FetchFeed", "ShowHome"])
        #expect(run.nodes[4].prerequisites == [2, 3])
        let feed = run.nodes[3]
        #expect(feed.attempts.map(\.number) == [1, 2])
        #expect(feed.attempts[1].backoff == .milliseconds(2))
        #expect(feed.end?.outcome == .succeeded)
        #expect(feed.end?.response?.summary == #"[Post(id: 1, text: "hello"), Post(id: 2, text: "world")]"#)
        #expect(run.finishAt != nil && run.summary?.hasPrefix("5 nodes: 5 succeeded") == true)
    }

    @Test("a run dispatched under an owner shows the owner's name in its run view")
    func runsShowTheirOwner() async throws {
        let inspector = InspectorRecorder<App.AppState>()
        let store = Store(
            initialState: App.AppState(), reducer: App.reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        let owner = store.makeOwner("Log-in screen")
        _ = try await withDeadline(10, "the owner's run") { await owner.dispatch(App.homeGraph()).wait() }
        _ = try await withDeadline { await store.dispatch(App.homeGraph()).wait() }
        let recording = inspector.recording
        #expect(
            recording.runs.count == 2 && Set(recording.runs.map { $0.owner ?? "none" }) == ["Log-in screen", "none"])
        let data = recording.dataJSON(title: "owners")
        #expect(data.contains(#""owner":"Log-in screen""#))
    }

    @Test("collections change by element: an insertion is one hunk, an element's field one replace")
    func collectionsAligned() {
        let builder = PatchBuilder(describer: Describer(options: InspectorLimits()))
        let inserted = builder.patch(from: [1, 2, 3, 4, 5], to: [1, 2, 9, 3, 4, 5])
        #expect(
            inserted.edits == [
                .splice(
                    path: [],
                    hunks: [.init(at: 2, removing: 0, inserting: [.leaf(type: "Int", text: "9")], insertingEntries: [])]
                )
            ])

        let posts = [App.Post(id: 1, text: "a"), App.Post(id: 2, text: "b"), App.Post(id: 3, text: "c")]
        var edited = posts
        edited[1].text = "B"
        #expect(
            builder.patch(from: posts, to: edited).edits == [
                .replace(path: [1, 1], value: .string("B", truncatedFrom: nil))
            ])

        let removed = builder.patch(from: posts, to: [posts[0], posts[2]])
        #expect(
            removed.edits == [
                .splice(path: [], hunks: [.init(at: 1, removing: 1, inserting: [], insertingEntries: [])])
            ])

        let tags = builder.patch(from: ["a": 1, "b": 2], to: ["a": 1, "b": 3, "c": 4])
        #expect(tags.edits.count == 2, "b's value replaced, c inserted: \(tags.edits)")
        #expect(
            tags.applied(to: InspectorValue(describing: ["a": 1, "b": 2]))
                == InspectorValue(describing: ["a": 1, "b": 3, "c": 4]))
    }

    @Test("secrets are redacted before anything is recorded: key path, closure, field names")
    func redaction() async throws {
        var options = InspectorOptions<App.AppState>()
        options.redact(\.session, with: App.Session(token: "<redacted>"))
        options.redactFields("password", "token")
        options.redactActions { action in
            (action as? App.SignedIn).map { _ in App.SignedIn(session: App.Session(token: "•••")) } ?? action
        }
        let recording = try await App.record(options: options).inspector.recording
        let page = recording.html()
        #expect(!page.contains("lovelace"), "the password of the LogIn node")
        #expect(!page.contains("t-ada"), "the token: in the state, SignedIn and LogIn's response")
        #expect(page.contains("\\u003credacted\\u003e") || page.contains("[\"r\"]"))
        #expect(!recording.reduxDevToolsJSON().contains("t-ada"))
        #expect(!recording.generatedTest().contains("t-ada"))
    }

    struct Refused: Error { let token: String }
    struct RefusingLogIn: AsyncAction {
        func run(_ context: ActionContext<App.AppState>) async throws -> App.Session {
            throw Refused(token: "tok-SECRET")
        }
    }

    @Test("a redacted field of a node's error is redacted in the run's Chrome trace too")
    func redactionReachesTheTrace() async throws {
        var options = InspectorOptions<App.AppState>()
        options.redactFields("token")
        var graph = ActionGraph<App.AppState>()
        graph.run(RefusingLogIn())
        let recording = try await App.record(options: options, graph: graph).inspector.recording
        let page = recording.html()
        #expect(!page.contains("tok-SECRET"), "not in the node's error, nor in the trace the page offers")
        #expect(page.contains("Refused(token: \\u003credacted\\u003e)"), "the trace still names the error")
        #expect(!recording.reduxDevToolsJSON().contains("tok-SECRET"))
        #expect(!recording.generatedTest().contains("tok-SECRET"))
    }

    @Test("the recording is bounded: the oldest steps are dropped, counted, and the states still right")
    func bounded() async throws {
        var options = InspectorOptions<App.AppState>()
        options.maximumSteps = 3
        let (inspector, final) = try await App.record(options: options)
        let recording = inspector.recording
        #expect(recording.stepCount == 3)
        #expect(recording.droppedSteps == 4)
        #expect(recording.steps.map(\.number) == [5, 6, 7])
        #expect(recording.states.last == InspectorValue(describing: final))
        #expect(recording.html().contains(#""droppedSteps":4"#))
    }

    @Test("no recorder installed: the store records nothing and pays for nothing")
    func optIn() async throws {
        let store = Store(initialState: App.AppState(), reducer: App.reducer)
        _ = try await withDeadline { await store.dispatch(App.homeGraph()).wait() }
        #expect(store.state.feed.count == 2)
    }

    @Test("the Redux DevTools export has the lifted state's shape")
    func devTools() async throws {
        let recording = try await App.record().inspector.recording
        let data = Data(recording.reduxDevToolsJSON().utf8)
        let lifted = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(lifted.keys).isSuperset(of: [
                "actionsById", "computedStates", "committedState", "currentStateIndex", "nextActionId",
                "skippedActionIds", "stagedActionIds",
            ]))
        let actions = try #require(lifted["actionsById"] as? [String: [String: Any]])
        #expect(actions.count == 8)
        #expect(actions["0"]?["type"] as? String == "PERFORM_ACTION")
        let first = try #require(actions["1"]?["action"] as? [String: Any])
        #expect(first["type"] as? String == "StartLoading")
        #expect(actions["1"]?["timestamp"] is Double || actions["1"]?["timestamp"] is Int)
        let states = try #require(lifted["computedStates"] as? [[String: Any]])
        #expect(states.count == 8)
        let last = try #require(states.last?["state"] as? [String: Any])
        #expect((last["feed"] as? [[String: Any]])?.map { $0["id"] as? Int } == [3, 2])
        #expect(last["screen"] as? [String: [String: String]] == ["home": ["user": "Ada"]])
        #expect(lifted["currentStateIndex"] as? Int == 7)
        #expect(lifted["nextActionId"] as? Int == 8)
        #expect(lifted["stagedActionIds"] as? [Int] == Array(0...7))
    }

    @Test("the Redux DevTools export written to a file, a state at a time, is the same text")
    func devToolsFile() async throws {
        let recording = try await App.record().inspector.recording
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("devtools-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try recording.writeReduxDevToolsJSON(to: url)
        #expect(try String(contentsOf: url, encoding: .utf8) == recording.reduxDevToolsJSON())
    }
}
