import Foundation
import OresRedux
import Testing

@testable import OresRedux
@testable import OresReduxTesting

/// Issue 30, item 4: a test generated from a recording of parallel branches, retries, fallbacks, a
/// cancelled run and cut values passes unedited. These tests read the generated text; the generated
/// tests themselves are checked in beside them (`GeneratedReplays.swift`), compiled and run.
@Suite("Inspector generated test: order, cancel, cut values")
struct InspectorGeneratedTestOrderTests {
    /// The generated test for ``InspectorApp/recordParallelLogIn(options:)``'s recording.
    static func logInTest(_ recording: InspectorRecording) -> String {
        recording.generatedTest(
            named: "replaysTheParallelLogIn", reducer: "reducer", initialState: "AppState()",
            graph: { _, _ in "logInGraph().graph" })
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The index of the first line at or after `start` that begins with `prefix`.
    static func line(_ prefix: String, in lines: [String], from start: Int = 0) -> Int? {
        guard start < lines.count else { return nil }
        return lines[start...].firstIndex { $0.hasPrefix(prefix) }
    }

    @Test("two async branches' ends are not ordered by the graph: each is held and answered in the recorded order")
    func parallelBranchesAreAnsweredInTheRecordedOrder() async throws {
        let generated = Self.logInTest(try await InspectorApp.recordParallelLogIn())
        let lines = Self.lines(generated)
        for (name, type) in [
            ("logIn", "LogIn"), ("loadProfile", "LoadProfile"), ("loadFeed", "LoadFeed"), ("loadAds", "LoadAds"),
        ] {
            #expect(lines.contains("let \(name)Calls = store.hold(\(type).self)"), "\(generated)")
        }
        #expect(!generated.contains("store.stub("), "no call is answered at once: \(generated)")
        // The ads failed before the feed's retry answered, so the banner is received before home,
        // and the feed is answered only after the banner was received.
        let ads = try #require(Self.line("loadAdsCalls.fail(with: Offline())", in: lines), "\(generated)")
        let banner = try #require(Self.line("try await store.receive(ShowBanner.self)", in: lines, from: ads))
        let feed = try #require(Self.line("loadFeedCalls.respond(with: [Post(id: 1", in: lines, from: banner))
        let home = try #require(Self.line("try await store.receive(ShowHome.self)", in: lines, from: feed))
        #expect(ads < banner && banner < feed && feed < home)
        #expect(
            lines.contains("// LoadFeed: 1 earlier tries failed; the recording keeps each node's last answer only"))
    }

    @Test("the generated test is the same whichever of two unordered ends the recording saw first")
    func unorderedEndsThatReleaseNothingDoNotChangeTheTest() async throws {
        let adsFirst = try await InspectorApp.recordParallelLogIn(adsFirst: true)
        let profileFirst = try await InspectorApp.recordParallelLogIn(adsFirst: false)
        func seq(_ recording: InspectorRecording, _ label: String) -> Int? {
            recording.runs.first?.nodes.first { $0.label == label }?.end?.seq
        }
        let adsThenProfile = try #require(seq(adsFirst, "LoadAds")) < #require(seq(adsFirst, "LoadProfile"))
        let profileThenAds = try #require(seq(profileFirst, "LoadProfile")) < #require(seq(profileFirst, "LoadAds"))
        #expect(adsThenProfile && profileThenAds, "the two recordings saw the ends in both orders")
        #expect(Self.logInTest(adsFirst) == Self.logInTest(profileFirst))
    }

