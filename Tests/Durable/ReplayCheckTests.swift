import Foundation
import OresReduxTesting
import Testing

@testable import OresRedux

// Issue 32, item 3: journals recorded by an earlier build, checked against today's builders, the
// way Temporal's replay tests check a workflow's history against today's code. Each test records
// a run with the builders of "yesterday's build", then checks it with "today's".

private struct PostState: Equatable, Sendable {
    var postID: Int?
}

private struct PostDraft: Codable, Sendable {
    var photo: String
    var text: String
}

/// Today's parameters, in an update that renamed `text` to an optional `caption`.
private struct CaptionedDraft: Codable, Sendable {
    var photo: String
    var caption: String?
}

/// Today's parameters, in an update that changed their type: a draft holds several photos.
private struct AlbumDraft: Codable, Sendable {
    var photos: [String]
}

private struct UploadPhoto: AsyncAction {
    typealias State = PostState
    let photo: String
    func run(_ context: ActionContext<PostState>) async throws -> String { "unreachable: stubbed" }
}

private struct CreatePost: AsyncAction {
    typealias State = PostState
    let url: String
    func run(_ context: ActionContext<PostState>) async throws -> Int { -1 }
}

/// Today's post request, in an update that changed its response: the post's URL, not its number.
private struct CreatePostReturningURL: AsyncAction {
    typealias State = PostState
    let url: String
    func run(_ context: ActionContext<PostState>) async throws -> String { "unreachable: not called" }
}

private struct NotifyFollowers: AsyncAction {
    typealias State = PostState
    let postID: Int
    func run(_ context: ActionContext<PostState>) async throws -> Int { -1 }
}

private struct ShowPost: Action { let id: Int }
private struct ShowPhoto: Action { let url: String }

private let postReducer = Reducer<PostState>.on(ShowPost.self) { state, action in state.postID = action.id }

/// The graph as the build that recorded the journals registered it: upload, post, show.
private func registerRecordedBuild(_ durable: DurableRuns<PostState>) {
    durable.register("publishPost", parameters: PostDraft.self) { draft in
        var graph = ActionGraph<PostState>()
        let upload = graph.run(UploadPhoto(photo: draft.photo))
        graph.setLabel("upload", for: upload)
        graph.setDurable(upload, inDoubt: .rerunWithSameKey)
        let post = graph.run(after: upload) { url in CreatePost(url: url) }
        graph.setLabel("post", for: post)
        graph.setDurable(post, inDoubt: .failInDoubt)
        graph.setLabel("show", for: graph.send(after: post) { id in ShowPost(id: id) })
        return graph
    }
}

/// Records, with the recording build, the run "post-42" as a launch killed once the post's answer
/// is on disk: its start, the upload's attempt and response, the post's attempt and response.
private func recordedRuns() async throws -> [JournalRun] {
    let journal = InMemoryRunJournal()
    journal.stop(at: .attemptEnded(node: "post"))
    let store = TestStore(
        initialState: PostState(), reducer: postReducer, dependencies: Dependencies(), exhaustivity: .off)
    store.stub(UploadPhoto.self) { action in "https://cdn/\(action.photo)" }
    store.stub(CreatePost.self, with: 42)
    let durable = DurableRuns(store: store.store, journal: journal)
    registerRecordedBuild(durable)
    try await withDeadline(10, "the recording launch's run") {
        let run = try await durable.start(
            "publishPost", runID: "post-42", parameters: PostDraft(photo: "beach.jpg", text: "At the beach"))
        await run.wait()
        await durable.flush()
    }
    #expect(journal.hasStopped, "the recording launch stopped once the post's answer was on disk")
    return journal.reopened().runs
}

/// The check against the builders `register` registers today, as an app's test builds it.
private func today(_ register: (DurableRuns<PostState>) -> Void) -> ReplayCheck<PostState> {
    ReplayCheck(initialState: PostState(), builders: register)
}

