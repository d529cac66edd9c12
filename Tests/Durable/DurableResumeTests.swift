import Foundation
import OresReduxTesting
import Testing

@testable import OresRedux

// Issue 22's first story, resumed: upload a photo, show it, create the post with its URL, apply
// the post. The app is killed at a chosen journal record; the next launch resumes from the state
// saved at that moment and the same journal.

private struct PhotoState: Equatable, Sendable, Codable {
    var uploadedURL: String?
    var timesShown = 0
    var postID: Int?
    var timesApplied = 0
    var error: String?
}

private struct Draft: Codable, Sendable, Equatable {
    var photo: String
}

private struct UploadPhoto: AsyncAction {
    typealias State = PhotoState
    let photo: String
    func run(_ context: ActionContext<PhotoState>) async throws -> String { "unreachable: stubbed" }
}

private struct CreatePost: AsyncAction {
    typealias State = PhotoState
    let url: String
    func run(_ context: ActionContext<PhotoState>) async throws -> Int { -1 }
}

private struct Offline: Error {}

private struct ShowUploaded: Action { let url: String }
private struct ApplyPost: Action { let id: Int }
private struct PostFailed: Action { let reason: String }

private let photoReducer = Reducer<PhotoState>.combine(
    .on(ShowUploaded.self) { state, action in
        state.uploadedURL = action.url
        state.timesShown += 1
    },
    .on(ApplyPost.self) { state, action in
        state.postID = action.id
        state.timesApplied += 1
    },
    .on(PostFailed.self) { state, action in state.error = action.reason })

private let uploadKey = IdempotencyKey(runID: "post-42", node: "upload")
private let postKey = IdempotencyKey(runID: "post-42", node: "post")

/// One launch of the app: a test store, its durable runs on `journal`, the graph registered, and
/// stubs that log their calls.
private struct Launch {
    let store: TestStore<PhotoState>
    let journal: any RunJournal
    let durable: DurableRuns<PhotoState>
    let calls = CallLog()
    /// The show node of the graph built last (each start and resume builds the graph anew).
    let showNode = LockedValue<Node<Void>?>(nil)

    init(
        journal: any RunJournal, state: PhotoState = PhotoState(), marks: DurableMarks = DurableMarks(),
        upload: InDoubtPolicy<String> = .rerunWithSameKey, post: InDoubtPolicy<Int> = .failInDoubt,
        changedGraph: Bool = false, registers: Bool = true, uploadRetries: Int = 0, uploadFailures: Int = 0,
        uploadCodec: DurableCodec<String>? = nil
    ) {
        store = TestStore(
            initialState: state, reducer: photoReducer, dependencies: Dependencies(), exhaustivity: .off,
            durableMarks: marks)
        self.journal = journal
        durable = DurableRuns(store: store.store, journal: journal)
        let calls = self.calls
        let showNode = self.showNode
        store.stub(UploadPhoto.self) { action, context in
            calls.append("upload", context.idempotencyKey)
            if calls.names.count <= uploadFailures { throw Offline() }
            return "https://cdn/\(action.photo)"
        }
        store.stub(CreatePost.self) { _, context in
            calls.append("post", context.idempotencyKey)
            return 7
        }
        guard registers else { return }
        durable.register("publish", parameters: Draft.self) { draft in
            var graph = ActionGraph<PhotoState>()
            let uploaded = graph.run(UploadPhoto(photo: draft.photo))
            graph.setLabel("upload", for: uploaded)
            if let uploadCodec {
                graph.setDurable(uploaded, inDoubt: upload, codec: uploadCodec)
            } else {
                graph.setDurable(uploaded, inDoubt: upload)
            }
            graph.setRetry(.retry(uploadRetries), for: uploaded)
            let show = graph.send(after: uploaded) { url in ShowUploaded(url: url) }
            graph.setLabel("show", for: show)
            showNode.withLock { $0 = show }
            let posted = graph.run(after: uploaded) { url in CreatePost(url: url) }
            graph.setLabel("post", for: posted)
            graph.setDurable(posted, inDoubt: post)
            graph.setFallback(for: posted) { error in PostFailed(reason: "\(error)") }
            graph.setLabel("apply", for: graph.send(after: posted) { id in ApplyPost(id: id) })
            if changedGraph { graph.setLabel("notify", for: graph.send(ShowUploaded(url: "new node"))) }
            return graph
        }
    }

