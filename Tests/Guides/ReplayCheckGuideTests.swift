import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of OresReduxTesting/OresReduxTesting.docc/CheckingAnUpdateAgainstRecordedRuns.md,
// on the app of the durable runs guide (DurableRunsGuideTests.swift): upload, "post", show.

enum ReplayCheckGuide {
    typealias AppState = DurableRunsGuide.AppState
    typealias PostDraft = DurableRunsGuide.PostDraft
    typealias UploadPhoto = DurableRunsGuide.UploadPhoto
    typealias CreatePost = DurableRunsGuide.CreatePost
    typealias ShowPost = DurableRunsGuide.ShowPost
    static let appReducer = DurableRunsGuide.appReducer
    static func registerBuilders(_ durable: DurableRuns<AppState>) { DurableRunsGuide.registerBuilders(durable) }

    // MARK: The first snippet

    /// Records the journal fixture: run it when the graph changes on purpose, and commit the folder.
    static func recordJournalFixture(into fixtures: URL) async throws {
        let journal = InMemoryRunJournal()
        journal.stop(at: .attemptEnded(node: "post"))  // the app dies once the post's answer is on disk
        let store = TestStore(initialState: AppState(), reducer: appReducer)
        store.stub(UploadPhoto.self) { action in "https://cdn/\(action.photo)" }
        store.stub(CreatePost.self, with: 42)
        let durable = DurableRuns(store: store.store, journal: journal)
        registerBuilders(durable)
        let draft = PostDraft(photo: "beach.jpg", text: "At the beach")
        await (try await durable.start("publishPost", runID: "post-42", parameters: draft)).wait()

        let fixture = try FileRunJournal(folder: fixtures)  // the files a phone's journal holds
        for run in journal.runs {
            for record in run.records { try fixture.append(record, to: run.runID) }
        }
        fixture.close()
    }

    // MARK: The graphs of "Changing a durable graph on purpose"

    /// 1.4's graph: the one `DurableRunsGuide.registerBuilders` registers.
    static func publishPostGraph(_ draft: PostDraft) -> ActionGraph<AppState> {
        publishPostGraph(draft, postLabel: "post")
    }

    /// 1.5's graph: `"post"` renamed `"create post"`.
    static func publishPostGraphV2(_ draft: PostDraft) -> ActionGraph<AppState> {
        publishPostGraph(draft, postLabel: "create post")
    }

    private static func publishPostGraph(_ draft: PostDraft, postLabel: String) -> ActionGraph<AppState> {
        var graph = ActionGraph<AppState>()
        let upload = graph.run(UploadPhoto(photo: draft.photo))
        graph.setLabel("upload", for: upload)
        graph.setDurable(upload, inDoubt: .rerunWithSameKey)
        let post = graph.run(after: upload) { url in CreatePost(url: url, text: draft.text) }
        graph.setLabel(postLabel, for: post)
        graph.setDurable(post, inDoubt: .failInDoubt)
        graph.setFallback(for: post) { error in DurableRunsGuide.PostFailed(reason: "\(error)") }
        graph.setLabel("show", for: graph.send(after: post) { id in ShowPost(id: id) })
        return graph
    }

    // MARK: The snippet of "Changing a durable graph on purpose"

    enum Version15 {
        static func registerBuilders(_ durable: DurableRuns<AppState>) {
            // 1.4's graph, kept so that the runs it journaled on users' phones resume as they were.
            durable.register("publishPost", parameters: PostDraft.self) { draft in publishPostGraph(draft) }
            // 1.5's graph: new runs start under its own name.
            durable.register("publishPost.v2", parameters: PostDraft.self) { draft in publishPostGraphV2(draft) }
        }
    }

    /// 1.5 before the fix: the graph renamed under its old name.
    static func registerRenamed(_ durable: DurableRuns<AppState>) {
        durable.register("publishPost", parameters: PostDraft.self) { draft in publishPostGraphV2(draft) }
    }
}

@Suite("Guide: Checking an Update Against Recorded Runs")
final class ReplayCheckGuideTests {
    typealias AppState = ReplayCheckGuide.AppState
    let appReducer = ReplayCheckGuide.appReducer
    let folder: URL
    /// The recorded journal, in a temporary folder (the guide's `Fixtures/journal`).
    let fixtures: URL

    init() async throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-replay-guide-\(UUID().uuidString)", isDirectory: true)
        fixtures = folder.appendingPathComponent("journal", isDirectory: true)
        let fixtures = self.fixtures
        try await withDeadline(10, "recording the guide's fixture") {
            try await ReplayCheckGuide.recordJournalFixture(into: fixtures)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    func registerBuilders(_ durable: DurableRuns<AppState>) { ReplayCheckGuide.registerBuilders(durable) }

    @Test("Replay check guide: the recorded folder holds the run a phone's journal would")
    func recordedFixture() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter {
            $0.hasSuffix(".journal")
        }
        #expect(files.count == 1)
        // The snippet that names the fixture folder beside the test file.
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("Fixtures/journal")
        #expect(fixtures.path.hasSuffix("Tests/Guides/Fixtures/journal"))
    }