/// The check against today's build: the recorded graph under its name and parameters, with its
/// labels, its nodes, the prerequisites of "show" and whether "upload" is durable changed as the
/// arguments say.
private func todayWith(
    upload uploadLabel: String = "upload", post postLabel: String = "post", show: Bool = true,
    showAfterUpload: Bool = false, notify: Bool = false, uploadIsDurable: Bool = true
) -> ReplayCheck<PostState> {
    today { durable in
        durable.register("publishPost", parameters: PostDraft.self) { draft in
            publishPost(
                photo: draft.photo, upload: uploadLabel, post: postLabel, show: show, showAfterUpload: showAfterUpload,
                notify: notify, uploadIsDurable: uploadIsDurable)
        }
    }
}

/// The recorded graph for `photo`, changed as the arguments say (see `todayWith`).
private func publishPost(
    photo: String, upload uploadLabel: String = "upload", post postLabel: String = "post", show: Bool = true,
    showAfterUpload: Bool = false, notify: Bool = false, uploadIsDurable: Bool = true
) -> ActionGraph<PostState> {
    var graph = ActionGraph<PostState>()
    let upload = graph.run(UploadPhoto(photo: photo))
    graph.setLabel(uploadLabel, for: upload)
    if uploadIsDurable { graph.setDurable(upload, inDoubt: .rerunWithSameKey) }
    let post = graph.run(after: upload) { url in CreatePost(url: url) }
    graph.setLabel(postLabel, for: post)
    graph.setDurable(post, inDoubt: .failInDoubt)
    if show && showAfterUpload {
        graph.setLabel("show", for: graph.send(after: upload) { url in ShowPhoto(url: url) })
    } else if show {
        graph.setLabel("show", for: graph.send(after: post) { id in ShowPost(id: id) })
    }
    if notify {
        let notify = graph.run(after: post) { id in NotifyFollowers(postID: id) }
        graph.setLabel("notify", for: notify)
        graph.setDurable(notify, inDoubt: .rerunWithSameKey)
    }
    return graph
}

/// `runs` with their start's fingerprint cut back to its digest, as builds before the fingerprint
/// carried the graph's shape wrote it.
private func withDigestOnlyFingerprints(_ runs: [JournalRun]) -> [JournalRun] {
    runs.map { run in
        var run = run
        if case .runStarted(let runID, let graph, let parameters, let fingerprint, let version, let instance) =
            run.records.first
        {
            let digest = String(fingerprint.prefix { $0 != "\n" })
            run.records[0] = .runStarted(
                runID: runID, graph: graph, parameters: parameters, fingerprint: digest, formatVersion: version,
                instance: instance)
        }
        return run
    }
}

@Suite("Replay check: recorded journals against today's builders")
struct ReplayCheckTests {
    @Test("a journal recorded by the same graph gives no findings")
    func cleanJournal() async throws {
        let runs = try await recordedRuns()
        #expect(runs.map(\.runID) == ["post-42"])
        #expect(today(registerRecordedBuild).findings(runs) == [])
    }