    /// Starts the post and waits for its run to end (the journal may stop in the middle).
    func publish() async throws {
        try await withDeadline(10, "the first launch's run") {
            let run = try await durable.start("publish", runID: "post-42", parameters: Draft(photo: "p.jpg"))
            await run.wait()
            await durable.flush()
        }
    }

    /// Resumes what the journal holds and waits for every resumed run to end.
    func resume() async throws -> DurableResumeReport<PhotoState> {
        try await withDeadline(10, "the resumed runs") {
            let report = await durable.resumeUnfinished()
            for resumed in report.resumed { await resumed.run.wait() }
            await durable.flush()
            return report
        }
    }
}

/// Runs the first launch until the journal stops at `point`; returns the journal and the state the
/// next launch restores.
private func killed(
    at point: JournalStopPoint, upload: InDoubtPolicy<String> = .rerunWithSameKey,
    post: InDoubtPolicy<Int> = .failInDoubt, uploadCodec: DurableCodec<String>? = nil
) async throws -> (journal: InMemoryRunJournal, state: PhotoState, marks: DurableMarks, first: Launch) {
    let journal = InMemoryRunJournal()
    journal.stop(at: point)
    let first = Launch(journal: journal, upload: upload, post: post, uploadCodec: uploadCodec)
    let persisted = first.store.persisting(untilStopOf: journal)
    try await first.publish()
    #expect(journal.hasStopped, "the first launch reached \(point)")
    return (journal.reopened(), try persisted.state(), try persisted.durableMarks(), first)
}

/// Runs `body` with a launch on the journal `makeJournal` makes (given a fresh folder), whose whole
/// state a durable persistence saves with its marks to `stateFile` in that folder (removed
/// afterwards). Timed writes wait an hour: the state is saved when the test flushes it, or when a
/// durable `start` saves it.
private func withSavedLaunch(
    journal makeJournal: (URL) throws -> any RunJournal,
    _ body: (_ launch: Launch, _ persistence: StatePersistence, _ stateFile: URL) async throws -> Void
) async throws {
    try await withJournalFolderAsync { folder in
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stateFile = folder.appendingPathComponent("state.json")
        let journal = try makeJournal(folder)
        let launch = Launch(journal: journal)
        let persistence = StatePersistence(
            durableStore: launch.store.store, url: stateFile, debounce: .seconds(3600))
        try await body(launch, persistence, stateFile)
    }
}

/// The state a durable persistence saved in `file` (the default state if there is none).
private func savedState(_ file: URL) -> PhotoState {
    StatePersistence.restoreDurable(from: file, default: PhotoState()).state
}

/// A journal that fails the first append of the record `fails` picks, and passes everything else on.
private final class FailsOnce: RunJournal {
    private let journal: any RunJournal
    private let fails: @Sendable (JournalRecord) -> Bool
    private let failed = LockedValue(false)

    init(_ journal: any RunJournal, fails: @escaping @Sendable (JournalRecord) -> Bool) {
        self.journal = journal
        self.fails = fails
    }

    func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        if fails(record), !failed.withLock({ $0 }) {
            failed.withLock { $0 = true }
            throw .noSpace(path: "memory", reason: "full (a test's fault)")
        }
        try journal.append(record, to: runID)
    }

    func loadUnfinishedRuns() throws(JournalError) -> JournalContents { try journal.loadUnfinishedRuns() }
    func removeRun(_ runID: String) throws(JournalError) { try journal.removeRun(runID) }
}

/// The parameters a run's start record carries.
private func parameters(_ record: JournalRecord) -> Draft? {
    guard case .runStarted(_, _, let data, _, _, _) = record else { return nil }
    return try? JSONDecoder().decode(Draft.self, from: data)
}

extension JournalRecord {
    fileprivate var isRunStarted: Bool {
        if case .runStarted = self { true } else { false }
    }
}