    @Test("Replay check guide: today's builders replay the recorded run")
    func recordedRunsStillResume() throws {
        let check = ReplayCheck(initialState: AppState(), builders: registerBuilders)  // the app's own
        try check.expectReplays(journalFolder: fixtures)
    }

    @Test("Replay check guide: the check on durable runs a test already has")
    func checkOnDurableRuns() throws {
        let durable = DurableRuns(
            store: Store(initialState: AppState(), reducer: appReducer), journal: InMemoryRunJournal())
        registerBuilders(durable)
        try ReplayCheck(durable).expectReplays(journalFolder: fixtures)
    }

    @Test("Replay check guide: the rename fails the test with the guide's message")
    func renameFails() throws {
        let check = ReplayCheck(initialState: AppState(), builders: ReplayCheckGuide.registerRenamed)
        do {
            try check.expectReplays(journalFolder: fixtures)
            Issue.record("expected the rename to fail the check")
        } catch {
            #expect(
                error.message == """
                    recorded durable runs would not resume as recorded with today's builders:
                      - run "post-42" (graph "publishPost"): node "post" was renamed "create post"
                    """)
        }
    }

    @Test("Replay check guide: findings as values")
    func findingsAsValues() {
        let registerBuilders = ReplayCheckGuide.registerRenamed  // 1.5 before the fix
        let check = ReplayCheck(initialState: AppState(), builders: registerBuilders)
        let findings = check.findings(journalFolder: fixtures)
        #expect(findings.map(\.kind) == [.nodeRenamed])
        #expect(findings.first?.node == "post")
    }

    @Test("Replay check guide: the table's sentences for a changed response and parameters type")
    func tableSentences() {
        struct CreatePostReturningURL: AsyncAction {
            let url: String
            func run(_ context: ActionContext<AppState>) async throws -> String { url }
        }
        struct AlbumDraft: Codable, Sendable { var photos: [String] }
        let responseChanged = DurableRuns(
            store: Store(initialState: AppState(), reducer: appReducer), journal: InMemoryRunJournal())
        responseChanged.register("publishPost", parameters: ReplayCheckGuide.PostDraft.self) { draft in
            var graph = ActionGraph<AppState>()
            let upload = graph.run(ReplayCheckGuide.UploadPhoto(photo: draft.photo))
            graph.setLabel("upload", for: upload)
            graph.setDurable(upload, inDoubt: .rerunWithSameKey)
            let post = graph.run(after: upload) { url in CreatePostReturningURL(url: url) }
            graph.setLabel("post", for: post)
            graph.setDurable(post, inDoubt: .failInDoubt)
            graph.setLabel("show", for: graph.send(after: post) { _ in ReplayCheckGuide.ShowPost(id: 0) })
            return graph
        }
        #expect(
            ReplayCheck(responseChanged).findings(journalFolder: fixtures).map(\.description) == [
                "run \"post-42\" (graph \"publishPost\"): the journaled response of node \"post\" no longer decodes as String: Expected to decode String but found number instead."
            ])
        let parametersChanged = DurableRuns(
            store: Store(initialState: AppState(), reducer: appReducer), journal: InMemoryRunJournal())
        parametersChanged.register("publishPost", parameters: AlbumDraft.self) { _ in ActionGraph<AppState>() }
        #expect(
            ReplayCheck(parametersChanged).findings(journalFolder: fixtures).map(\.description) == [
                "run \"post-42\" (graph \"publishPost\"): the journaled parameters no longer decode as AlbumDraft: no value for the key \"photos\""
            ])
    }

    @Test("Replay check guide: an app's own journal passes its runs")
    func ownJournal() throws {
        // The app's table of encoded records, as its own RunJournal keeps them.
        let recorded = try #require(RecordedJournalFile.read(path: try journalFile()).run)
        let savedRecords = try recorded.records.map { try $0.encoded() }
        let runs = [JournalRun(runID: "post-42", records: try savedRecords.map { try JournalRecord(decoding: $0) })]
        try ReplayCheck(initialState: AppState(), builders: registerBuilders).expectReplays(runs)
    }

    @Test("Replay check guide: the old builder kept under its name, the new one under a new name")
    func changedOnPurpose() throws {
        let check = ReplayCheck(initialState: AppState(), builders: ReplayCheckGuide.Version15.registerBuilders)
        try check.expectReplays(journalFolder: fixtures)
    }

    private func journalFile() throws -> String {
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: fixtures.path).first { $0.hasSuffix(".journal") })
        return fixtures.appendingPathComponent(name).path
    }
}