    @Test("a renamed node is named with its old and new label")
    func renamedNode() async throws {
        let findings = todayWith(post: "create post").findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.nodeRenamed])
        #expect(findings.first?.runID == "post-42")
        #expect(findings.first?.node == "post")
        #expect(
            findings.first?.description
                == "run \"post-42\" (graph \"publishPost\"): node \"post\" was renamed \"create post\"")
    }

    @Test("a removed node is named")
    func removedNode() async throws {
        let findings = todayWith(show: false).findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.nodeRemoved])
        #expect(findings.first?.node == "show")
        #expect(findings.first?.description == "run \"post-42\" (graph \"publishPost\"): node \"show\" was removed")
    }

    @Test("a graph that cannot run durably names the node at fault")
    func graphNotDurableNamesTheNode() async throws {
        let findings = todayWith(uploadIsDurable: false).findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.graphNotDurable])
        #expect(findings.first?.node == "upload")
    }

    @Test("a node's response type that no longer decodes its journaled response is named with the type")
    func changedResponseType() async throws {
        let durable = today { durable in
            durable.register("publishPost", parameters: PostDraft.self) { draft in
                var graph = ActionGraph<PostState>()
                let upload = graph.run(UploadPhoto(photo: draft.photo))
                graph.setLabel("upload", for: upload)
                graph.setDurable(upload, inDoubt: .rerunWithSameKey)
                let post = graph.run(after: upload) { url in CreatePostReturningURL(url: url) }
                graph.setLabel("post", for: post)
                graph.setDurable(post, inDoubt: .failInDoubt)
                graph.setLabel("show", for: graph.send(after: post) { url in ShowPhoto(url: url) })
                return graph
            }
        }
        let findings = durable.findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.responseNotDecodable])
        #expect(findings.first?.node == "post")
        let description = try #require(findings.first?.description)
        #expect(
            description.hasPrefix(
                "run \"post-42\" (graph \"publishPost\"): the journaled response of node \"post\" no longer decodes as String: "
            ), "\(description)")
    }

    @Test("parameters that no longer decode are named with today's type")
    func changedParameterType() async throws {
        let durable = today { durable in
            durable.register("publishPost", parameters: AlbumDraft.self) { album in
                var graph = ActionGraph<PostState>()
                let upload = graph.run(UploadPhoto(photo: album.photos.first ?? ""))
                graph.setLabel("upload", for: upload)
                graph.setDurable(upload, inDoubt: .rerunWithSameKey)
                return graph
            }
        }
        let findings = durable.findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.parametersNotDecodable])
        #expect(findings.first?.node == nil)
        let description = try #require(findings.first?.description)
        #expect(
            description.hasPrefix(
                "run \"post-42\" (graph \"publishPost\"): the journaled parameters no longer decode as AlbumDraft: "),
            "\(description)")
        #expect(description.contains("photos"), "the reason names the missing key: \(description)")
    }

    @Test("a parameters field renamed to an optional one decodes, and the check says its value is dropped")
    func parameterFieldRenamedToOptional() async throws {
        let durable = today { durable in
            durable.register("publishPost", parameters: CaptionedDraft.self) { draft in
                publishPost(photo: draft.photo)
            }
        }
        let findings = durable.findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.parametersFieldDropped])
        #expect(
            findings.first?.description
                == "run \"post-42\" (graph \"publishPost\"): the journaled parameters hold \"text\", which CaptionedDraft no longer reads (renamed or removed): a resume drops its value"
        )
    }

    @Test("a graph name no builder is registered under is named")
    func unknownGraph() async throws {
        let durable = today { durable in
            durable.register("publishAlbum", parameters: PostDraft.self) { _ in ActionGraph<PostState>() }
        }
        let findings = durable.findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.unknownGraph])
        #expect(
            findings.first?.description
                == "run \"post-42\" (graph \"publishPost\"): no builder is registered as \"publishPost\"")
    }

    @Test("an added node is named")
    func addedNode() async throws {
        let findings = todayWith(notify: true).findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.nodeAdded])
        #expect(findings.first?.node == "notify")
        #expect(findings.first?.description == "run \"post-42\" (graph \"publishPost\"): node \"notify\" was added")
    }

    @Test("a node that waits on other nodes than it did is named with both")
    func changedPrerequisites() async throws {
        let findings = todayWith(showAfterUpload: true).findings(try await recordedRuns())
        #expect(findings.map(\.kind) == [.prerequisitesChanged])
        #expect(findings.first?.node == "show")
        #expect(
            findings.first?.description
                == "run \"post-42\" (graph \"publishPost\"): node \"show\" waited for \"post\", now waits for \"upload\""
        )
    }

    @Test("the same nodes added in another order change the shape, and the check says so")
    func reorderedNodes() throws {
        @Sendable func pair(_ labels: [String]) -> ActionGraph<PostState> {
            var graph = ActionGraph<PostState>()
            for label in labels {
                let upload = graph.run(UploadPhoto(photo: label))
                graph.setLabel(label, for: upload)
                graph.setDurable(upload, inDoubt: .rerunWithSameKey)
            }
            return graph
        }
        let recorded = JournalRun(
            runID: "pair-1",
            records: [
                .runStarted(
                    runID: "pair-1", graph: "pair", parameters: Data("{}".utf8),
                    fingerprint: try DurableLayout(pair(["front", "back"])).fingerprint)
            ])
        let durable = today { durable in
            durable.register("pair", parameters: [String: String].self) { _ in pair(["back", "front"]) }
        }
        let findings = durable.findings([recorded])
        #expect(findings.map(\.kind) == [.shapeChanged])
        #expect(
            findings.first?.description
                == "run \"pair-1\" (graph \"pair\"): the graph's shape changed: the same nodes, added in another order (\"front\", \"back\", now \"back\", \"front\")"
        )
    }

    @Test("a journal written before fingerprints carried the shape: nodes its records name that are gone")
    func journalWithoutShape() async throws {
        let runs = withDigestOnlyFingerprints(try await recordedRuns())
        #expect(today(registerRecordedBuild).findings(runs) == [], "the same graph: the digest matches")
        let findings = todayWith(post: "create post").findings(runs)
        #expect(findings.map(\.kind) == [.unknownNode, .shapeChanged])
        #expect(findings.first?.node == "post")
        #expect(
            findings.first?.description
                == "run \"post-42\" (graph \"publishPost\"): node \"post\", which the journal names, is not in today's graph (renamed or removed)"
        )
        #expect(findings.last?.description.contains("shape is unknown") == true, "\(findings)")
    }

    @Test("a run whose first record is not its start is unreadable")
    func runWithoutStart() {
        let runs = [JournalRun(runID: "post-7", records: [.runFinished])]
        let findings = today(registerRecordedBuild).findings(runs)
        #expect(findings.map(\.kind) == [.unreadableJournal])
        #expect(findings.first?.runID == "post-7")
    }

    @Test("no runs to check is a finding: a fixture path that is wrong must not pass")
    func nothingToCheck() {
        #expect(today(registerRecordedBuild).findings([]).map(\.kind) == [.noRecordedRuns])
    }

    @Test("expectReplays throws a TestStoreFailure at the caller's line that lists every finding")
    func expectReplaysThrows() async throws {
        let runs = try await recordedRuns()
        try today(registerRecordedBuild).expectReplays(runs)
        let line = #line + 2
        do {
            try todayWith(post: "create post", show: false).expectReplays(runs)
            Issue.record("expected a failure")
        } catch {
            #expect(error.line == line)
            #expect(error.fileID == #fileID)
            #expect(error.message.contains("node \"post\" was renamed \"create post\""), "\(error.message)")
            #expect(error.message.contains("node \"show\" was removed"), "\(error.message)")
        }
    }
}

