import Foundation
import Testing

@testable import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Issue 22's faults, through the runtime and a real FileRunJournal: the volume turns read-only or
// fills up in the middle of a run, the journal is edited on disk, a newer build left a run behind.
// Each is a clear error, and nothing already recorded is lost.

private struct FeedState: Equatable, Sendable {
    var postID: Int?
}

private struct Draft: Codable, Sendable {
    var photo: String
}

/// What happens in the middle of the next upload's call (the disk fills, the volume turns read-only).
private final class UploadFault: Sendable {
    private let next = LockedValue<(@Sendable () -> Void)?>(nil)

    /// `fault` happens during the next upload's call.
    func duringTheNextUpload(_ fault: @escaping @Sendable () -> Void) { next.withLock { $0 = fault } }
    func uploadHappens() {
        let fault = next.withLock { fault in
            defer { fault = nil }
            return fault
        }
        fault?()
    }
}

private struct UploadPhoto: AsyncAction {
    typealias State = FeedState
    let photo: String
    let calls: CallLog
    let fault: UploadFault
    func run(_ context: ActionContext<FeedState>) async throws -> String {
        calls.append("upload", context.idempotencyKey)
        fault.uploadHappens()
        return "https://cdn/\(photo)"
    }
}

private struct CreatePost: AsyncAction {
    typealias State = FeedState
    let url: String
    let calls: CallLog
    func run(_ context: ActionContext<FeedState>) async throws -> Int {
        calls.append("post", context.idempotencyKey)
        return 7
    }
}

private struct ApplyPost: Action { let id: Int }

/// One launch: a store, its durable runs on `journal`, and upload → post → apply registered.
private struct Launch {
    let store = Store(
        initialState: FeedState(), reducer: .on(ApplyPost.self) { state, action in state.postID = action.id })
    let durable: DurableRuns<FeedState>
    let calls = CallLog()
    let uploadFault = UploadFault()

    init(journal: any RunJournal) {
        durable = DurableRuns(store: store, journal: journal)
        let calls = self.calls
        let fault = uploadFault
        durable.register("publish", parameters: Draft.self) { draft in
            var graph = ActionGraph<FeedState>()
            let upload = graph.run(UploadPhoto(photo: draft.photo, calls: calls, fault: fault))
            graph.setLabel("upload", for: upload)
            graph.setDurable(upload, inDoubt: .rerunWithSameKey)
            let post = graph.run(after: upload) { url in CreatePost(url: url, calls: calls) }
            graph.setLabel("post", for: post)
            graph.setDurable(post, inDoubt: .failInDoubt)
            graph.setLabel("apply", for: graph.send(after: post) { id in ApplyPost(id: id) })
            return graph
        }
    }

    /// Starts the run `runID` and waits for it to end; its report.
    func publish(_ runID: String) async throws -> GraphReport {
        try await withDeadline(10, "the run \(runID)") {
            let run = try await durable.start("publish", runID: runID, parameters: Draft(photo: "p.jpg"))
            let report = await run.wait()
            await durable.flush()
            return report
        }
    }

    func resume() async throws -> DurableResumeReport<FeedState> {
        try await withDeadline(10, "the resumed runs") {
            let report = await durable.resumeUnfinished()
            for resumed in report.resumed { await resumed.run.wait() }
            await durable.flush()
            return report
        }
    }
}

private let uploadKey = IdempotencyKey(runID: "post-1", node: "upload")

/// The records a journal holds for `runID`.
private func records(_ runID: String, in journal: FileRunJournal) throws -> [JournalRecord]? {
    try journal.loadUnfinishedRuns().runs.first { $0.runID == runID }?.records
}

/// The first launch: the disk fills during the upload of run post-1, so its end cannot be recorded.
/// Returns the run's records, which stay on disk, with the launch's journal closed.
private func diskFillsDuringTheUpload(_ folder: URL) async throws -> [JournalRecord] {
    let faults = WriteFaults()
    let journal = try FileRunJournal(folder: folder, pendingRunLimit: 10, io: faults.io)
    // The next launch opens the folder in this process: release it when this launch is done, not
    // whenever its last reference goes (the run's task may still be ending after `wait()`).
    defer { journal.close() }
    let first = Launch(journal: journal)
    first.uploadFault.duringTheNextUpload { faults.failNextWrite(.error(ENOSPC)) }
    let report = try await first.publish("post-1")

    guard case .journalFailed(node: "upload", .noSpace(let path, _))? = report[0].error as? DurableRunError else {
        Issue.record("the upload fails with the journal's noSpace, got \(String(describing: report[0].error))")
        return []
    }
    #expect(path == runFile("post-1", in: folder), "the error names the file")
    #expect(first.calls.names == ["upload"], "the post, which needed the upload, is never called")
    #expect(first.store.state.postID == nil)
    return try #require(try records("post-1", in: journal))
}