    @Test("a run's dispatch is placed from its start, before its first step, even when its start was delivered late")
    func aRunIsDispatchedBeforeItsFirstStep() async throws {
        let recording = try await InspectorApp.recordParallelLogIn()
        // The store delivers events outside its pipeline, and one thread at a time: a run's start can
        // reach the recorder after its first sync node was applied. Move run #2's start there.
        let second = try #require(recording.runs.last)
        let firstStep = try #require(recording.steps.first { $0.origin?.run.rawValue == second.start.id }?.number)
        var runs = recording.runs
        runs[runs.count - 1].start.at = firstStep
        let late = InspectorRecording(
            stateType: recording.stateType, base: recording.base, steps: recording.steps,
            droppedSteps: recording.droppedSteps, maximumSteps: recording.maximumSteps, runs: runs,
            asyncActions: recording.asyncActions, droppedRuns: recording.droppedRuns,
            droppedAsyncActions: recording.droppedAsyncActions)

        for generated in [Self.logInTest(recording), Self.logInTest(late)] {
            let lines = Self.lines(generated)
            let firstSignedIn = try #require(Self.line("try await store.receive(SignedIn.self)", in: lines))
            let dispatch = try #require(
                Self.line("let run2 = store.dispatch(logInGraph().graph)", in: lines), "\(generated)")
            let secondSignedIn = try #require(
                Self.line("try await store.receive(SignedIn.self)", in: lines, from: firstSignedIn + 1))
            let tag = try #require(Self.line("try store.send(Tag(", in: lines))
            #expect(tag < dispatch && dispatch < secondSignedIn, "\(generated)")
        }
    }

    @Test("a cancelled run is replayed with its answers up to the cancel, then cancel(), and its outcomes asserted")
    func aCancelledRunIsCancelled() async throws {
        let generated = Self.logInTest(try await InspectorApp.recordParallelLogIn())
        let lines = Self.lines(generated)
        let dispatch = try #require(Self.line("let run2 = store.dispatch(", in: lines), "\(generated)")
        let answer = try #require(
            Self.line("logInCalls.respond(with: Session(token: \"t-ada\"))", in: lines, from: dispatch))
        let signedIn = try #require(Self.line("try await store.receive(SignedIn.self)", in: lines, from: answer))
        let cancel = try #require(Self.line("run2.cancel()", in: lines, from: signedIn), "\(generated)")
        let outcomes = try #require(Self.line("#expect(await run2.wait().map(\\.outcome) == [", in: lines))
        let last = try #require(Self.line("try store.send(Nothing())", in: lines))
        #expect(cancel < outcomes && outcomes < last)
        #expect(
            lines[outcomes]
                == "#expect(await run2.wait().map(\\.outcome) == [.succeeded, .succeeded, .cancelled, .cancelled, "
                + ".cancelled, .cancelled])")
        // No answer is given to run #2's calls after the log-in: they end cancelled.
        #expect(!lines[cancel...].contains { $0.hasPrefix("loadProfileCalls.") || $0.hasPrefix("loadFeedCalls.") })
    }

    /// The generated test for ``InspectorApp/recordCuts()``'s recording.
    static func cutTest() async throws -> String {
        try await InspectorApp.recordCuts().generatedTest(
            named: "replaysTheCutRecording", reducer: "reducer", initialState: "AppState()",
            graph: { _, _ in "plainGraph()" })
    }

    @Test("values cut at maximumDepth or maximumStringLength are written so they compile, with a comment")
    func cutValuesCompile() async throws {
        let generated = try await Self.cutTest()
        #expect(!generated.contains("<#"), "no placeholder: \(generated)")
        // A cut value that the test must build (a sent action, a stub's answer) gets a stand-in...
        #expect(generated.contains(#"Tag(name: "swift swift swif" /* cut: "#), "\(generated)")
        #expect(generated.contains(#"Post(id: 0 /* Int cut at maximumDepth"#), "\(generated)")
        // ...and a state change that holds a cut value is not asserted, and says so.
        #expect(generated.contains("notAsserting: [\\.banner]"), "\(generated)")
        #expect(generated.contains("// not asserted: banner (cut at maximumStringLength)"), "\(generated)")
        #expect(generated.contains("notAsserting: [\\.tags]"), "\(generated)")
        #expect(generated.contains("// not asserted: tags (cut at maximumDepth)"), "\(generated)")
        #expect(generated.contains("notAsserting: [\\.feed]"), "\(generated)")
    }

    @Test(
        "the generated tests in GeneratedReplays.swift are the generator's output for these recordings, byte for byte")
    func checkedInReplaysAreTheGeneratorsOutput() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("GeneratedReplays.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        let header = "import OresRedux\nimport OresReduxTesting\nimport Testing\n\n"
        for generated in [Self.logInTest(try await InspectorApp.recordParallelLogIn()), try await Self.cutTest()] {
            #expect(generated.hasPrefix(header))
            let body = String(generated.dropFirst(header.count))
            let name = try #require(body.split(separator: "(").first?.split(separator: " ").last)
            let begin = try #require(source.range(of: "// BEGIN \(name)\n"), "\(name) is in GeneratedReplays.swift")
            let end = try #require(source.range(of: "// END \(name)\n", range: begin.upperBound..<source.endIndex))
            #expect(String(source[begin.upperBound..<end.lowerBound]) == body, "regenerated:\n\(generated)")
        }
    }

    @Test("the generated test of the parallel log-in passes every time: 48 runs, 8 at a time")
    func theGeneratedTestPassesEveryTime() async throws {
        try await withDeadline(60, "48 runs of the generated test") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for round in 0..<48 {
                    if round >= 8 { try await group.next() }
                    group.addTask { try await InspectorApp.GeneratedReplays().replaysTheParallelLogIn() }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension InspectorApp {
    /// The story of ``record(options:graph:)`` with `plainGraph()`, recorded with values nested two
    /// levels deep cut (a post in the feed, a post in an action, a tag's name as a key) and strings
    /// cut at 16 characters (a long banner, a long tag in an action).
    static func recordCuts() async throws -> InspectorRecording {
        var options = InspectorOptions<AppState>()
        options.maximumDepth = 2
        options.maximumStringLength = 16
        let inspector = InspectorRecorder<AppState>(options: options)
        let store = Store(
            initialState: AppState(), reducer: reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        store.dispatch(StartLoading())
        _ = try await withDeadline { await store.dispatch(plainGraph()).wait() }
        store.dispatch(AddPost(post: Post(id: 3, text: "middle"), at: 1))
        store.dispatch(Tag(name: String(repeating: "swift ", count: 8), count: 2))
        store.dispatch(ShowBanner(message: String(repeating: "offline ", count: 4)))
        store.dispatch(Nothing())
        return inspector.recording
    }
}