@Suite("Durable runs: resume on launch")
struct DurableResumeTests {
    @Test("killed after the upload ended: the upload is not called again, its URL flows on, the post is made once")
    func finishedNodeIsNotCalledAgain() async throws {
        let (journal, state, marks, first) = try await killed(at: .attemptEnded(node: "upload"))
        #expect(first.calls.names == ["upload"])
        #expect(state == PhotoState(), "killed before the upload was shown")

        let second = Launch(journal: journal, state: state, marks: marks)
        let report = try await second.resume()

        #expect(report.resumed.map(\.runID) == ["post-42"])
        #expect(report.resumed.first?.endedBefore == ["upload"])
        #expect(second.calls.names == ["post"], "the upload's response came from the journal")
        #expect(second.calls.keys == [postKey])
        #expect(
            second.store.state
                == PhotoState(uploadedURL: "https://cdn/p.jpg", timesShown: 1, postID: 7, timesApplied: 1))
        #expect(journal.runs.isEmpty, "a finished run leaves the journal")
        #expect(second.store.store.durableMarks().isEmpty, "and its marks leave the store")
    }

    // The post and the show both become ready when the upload ends; which of them reaches the
    // journal first is not ordered. So at the kill point the post may not have started, may be in
    // flight or may have ended: these two tests make the post idempotent and check what holds in all
    // three cases (the show applied once; the post called with its one key and applied once).

    @Test("killed after a sync node was applied and saved: it is not applied twice")
    func appliedSyncNodeIsNotAppliedTwice() async throws {
        let (journal, state, marks, first) = try await killed(
            at: .syncApplied(node: "show"), post: .rerunWithSameKey)
        #expect(state.timesShown == 1)
        #expect(marks.count == 1)

        let second = Launch(journal: journal, state: state, marks: marks, post: .rerunWithSameKey)
        let report = try await second.resume()

        let endedBefore = Set(report.resumed.first?.endedBefore ?? [])
        #expect(endedBefore.isSuperset(of: ["upload", "show"]))
        #expect(second.store.state.timesShown == 1, "exactly once into the reducer")
        #expect(second.store.state.timesApplied == 1)
        #expect(!second.calls.names.contains("upload"), "the finished upload is not called again")
        expectPostCalledWithItsKey(first, second)
    }

    @Test("a sync node applied but not saved before the kill is applied again, once, into the restored state")
    func unsavedSyncNodeIsAppliedAgain() async throws {
        let (journal, _, _, first) = try await killed(at: .syncApplied(node: "show"), post: .rerunWithSameKey)
        // The app's state file lagged behind: it holds neither the show nor its mark.
        let second = Launch(journal: journal, post: .rerunWithSameKey)
        _ = try await second.resume()
        #expect(second.store.state.timesShown == 1)
        #expect(!second.calls.names.contains("upload"))
        expectPostCalledWithItsKey(first, second)
    }

    /// Over both launches the post was called at least once, and never with another key.
    private func expectPostCalledWithItsKey(_ first: Launch, _ second: Launch) {
        let calls = zip(first.calls.names + second.calls.names, first.calls.keys + second.calls.keys)
        let posts = calls.filter { $0.0 == "post" }.map(\.1)
        #expect(!posts.isEmpty)
        #expect(posts.allSatisfy { $0 == postKey })
        #expect(second.calls.names.allSatisfy { $0 == "post" })
    }

    @Test("in doubt, idempotent: the upload runs again as attempt 2 with the same key")
    func inDoubtRerunsWithTheSameKey() async throws {
        let (journal, state, marks, first) = try await killed(at: .attemptStarted(node: "upload"))
        #expect(first.calls.keys == [uploadKey], "the call may have happened")

        let second = Launch(journal: journal, state: state, marks: marks)
        let report = try await second.resume()

        #expect(report.resumed.first?.inDoubt == ["upload"])
        #expect(second.calls.keys == [uploadKey, postKey], "at least once, never with a new key")
        #expect(second.store.state.timesApplied == 1)
    }

    @Test("in doubt, at most once: the post is never called again; it fails in doubt and its fallback tells the user")
    func inDoubtFailsAndSendsItsFallback() async throws {
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"))

        let second = Launch(journal: journal, state: state, marks: marks)
        let report = try await second.resume()

        #expect(report.resumed.first?.inDoubt == ["post"])
        #expect(second.calls.names.isEmpty, "neither the finished upload nor the in-doubt post is called")
        #expect(second.store.state.postID == nil)
        #expect(second.store.state.error == DurableRunError.inDoubt(node: "post", key: postKey).description)
        #expect(second.store.state.timesShown == 1, "the upload's dependents still ran")
    }

    @Test("an update that turns the post's .failInDoubt into .rerunWithSameKey does not repeat an in-doubt post")
    func inDoubtIsSettledByThePolicyItStartedUnder() async throws {
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"))
        let started = journal.runs.first?.records.last
        #expect(started == .attemptStarted(node: "post", attempt: 1, key: postKey, inDoubt: .failInDoubt))

        // The next build's graph reruns the post; the attempt in doubt promised it never would.
        let second = Launch(journal: journal, state: state, marks: marks, post: .rerunWithSameKey)
        let report = try await second.resume()

        #expect(report.resumed.first?.inDoubt == ["post"])
        #expect(second.calls.names.isEmpty, "the post is not called again")
        #expect(second.store.state.error == DurableRunError.inDoubt(node: "post", key: postKey).description)
    }

    @Test("resumed from a state saved before the show: the show, then the in-doubt post's fallback, as unkilled")
    func resumedRunAppliesItsSyncWorkInTheUninterruptedOrder() async throws {
        let (journal, _, _, _) = try await killed(at: .attemptStarted(node: "post"))
        // The app's state file lagged behind (saved with a debounce): it holds neither the show nor
        // its mark, so the resumed run applies the show again, and the post's fallback.
        let second = Launch(journal: journal)
        let order = LockedValue<[String]>([])
        let watch = second.store.store.subscribe { state in
            order.withLock { seen in
                if state.timesShown > seen.filter({ $0 == "show" }).count { seen.append("show") }
                if state.error != nil, !seen.contains("post failed") { seen.append("post failed") }
            }
        }
        _ = try await second.resume()
        // Unkilled, the show (released by the upload's end) comes before the post's fallback (the
        // post ends after it started): a resumed run keeps that order.
        #expect(order.withLock { $0 } == ["show", "post failed"])
        withExtendedLifetime(watch) {}
    }

    @Test("in doubt, ask: the app's check answers with the post it found; nothing is called, the post is applied")
    func askAnswersWithTheResponse() async throws {
        let asked = LockedValue<[IdempotencyKey]>([])
        let check: InDoubtPolicy<Int> = .ask { key in
            asked.withLock { $0.append(key) }
            return .succeeded(7)
        }
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"), post: check)

        let second = Launch(journal: journal, state: state, marks: marks, post: check)
        _ = try await second.resume()

        #expect(asked.withLock { $0 } == [postKey])
        #expect(second.calls.names.isEmpty)
        #expect(second.store.state.postID == 7)
        #expect(second.store.state.timesApplied == 1)
    }

    @Test("in doubt, ask: 'run again' calls the post once more, with the same key")
    func askRunAgainCallsOnceMore() async throws {
        let check: InDoubtPolicy<Int> = .ask { _ in .runAgain }
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"), post: check)

        let second = Launch(journal: journal, state: state, marks: marks, post: check)
        _ = try await second.resume()

        #expect(second.calls.keys == [postKey])
        #expect(second.store.state.timesApplied == 1)
    }

    @Test("a failInDoubt decision is journaled as the attempt's end: the launch after does not decide again")
    func failInDoubtDecisionIsJournaled() async throws {
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"))
        journal.stop(at: .attemptEnded(node: "post"))  // killed right after the decision is on disk
        let second = Launch(journal: journal, state: state, marks: marks)
        let persisted = second.store.persisting(untilStopOf: journal)
        let decided = try await second.resume()
        #expect(decided.resumed.first?.inDoubt == ["post"])
        #expect(journal.hasStopped, "the decision was journaled")

        let third = Launch(
            journal: journal.reopened(), state: try persisted.state(), marks: try persisted.durableMarks())
        let report = try await third.resume()
        #expect(report.resumed.first?.inDoubt == [], "decided before: no longer in doubt")
        // The show and the post's decision both follow the upload: whether the show was journaled
        // before the second launch stopped is not ordered; it reached the state once either way.
        let endedBefore = Set(report.resumed.first?.endedBefore ?? [])
        #expect(endedBefore.isSuperset(of: ["upload", "post"]))
        #expect(third.store.state.timesShown == 1)
        #expect(third.calls.names.isEmpty)
        #expect(third.store.state.error == DurableRunError.inDoubt(node: "post", key: postKey).description)
        #expect(third.store.state.postID == nil)
    }

    @Test("an ask answered 'fail' is journaled as the attempt's end: the launch after does not ask again")
    func askAnsweredFailIsJournaled() async throws {
        let asked = LockedValue(0)
        let check: InDoubtPolicy<Int> = .ask { _ in
            asked.withLock { $0 += 1 }
            return .fail
        }
        let (journal, state, marks, _) = try await killed(at: .attemptStarted(node: "post"), post: check)
        journal.stop(at: .attemptEnded(node: "post"))
        let second = Launch(journal: journal, state: state, marks: marks, post: check)
        let persisted = second.store.persisting(untilStopOf: journal)
        _ = try await second.resume()
        #expect(asked.withLock { $0 } == 1)
        #expect(journal.hasStopped, "the answer was journaled")

        let third = Launch(
            journal: journal.reopened(), state: try persisted.state(), marks: try persisted.durableMarks(),
            post: check)
        let report = try await third.resume()
        #expect(asked.withLock { $0 } == 1, "not asked again")
        #expect(report.resumed.first?.endedBefore.contains("post") == true)
        #expect(third.calls.names.isEmpty)
        #expect(third.store.state.error == DurableRunError.inDoubt(node: "post", key: postKey).description)
    }

    @Test("a response kept out of the journal: the end says so, no byte of it is journaled, and resume calls it again")
    func notJournaledResponseRunsAgain() async throws {
        let (journal, state, marks, first) = try await killed(
            at: .attemptEnded(node: "upload"), uploadCodec: .notJournaled)
        #expect(first.calls.names == ["upload"])
        let records = try #require(journal.runs.first?.records)
        #expect(records.last == .attemptEnded(node: "upload", attempt: 1, end: .responseNotJournaled))
        let journaled = try records.map { try $0.encoded() }.reduce(Data(), +)
        #expect(journaled.range(of: Data("https://cdn/p.jpg".utf8)) == nil, "the response never reached the journal")

        let second = Launch(journal: journal, state: state, marks: marks, uploadCodec: .notJournaled)
        let report = try await second.resume()
        #expect(report.resumed.first?.endedBefore == [])
        #expect(second.calls.keys == [uploadKey, postKey], "called again, with the same key")
        #expect(
            second.store.state
                == PhotoState(uploadedURL: "https://cdn/p.jpg", timesShown: 1, postID: 7, timesApplied: 1))
    }

    @Test("an ask answered with a response kept out of the journal: journaled without it, called again after")
    func askAnswerOfANotJournaledNode() async throws {
        let check: InDoubtPolicy<String> = .ask { _ in .succeeded("https://cdn/found.jpg") }
        let (journal, state, marks, _) = try await killed(
            at: .attemptStarted(node: "upload"), upload: check, uploadCodec: .notJournaled)
        journal.stop(at: .attemptEnded(node: "upload"))
        let second = Launch(journal: journal, state: state, marks: marks, upload: check, uploadCodec: .notJournaled)
        _ = try await second.resume()
        #expect(
            journal.runs.first?.records.last == .attemptEnded(node: "upload", attempt: 1, end: .responseNotJournaled))
        #expect(second.calls.names.isEmpty, "the check's answer stood in for the call")

        let third = Launch(journal: journal.reopened(), upload: check, uploadCodec: .notJournaled)
        _ = try await third.resume()
        #expect(third.calls.keys == [uploadKey, postKey], "no response to replay: called again, same key")
    }

    @Test("a node with its own codec: the journal holds what it encoded, and resume decodes it back")
    func customCodecEncodesTheResponse() async throws {
        // A stand-in for encryption: the bytes reversed, behind a tag.
        let sealed = DurableCodec<String>(
            encode: { Data("sealed:".utf8) + Data(Data($0.utf8).reversed()) },
            decode: { data in
                guard data.starts(with: Data("sealed:".utf8)) else { throw Offline() }
                return String(decoding: data.dropFirst(7).reversed(), as: UTF8.self)
            })
        let (journal, state, marks, _) = try await killed(at: .attemptEnded(node: "upload"), uploadCodec: sealed)
        let expected = Data("sealed:".utf8) + Data(Data("https://cdn/p.jpg".utf8).reversed())
        #expect(
            journal.runs.first?.records.last == .attemptEnded(node: "upload", attempt: 1, end: .response(expected)))

        let second = Launch(journal: journal, state: state, marks: marks, uploadCodec: sealed)
        let report = try await second.resume()
        #expect(report.resumed.first?.endedBefore == ["upload"])
        #expect(second.calls.names == ["post"], "decoded by the node's codec, not called again")
        #expect(second.store.state.uploadedURL == "https://cdn/p.jpg")
    }

    @Test("a codec that cannot encode fails the node: the journal records that the call happened")
    func customCodecThatThrowsFailsTheNode() async throws {
        let broken = DurableCodec<String>(encode: { _ in throw Offline() }, decode: { _ in "" })
        let journal = InMemoryRunJournal()
        let launch = Launch(journal: journal, uploadCodec: broken)
        try await launch.publish()
        #expect(launch.calls.names == ["upload"])
        #expect(launch.store.state == PhotoState())
    }

    @Test("a failed attempt counts towards the retry policy across a relaunch; attempt numbers continue")
    func failedAttemptsCountAcrossTheRelaunch() async throws {
        let journal = InMemoryRunJournal()
        journal.stop(at: .attemptEnded(node: "upload", attempt: 1))
        let first = Launch(journal: journal, uploadRetries: 1, uploadFailures: 1)
        try await first.publish()
        #expect(journal.hasStopped)

        let reopened = journal.reopened()
        reopened.stop(at: .attemptEnded(node: "upload", attempt: 2))
        let second = Launch(journal: reopened, uploadRetries: 1)
        _ = try await second.resume()
        #expect(reopened.hasStopped, "the retry is attempt 2, not a new attempt 1")
        #expect(second.calls.keys.first == uploadKey)
    }

    @Test("a node that used up its attempts before the relaunch is not called again; what needs it is skipped")
    func exhaustedNodeStaysFailed() async throws {
        let journal = InMemoryRunJournal()
        journal.stop(at: .attemptEnded(node: "upload"))
        let first = Launch(journal: journal, uploadFailures: 1)
        try await first.publish()

        let second = Launch(journal: journal.reopened())
        let report = try await second.resume()
        #expect(report.resumed.first?.endedBefore == ["upload"])
        #expect(second.calls.names.isEmpty)
        #expect(second.store.state == PhotoState())
    }

    @Test("a graph whose shape changed is not resumed: the app gets its records and a clear error")
    func changedGraphIsNotResumed() async throws {
        let (journal, state, marks, _) = try await killed(at: .attemptEnded(node: "upload"))
        let before = journal.runs

        let second = Launch(journal: journal, state: state, marks: marks, changedGraph: true)
        let report = try await second.resume()

        #expect(report.resumed.isEmpty)
        let notResumed = try #require(report.notResumed.first)
        guard case .graphChanged(graph: "publish", _, _) = notResumed.error else {
            Issue.record("expected graphChanged, got \(notResumed.error)")
            return
        }
        #expect(notResumed.journal == before.first)
        #expect(journal.runs == before, "left in the journal, untouched")
        #expect(second.calls.names.isEmpty)
        #expect(second.store.store.durableMarks() == marks, "and its marks stay with the state")
    }

    @Test("a run whose builder is not registered is reported and left in the journal")
    func missingBuilderIsReported() async throws {
        let (journal, _, _, _) = try await killed(at: .attemptEnded(node: "upload"))
        let second = Launch(journal: journal, registers: false)
        let report = try await second.resume()
        #expect(report.notResumed.map(\.error) == [.unknownGraph("publish")])
        #expect(journal.runs.map(\.runID) == ["post-42"])
    }

    @Test("a cancelled durable run is recorded finished, so a relaunch never resumes it")
    func cancelledRunIsNotResumed() async throws {
        let journal = InMemoryRunJournal()
        let first = Launch(journal: journal)
        let held = first.store.hold(UploadPhoto.self)
        try await withDeadline(10, "a cancelled durable run") {
            let run = try await first.durable.start("publish", runID: "post-42", parameters: Draft(photo: "p.jpg"))
            _ = try await held.nextCall()
            run.cancel()
            await run.wait()
            await first.durable.flush()
        }
        #expect(journal.runs.isEmpty)
        let second = Launch(journal: journal.reopened())
        let report = try await second.resume()
        #expect(report.resumed.isEmpty && report.notResumed.isEmpty)
    }

    @Test("start refuses a run id the journal holds unfinished and this launch has not resumed; nothing is appended")
    func startRefusesAnUnresumedRun() async throws {
        let (journal, state, marks, _) = try await killed(at: .attemptEnded(node: "upload"))
        let before = journal.runs

        let second = Launch(journal: journal, state: state, marks: marks)
        await #expect(throws: DurableRunError.runNotResumed("post-42")) {
            try await second.publish()
        }
        #expect(journal.runs == before, "no second start appended to the run")
        #expect(second.calls.names.isEmpty)
        #expect(DurableRunError.runNotResumed("post-42").description.contains("resumeUnfinished()"))

        let report = try await second.resume()
        #expect(report.resumed.map(\.runID) == ["post-42"])
        #expect(second.store.state.timesApplied == 1)
        #expect(journal.runs.isEmpty)
    }

    @Test("a run id whose unfinished run the app removed from the journal can be started again")
    func startAcceptsARunRemovedFromTheJournal() async throws {
        let (journal, _, _, _) = try await killed(at: .attemptEnded(node: "upload"))
        let second = Launch(journal: journal)
        await #expect(throws: DurableRunError.runNotResumed("post-42")) { try await second.publish() }

        try journal.removeRun("post-42")
        try await second.publish()
        #expect(second.calls.names == ["upload", "post"])
        #expect(second.store.state.timesApplied == 1)
    }

    @Test("with durable persistence, a cancelled run leaves the journal once a saved state holds what it applied")
    func cancelledRunWaitsForTheSave() async throws {
        let journal = InMemoryRunJournal()
        try await withSavedLaunch(journal: { _ in journal }) { first, persistence, _ in
            let held = first.store.hold(CreatePost.self)
            try await withDeadline(10, "a cancelled durable run") {
                let run = try await first.durable.start("publish", runID: "post-42", parameters: Draft(photo: "p.jpg"))
                _ = try await held.nextCall()
                for await state in first.store.store.states() where state.timesShown == 1 { break }
                run.cancel()
                await run.wait()
                await first.durable.flush()
            }
            #expect(first.store.state.timesShown == 1)
            #expect(journal.runs.map(\.runID) == ["post-42"], "killed now, the saved state lacks the show")

            // Killed before the save: the next launch restores the state saved before the run.
            let reopened = journal.reopened()
            let second = Launch(journal: reopened)
            let report = try await second.resume()
            #expect(report.resumed.map(\.runID) == ["post-42"])
            #expect(second.calls.names.isEmpty, "nothing of a cancelled run is called again")
            #expect(second.store.state == PhotoState(uploadedURL: "https://cdn/p.jpg", timesShown: 1))
            #expect(reopened.runs.isEmpty, "and then it leaves the journal")

            // Not killed: the save lets the cancelled run leave the journal.
            try persistence.flush()
            await first.durable.flush()
            #expect(journal.runs.isEmpty)
        }
    }

    @Test("the journal's limit on pending runs refuses a new run with a clear error; nothing of it runs")
    func pendingRunLimit() async throws {
        try await withJournalFolderAsync { folder in
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 1)
            let launch = Launch(journal: journal)
            let held = launch.store.hold(UploadPhoto.self)
            try await withDeadline(10, "two durable runs") {
                _ = try await launch.durable.start("publish", runID: "post-1", parameters: Draft(photo: "a.jpg"))
                _ = try await held.nextCall()
                await #expect(
                    throws: DurableRunError.journalFailed(
                        node: nil, .pendingRunLimitReached(path: folder.standardizedFileURL.path, limit: 1))
                ) {
                    _ = try await launch.durable.start("publish", runID: "post-2", parameters: Draft(photo: "b.jpg"))
                }
            }
            #expect(launch.calls.names.isEmpty)
        }
    }

    @Test("with durable persistence, a finished run leaves the journal only once a saved state holds its sync work")
    func finishedRunWaitsForTheSave() async throws {
        let journal = InMemoryRunJournal()
        try await withSavedLaunch(journal: { _ in journal }) { launch, persistence, stateFile in
            try await launch.publish()
            #expect(launch.store.state.postID == 7, "the run ended")
            #expect(
                journal.runs.map(\.runID) == ["post-42"], "killed now, a relaunch resumes it: the state is not saved")

            try persistence.flush()
            await launch.durable.flush()
            #expect(journal.runs.isEmpty, "saved: the run leaves the journal")
            #expect(savedState(stateFile).timesApplied == 1)
        }
    }

    /// Where a test keeps its journal: in memory, or in files.
    enum JournalKind: String, CustomTestStringConvertible, CaseIterable {
        case memory, file
        var testDescription: String { rawValue }

        func make(in folder: URL) throws -> any RunJournal {
            switch self {
            case .memory: InMemoryRunJournal()
            case .file: try FileRunJournal(folder: folder.appendingPathComponent("runs", isDirectory: true))
            }
        }
    }

    @Test(
        "a run id started again before the save that lets its last run leave the journal: the state is saved, the old run leaves, the new one keeps its records",
        arguments: JournalKind.allCases)
    func runIDReusedBeforeTheSave(kind: JournalKind) async throws {
        try await withSavedLaunch(journal: kind.make(in:)) { launch, persistence, stateFile in
            let journal = launch.journal
            try await launch.publish()
            #expect(try journal.loadUnfinishedRuns().runs.map(\.runID) == ["post-42"], "the first run waits for a save")

            let held = launch.store.hold(CreatePost.self)
            try await withDeadline(10, "the second run of post-42") {
                let run = try await launch.durable.start("publish", runID: "post-42", parameters: Draft(photo: "b.jpg"))
                _ = try await held.nextCall()
                // The show's outcome comes once its record was queued (after its commit, which a
                // state stream may see first), behind the post's start.
                _ = await run.outcome(of: try #require(launch.showNode.withLock { $0 }))
                await launch.durable.flush()
                #expect(
                    savedState(stateFile).timesApplied == 1, "start saved the state holding the first run's sync work")
                let second = try journal.loadUnfinishedRuns().runs
                #expect(second.map(\.runID) == ["post-42"])
                #expect(second.first?.records.filter(\.isRunStarted).count == 1, "the old run's records left")
                #expect(second.first?.records.first.map(parameters) == Draft(photo: "b.jpg"))

                // Saving again must not remove the new run, in flight: a kill now resumes it.
                try persistence.flush()
                await launch.durable.flush()
                #expect(try journal.loadUnfinishedRuns().runs == second)

                held.respond(with: 8)
                await run.wait()
            }
            try persistence.flush()
            await launch.durable.flush()
            #expect(try journal.loadUnfinishedRuns().runs.isEmpty)
            #expect(savedState(stateFile).postID == 8 && savedState(stateFile).timesApplied == 2)
        }
    }

    @Test(
        "a run id whose last run waits for a save that cannot happen is refused with a clear error; nothing of it runs")
    func runIDReusedWhileTheSaveCannotHappen() async throws {
        let journal = InMemoryRunJournal()
        try await withSavedLaunch(journal: { _ in journal }) { launch, persistence, _ in
            try await launch.publish()
            let before = journal.runs
            persistence.stop()

            await #expect(
                throws: DurableRunError.runEndNotSaved("post-42", reason: "its StatePersistence was stopped")
            ) {
                try await launch.publish()
            }
            #expect(journal.runs == before, "the first run's records, untouched")
            #expect(launch.calls.names == ["upload", "post"], "the second run called nothing")
        }
    }

    @Test("without durable persistence, a run id can be started again as soon as its last run ended")
    func runIDReusedWithoutPersistence() async throws {
        let journal = InMemoryRunJournal()
        let launch = Launch(journal: journal)
        try await launch.publish()
        try await launch.publish()
        #expect(launch.calls.names == ["upload", "post", "upload", "post"])
        #expect(launch.store.state.timesApplied == 2)
        #expect(journal.runs.isEmpty)
    }

    @Test("a run kept in the journal because a record is missing is not appended to: its id is refused until removed")
    func runKeptInTheJournalIsNotReused() async throws {
        let journal = InMemoryRunJournal()
        let launch = Launch(
            journal: FailsOnce(journal) {
                $0 == .attemptStarted(node: "post", attempt: 1, key: postKey, inDoubt: .failInDoubt)
            })
        try await launch.publish()
        #expect(launch.store.state.error != nil, "the post could not be journaled, so it was not called")
        let kept = journal.runs
        #expect(kept.map(\.runID) == ["post-42"], "kept for the app to decide")

        await #expect(throws: DurableRunError.runNotResumed("post-42")) { try await launch.publish() }
        #expect(journal.runs == kept, "nothing appended to the kept run")

        try journal.removeRun("post-42")
        try await launch.publish()
        #expect(launch.store.state.timesApplied == 1)
        #expect(journal.runs.isEmpty)
    }

    @Test("StatePersistence saves the marks with the state, and restores both")
    func persistenceKeepsMarksWithTheState() async throws {
        let journal = InMemoryRunJournal()
        journal.stop(at: .syncApplied(node: "show"))
        try await withSavedLaunch(journal: { _ in journal }) { first, persistence, stateFile in
            try await first.publish()
            try persistence.flush()
            let (state, marks, error) = StatePersistence.restoreDurable(from: stateFile, default: PhotoState())
            #expect(error == nil)
            #expect(state == first.store.state)
            #expect(
                marks.count == 2,
                "the show, and the post's fallback (its attempt could not be journaled after the kill)")
        }
    }
}