@Suite("Replay check: a FileRunJournal folder kept as a fixture")
struct ReplayCheckFolderTests {
    /// Writes `runs` to `folder` as a FileRunJournal writes them, each file with `tail` appended.
    private func write(_ runs: [JournalRun], to folder: URL, tail: [UInt8] = []) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for run in runs {
            let path = runFile(run.runID, in: folder)
            var bytes = try JournalFileFormat.header(runID: run.runID, path: path)
            for record in run.records { bytes += try JournalFileFormat.frame(record, path: path) }
            try Data(bytes + tail).write(to: URL(fileURLWithPath: path))
        }
    }

    /// Every file in `folder` with its bytes.
    private func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test("a folder's journal files are checked, and left exactly as they were, torn tail and all")
    func folderUntouched() async throws {
        let runs = try await recordedRuns()
        try withJournalFolder { folder in
            // A torn last record: a frame header announcing 200 bytes, cut short after 5.
            let torn = Array(try JournalFileFormat.frame(.runFinished, path: "x").prefix(12 + 1))
            try write(runs, to: folder, tail: torn)
            let before = try snapshot(folder)
            #expect(today(registerRecordedBuild).findings(journalFolder: folder) == [])
            #expect(todayWith(post: "create post").findings(journalFolder: folder).map(\.kind) == [.nodeRenamed])
            #expect(try snapshot(folder) == before, "no lock file, no repair: the fixture is as it was")
        }
    }

    @Test("a file that is not a journal is an unreadable-journal finding naming the file")
    func unreadableFile() throws {
        try withJournalFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("run-00000000000000000000000000000000.journal")
            try Data("not a journal".utf8).write(to: file)
            let findings = today(registerRecordedBuild).findings(journalFolder: folder)
            #expect(findings.map(\.kind) == [.unreadableJournal])
            #expect(findings.first?.runID == nil)
            #expect(findings.first?.description.contains(file.path) == true, "\(findings)")
        }
    }

    @Test("a file damaged after its header is a finding with the run id its header names")
    func damagedFileNamesItsRun() async throws {
        let runs = try await recordedRuns()
        try withJournalFolder { folder in
            try write(runs, to: folder)
            let path = runFile("post-42", in: folder)
            var bytes = try JournalPOSIX.readAll(path)
            bytes[bytes.count / 2] ^= 0x40  // inside a record with records after it
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let findings = today(registerRecordedBuild).findings(journalFolder: folder)
            #expect(findings.map(\.kind) == [.unreadableJournal])
            #expect(findings.first?.runID == "post-42")
            #expect(findings.first?.description.hasPrefix("run \"post-42\": ") == true, "\(findings)")
        }
    }

    @Test("a folder that is missing, or holds no journal file, is a finding")
    func missingOrEmptyFolder() throws {
        try withJournalFolder { folder in
            let missing = today(registerRecordedBuild).findings(journalFolder: folder)
            #expect(missing.map(\.kind) == [.unreadableJournal])
            #expect(
                missing.first?.description
                    == "the run journal failed to list the folder \(folder.path): it does not exist")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(today(registerRecordedBuild).findings(journalFolder: folder).map(\.kind) == [.noRecordedRuns])
        }
    }
}