@Suite("Durable runs: faults of a file journal, through the runtime")
struct DurableFaultTests {
    @Test(
        "the disk fills during the upload: it fails with noSpace, its start stays on disk, a relaunch reruns it with the same key"
    )
    func diskFillsMidRun() async throws {
        try await withJournalFolderAsync { folder in
            let recorded = try await diskFillsDuringTheUpload(folder)
            #expect(recorded.count == 2, "the run's start and the upload's start, nothing lost: \(recorded)")
            #expect(
                recorded.last == .attemptStarted(node: "upload", attempt: 1, key: uploadKey, inDoubt: .rerunWithSameKey)
            )

            let second = Launch(journal: try FileRunJournal(folder: folder))
            let report = try await second.resume()
            #expect(report.resumed.first?.inDoubt == ["upload"])
            #expect(second.calls.names == ["upload", "post"])
            #expect(second.calls.keys.first == uploadKey, "the upload again, with the same key")
            #expect(second.store.state.postID == 7)
        }
    }

    @Test(
        "a relaunch in this process opens the folder as soon as the first launch closed its journal, though that launch lives on"
    )
    func relaunchOpensTheFolderAfterClose() async throws {
        try await withJournalFolderAsync { folder in
            let journal = try FileRunJournal(folder: folder)
            let first = Launch(journal: journal)
            let report = try await first.publish("post-1")  // waits for the run, then flushes
            #expect(report[0].error == nil)
            // The first launch is still alive here, as a run's task that is still ending may keep
            // it: without close(), the folder would stay locked until that task lets go.
            journal.close()
            let second = Launch(journal: try FileRunJournal(folder: folder))
            let resumed = try await second.resume()
            #expect(resumed.resumed.isEmpty && resumed.notResumed.isEmpty, "post-1 finished in the first launch")
            withExtendedLifetime(first) {}
        }
    }

    @Test(
        "the volume turns read-only (EROFS) during a run: a clear notWritable error, no new run starts, nothing recorded is lost"
    )
    func folderTurnsReadOnly() async throws {
        let fault = ReadOnlyFault()
        try await withJournalFolderAsync { folder in
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 10, io: fault.io)
            let launch = Launch(journal: journal)
            launch.uploadFault.duringTheNextUpload { fault.makeReadOnly() }
            let report = try await launch.publish("post-1")
            guard case .journalFailed(node: "upload", .notWritable)? = report[0].error as? DurableRunError else {
                Issue.record("the upload's end fails with notWritable, got \(String(describing: report[0].error))")
                return
            }

            fault.makeReadOnly()
            await #expect(throws: DurableRunError.self, "a new run cannot record its start, so it does not start") {
                _ = try await launch.publish("post-2")
            }
            #expect(launch.calls.names == ["upload"], "post-2's upload never ran")
            let recorded = try #require(try records("post-1", in: journal))
            #expect(
                recorded.count == 2
                    && recorded.last
                        == .attemptStarted(node: "upload", attempt: 1, key: uploadKey, inDoubt: .rerunWithSameKey)
            )
            #expect(try journal.loadUnfinishedRuns().runs.map(\.runID) == ["post-1"])
        }
    }

    @Test("a file journal edited on disk to another graph's shape is not resumed: graphChanged, the file left as it is")
    func editedOnDisk() async throws {
        try await withJournalFolderAsync { folder in
            let recorded = try await diskFillsDuringTheUpload(folder)
            guard
                case .runStarted(let runID, let graph, let parameters, let fingerprint, _, let instance) = recorded
                    .first
            else {
                Issue.record("the run's first record is its start: \(recorded)")
                return
            }
            // Someone rewrites the file with a start that names another shape, checksums and all.
            let path = runFile("post-1", in: folder)
            var edited = try JournalFileFormat.header(runID: runID, path: path)
            let start = JournalRecord.runStarted(
                runID: runID, graph: graph, parameters: parameters, fingerprint: "upload>post>apply>notify",
                instance: instance)
            for record in [start] + recorded.dropFirst() { edited += try JournalFileFormat.frame(record, path: path) }
            try Data(edited).write(to: URL(fileURLWithPath: path))

            let second = Launch(journal: try FileRunJournal(folder: folder))
            let report = try await second.resume()
            #expect(report.resumed.isEmpty)
            let notResumed = try #require(report.notResumed.first)
            #expect(
                notResumed.error
                    == .graphChanged(graph: "publish", journaled: "upload>post>apply>notify", current: fingerprint))
            #expect(notResumed.journal.records == [start] + recorded.dropFirst(), "the app gets every record")
            #expect(try JournalPOSIX.readAll(path) == edited, "and the file stays as it was")
            #expect(second.calls.names.isEmpty)
        }
    }

    @Test("a run left by a newer build is a newerFormat failure, its file untouched; the other runs resume")
    func newerVersionLeftARun() async throws {
        try await withJournalFolderAsync { folder in
            _ = try await diskFillsDuringTheUpload(folder)
            // A newer build left run post-9 in a format this build does not read.
            var newer = try JournalPOSIX.readAll(runFile("post-1", in: folder))
            newer[11] = UInt8(JournalRecord.currentFormatVersion + 1)  // the header's format version, low byte
            let newerPath = runFile("post-9", in: folder)
            try Data(newer).write(to: URL(fileURLWithPath: newerPath))

            let second = Launch(journal: try FileRunJournal(folder: folder))
            let report = try await second.resume()
            let newest = JournalRecord.currentFormatVersion
            #expect(report.failures == [.newerFormat(path: newerPath, version: newest + 1, newestReadable: newest)])
            #expect(report.failures.first?.description.contains("version \(newest + 1)") == true)
            #expect(report.resumed.map(\.runID) == ["post-1"], "the run this build reads goes on")
            #expect(second.store.state.postID == 7)
            #expect(try JournalPOSIX.readAll(newerPath) == newer, "nothing of the newer run is lost")
        }
    }
}

/// The volume turns read-only: every write from now on fails with `EROFS`, through the journal's
/// write seam. (Opening a journal on a read-only folder is tested in DurableFileRunJournalTests,
/// with chmod or a read-only mount; a running journal cannot be remounted read-only, since it holds
/// files open for writing: "mount point is busy". And `chmod` does not stop writes to files that
/// already exist, nor root.)
private final class ReadOnlyFault: Sendable {
    let faults = WriteFaults()

    var io: JournalFileIO { faults.io }

    func makeReadOnly() { faults.failNextWrite(.error(EROFS)) }
}