@Suite("Durable runs: the fingerprint carries the graph's shape")
struct FingerprintShapeTests {
    @Test("a run's start journals the digest, a newline and the shape the digest is computed from")
    func startJournalsTheShape() async throws {
        let runs = try await recordedRuns()
        guard case .runStarted(_, _, _, let fingerprint, _, _) = runs.first?.records.first else {
            Issue.record("the run's first record is its start")
            return
        }
        let parts = fingerprint.split(separator: "\n", maxSplits: 1).map(String.init)
        #expect(parts.count == 2)
        #expect(parts.first?.hasPrefix("sha256:") == true)
        #expect(parts.last == "v1|6:upload:async::true|4:post:async:0:true|4:show:sync:1:false")
        #expect(parts.first == "sha256:" + SHA256.hex(SHA256.digest(Array((parts.last ?? "").utf8))))
    }

    @Test("a journal whose fingerprint is the digest alone, as earlier builds wrote it, still resumes")
    func digestOnlyResumes() async throws {
        let runs = withDigestOnlyFingerprints(try await recordedRuns())
        let journal = InMemoryRunJournal()
        for run in runs { for record in run.records { try journal.append(record, to: run.runID) } }
        let store = TestStore(
            initialState: PostState(), reducer: postReducer, dependencies: Dependencies(), exhaustivity: .off)
        let durable = DurableRuns(store: store.store, journal: journal)
        registerRecordedBuild(durable)
        let report = try await withDeadline(10, "the resumed run") {
            let report = await durable.resumeUnfinished()
            for resumed in report.resumed { await resumed.run.wait() }
            await durable.flush()
            return report
        }
        #expect(report.notResumed.map(\.error) == [])
        #expect(report.resumed.map(\.runID) == ["post-42"])
        #expect(store.state.postID == 42, "the journaled post flowed to show")
    }
}
