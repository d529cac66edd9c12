import Foundation
import OresReduxTesting
import Testing

@testable import OresRedux

// The first use case of issue 22: upload a photo, create the post with its URL, apply the post.

private struct PostState: Equatable, Sendable {
    var postID: Int?
}

private struct PostParameters: Codable, Sendable, Equatable {
    var photo: String
}

private struct Upload: AsyncAction {
    typealias State = PostState
    let photo: String
    let calls: CallLog
    func run(_ context: ActionContext<PostState>) async throws -> String {
        calls.append("upload", context.idempotencyKey)
        return "https://cdn/\(photo)"
    }
}

private struct CreatePost: AsyncAction {
    typealias State = PostState
    let url: String
    let calls: CallLog
    func run(_ context: ActionContext<PostState>) async throws -> Int {
        calls.append("post", context.idempotencyKey)
        return 7
    }
}

private struct ApplyPost: Action {
    let id: Int
}

/// A journal in memory that records every append and removal, and fails the appends it is told to.
private final class MemoryJournal: RunJournal {
    enum Entry: Equatable {
        case append(String, JournalRecord)
        case remove(String)
    }

    private let state = LockedValue<[Entry]>([])
    private let failing: @Sendable (JournalRecord) -> Bool

    init(failing: @escaping @Sendable (JournalRecord) -> Bool = { _ in false }) {
        self.failing = failing
    }

    var entries: [Entry] { state.withLock { $0 } }

    func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        if failing(record) { throw JournalError.noSpace(path: "memory", reason: "full (a test's fault)") }
        state.withLock { $0.append(.append(runID, record)) }
    }

    func loadUnfinishedRuns() throws(JournalError) -> JournalContents { JournalContents(runs: []) }

    func removeRun(_ runID: String) throws(JournalError) {
        state.withLock { $0.append(.remove(runID)) }
    }
}

extension ActionGraph<PostState> {
    /// The upload of `photo`, labelled "upload", durable: in doubt, it runs again with the same key.
    fileprivate mutating func durableUpload(_ photo: String, calls: CallLog) -> Node<String> {
        let upload = run(Upload(photo: photo, calls: calls))
        setLabel("upload", for: upload)
        setDurable(upload, inDoubt: .rerunWithSameKey)
        return upload
    }
}

private let postReducer = Reducer<PostState>.on(ApplyPost.self) { state, action in state.postID = action.id }

/// The store, its durable runs, and the graph "post" registered: upload -> post -> apply.
private func makePostRuns(journal: any RunJournal, calls: CallLog) -> (Store<PostState>, DurableRuns<PostState>) {
    let store = Store(initialState: PostState(), reducer: postReducer)
    let runs = DurableRuns(store: store, journal: journal)
    runs.register("post", parameters: PostParameters.self) { parameters in
        var graph = ActionGraph<PostState>()
        let upload = graph.durableUpload(parameters.photo, calls: calls)
        let post = graph.run(after: upload) { url in CreatePost(url: url, calls: calls) }
        graph.setLabel("post", for: post)
        graph.setDurable(post, inDoubt: .failInDoubt)
        let apply = graph.send(after: post) { id in ApplyPost(id: id) }
        graph.setLabel("apply", for: apply)
        return graph
    }
    return (store, runs)
}

private func json<T: Encodable>(_ value: T) throws -> Data {
    try JSONEncoder().encode(value)
}

@Suite("Durable runs: the journal written ahead")
struct DurableRunTests {
    @Test("a durable run journals each attempt before it starts, then its response, and removes the run at the end")
    func journalsAheadInOrder() async throws {
        let calls = CallLog()
        let journal = MemoryJournal()
        let (store, runs) = makePostRuns(journal: journal, calls: calls)
        let parameters = PostParameters(photo: "p.jpg")

        try await withDeadline(10, "a durable run") {
            let run = try await runs.start("post", runID: "post-42", parameters: parameters)
            await run.wait()
            await runs.flush()
        }

        #expect(store.state.postID == 7)
        let uploadKey = IdempotencyKey(runID: "post-42", node: "upload")
        let postKey = IdempotencyKey(runID: "post-42", node: "post")
        #expect(calls.names == ["upload", "post"])
        #expect(calls.keys == [uploadKey, postKey])
        let entries = journal.entries
        try #require(entries.count == 8, "\(entries)")
        guard
            case .append("post-42", .runStarted(let runID, let graph, let encoded, let fingerprint, let version, _)) =
                entries[0]
        else {
            Issue.record("the first record is not the run's start: \(entries[0])")
            return
        }
        #expect(runID == "post-42" && graph == "post" && version == JournalRecord.currentFormatVersion)
        #expect(try JSONDecoder().decode(PostParameters.self, from: encoded) == parameters)
        #expect(!fingerprint.isEmpty)
        #expect(
            Array(entries.dropFirst()) == [
                .append(
                    "post-42", .attemptStarted(node: "upload", attempt: 1, key: uploadKey, inDoubt: .rerunWithSameKey)),
                .append(
                    "post-42", .attemptEnded(node: "upload", attempt: 1, end: .response(try json("https://cdn/p.jpg")))),
                .append("post-42", .attemptStarted(node: "post", attempt: 1, key: postKey, inDoubt: .failInDoubt)),
                .append("post-42", .attemptEnded(node: "post", attempt: 1, end: .response(try json(7)))),
                .append("post-42", .syncApplied(node: "apply", commitCount: 1)),
                .append("post-42", .runFinished),
                .remove("post-42"),
            ])
    }

    @Test("the attempt-started record is on disk in a file journal before the node's run is called")
    func fileJournalHoldsTheStartBeforeTheCall() async throws {
        try await withJournalFolderAsync { folder in
            let journal = try FileRunJournal(folder: folder)
            let seen = LockedValue<[JournalRecord]>([])
            let store = Store(initialState: PostState(), reducer: postReducer)
            let runs = DurableRuns(store: store, journal: journal)
            let calls = CallLog()
            runs.register("peek", parameters: PostParameters.self) { parameters in
                var graph = ActionGraph<PostState>()
                let upload = graph.durableUpload(parameters.photo, calls: calls)
                let peek = graph.run(after: upload) { _ in
                    PeekJournal(journal: journal, seen: seen)
                }
                graph.setLabel("peek", for: peek)
                graph.setDurable(peek, inDoubt: .rerunWithSameKey)
                return graph
            }
            try await withDeadline(10, "a durable run on a file journal") {
                let run = try await runs.start("peek", runID: "run-1", parameters: PostParameters(photo: "a.jpg"))
                await run.wait()
                await runs.flush()
            }
            let records = seen.withLock { $0 }
            #expect(records.count == 4)
            #expect(
                records.last
                    == .attemptStarted(
                        node: "peek", attempt: 1, key: IdempotencyKey(runID: "run-1", node: "peek"),
                        inDoubt: .rerunWithSameKey))
            #expect(try journal.loadUnfinishedRuns().runs.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: runFile("run-1", in: folder)))
        }
    }

    @Test("outside a durable run, an async node's context has no idempotency key")
    func noKeyOutsideADurableRun() async throws {
        let calls = CallLog()
        let store = Store(initialState: PostState(), reducer: postReducer)
        var graph = ActionGraph<PostState>()
        graph.run(Upload(photo: "p.jpg", calls: calls))
        let plain = graph
        _ = try await withDeadline(10, "a plain run") { await store.dispatch(plain).wait() }
        #expect(calls.names == ["upload"])
        #expect(calls.keys == [nil])
    }

    @Test("a failed attempt-started append fails that node without calling it; the run ends and keeps its records")
    func failedAppendFailsTheNode() async throws {
        let calls = CallLog()
        let journal = MemoryJournal { record in
            if case .attemptStarted(node: "post", _, _, _) = record { return true }
            return false
        }
        let (store, runs) = makePostRuns(journal: journal, calls: calls)
        let report = try await withDeadline(10, "a durable run whose journal fails") {
            let run = try await runs.start("post", runID: "post-9", parameters: PostParameters(photo: "p.jpg"))
            let report = await run.wait()
            await runs.flush()
            return report
        }
        #expect(calls.names == ["upload"])
        #expect(store.state.postID == nil)
        #expect(report.map(\.outcome) == [.succeeded, .failed, .skipped])
        let postError = try #require(report[1].error as? DurableRunError)
        guard case .journalFailed(let node, let underlying) = postError else {
            Issue.record("unexpected error \(postError)")
            return
        }
        #expect(node == "post")
        #expect(underlying == .noSpace(path: "memory", reason: "full (a test's fault)"))
        #expect(postError.description.contains("post"))
        // Nothing recorded is lost, and a run that could not journal is not removed.
        #expect(journal.entries.count == 3)
        #expect(!journal.entries.contains(.remove("post-9")))
    }

    @Test("a failed run-started append throws from start, and nothing runs")
    func failedRunStartThrows() async throws {
        let calls = CallLog()
        let journal = MemoryJournal { record in
            if case .runStarted = record { return true }
            return false
        }
        let (store, runs) = makePostRuns(journal: journal, calls: calls)
        await #expect(throws: DurableRunError.self) {
            try await runs.start("post", runID: "post-1", parameters: PostParameters(photo: "p.jpg"))
        }
        #expect(calls.names.isEmpty)
        #expect(store.state.postID == nil)
    }

    @Test("a durable graph needs a unique label on every node and a declared durable async node")
    func badGraphsAreRejected() async throws {
        let store = Store(initialState: PostState(), reducer: postReducer)
        let runs = DurableRuns(store: store, journal: MemoryJournal())
        let calls = CallLog()
        runs.register("unlabelled", parameters: PostParameters.self) { _ in
            var graph = ActionGraph<PostState>()
            graph.send(ApplyPost(id: 1))
            return graph
        }
        runs.register("twice", parameters: PostParameters.self) { _ in
            var graph = ActionGraph<PostState>()
            graph.setLabel("apply", for: graph.send(ApplyPost(id: 1)))
            graph.setLabel("apply", for: graph.send(ApplyPost(id: 2)))
            return graph
        }
        runs.register("undeclared", parameters: PostParameters.self) { _ in
            var graph = ActionGraph<PostState>()
            graph.setLabel("upload", for: graph.run(Upload(photo: "p", calls: calls)))
            return graph
        }
        let parameters = PostParameters(photo: "p")
        await #expect(throws: DurableRunError.missingLabel(node: 0)) {
            try await runs.start("unlabelled", runID: "a", parameters: parameters)
        }
        await #expect(throws: DurableRunError.duplicateLabel("apply", nodes: [0, 1])) {
            try await runs.start("twice", runID: "b", parameters: parameters)
        }
        await #expect(throws: DurableRunError.notDurable(node: "upload")) {
            try await runs.start("undeclared", runID: "c", parameters: parameters)
        }
        await #expect(throws: DurableRunError.unknownGraph("nope")) {
            try await runs.start("nope", runID: "d", parameters: parameters)
        }
        #expect(calls.names.isEmpty)
    }
}

/// An async node that reads what the journal holds for its run when it is called.
private struct PeekJournal: AsyncAction {
    typealias State = PostState
    let journal: FileRunJournal
    let seen: LockedValue<[JournalRecord]>
    func run(_ context: ActionContext<PostState>) async throws -> Int {
        let records = try journal.loadUnfinishedRuns().runs.first { $0.runID == "run-1" }?.records ?? []
        seen.withLock { $0 = records }
        return records.count
    }
}

/// A journal whose appends of chosen records block, on the journal's own queue, until the test
/// lets them go; it tells the test each time one is blocked.
private final class BlockingJournal: RunJournal {
    let blocked: AsyncStream<JournalRecord>
    private let announce: AsyncStream<JournalRecord>.Continuation
    private let release = DispatchSemaphore(value: 0)
    private let blocks: @Sendable (JournalRecord) -> Bool

    init(blocking blocks: @escaping @Sendable (JournalRecord) -> Bool) {
        (blocked, announce) = AsyncStream.makeStream()
        self.blocks = blocks
    }

    /// Lets the blocked append go on.
    func letGo() { release.signal() }

    func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        guard blocks(record) else { return }
        announce.yield(record)
        release.wait()  // on the journal's dispatch queue, never on a pool thread
    }

    func loadUnfinishedRuns() throws(JournalError) -> JournalContents { JournalContents(runs: []) }
    func removeRun(_ runID: String) throws(JournalError) {}
}

@Suite("Durable runs: the store's work counter sees journal writes")
struct DurableRunWorkCounterTests {
    @Test("while a record is being written, awaited or not, the store is not quiet")
    func journalWritesAreCountedWork() async throws {
        let counter = WorkCounter()
        var options = StoreOptions()
        options.workCounter = counter
        let store = Store(initialState: PostState(), reducer: postReducer, options: options)
        let journal = BlockingJournal { record in
            switch record {
            case .attemptStarted(node: "upload", _, _, _), .syncApplied: true
            default: false
            }
        }
        let runs = DurableRuns(store: store, journal: journal)
        let calls = CallLog()
        runs.register("post", parameters: PostParameters.self) { parameters in
            var graph = ActionGraph<PostState>()
            let upload = graph.durableUpload(parameters.photo, calls: calls)
            graph.setLabel("apply", for: graph.send(after: upload) { _ in ApplyPost(id: 1) })
            return graph
        }
        try await withDeadline(10, "a durable run whose journal writes block") {
            var blocked = journal.blocked.makeAsyncIterator()
            let run = try await runs.start("post", runID: "post-1", parameters: PostParameters(photo: "p"))

            // An awaited write: the node's task waits for it, and still counts as running.
            let first = await blocked.next()
            #expect(
                first
                    == .attemptStarted(
                        node: "upload", attempt: 1, key: IdempotencyKey(runID: "post-1", node: "upload"),
                        inDoubt: .rerunWithSameKey)
            )
            #expect(counter.snapshot.running >= 1)
            #expect(counter.lines().contains { $0.hasPrefix("  running: upload (node #0)") })
            #expect(calls.names.isEmpty, "the call waits for its start to be on disk")
            journal.letGo()

            // A write nobody awaits: a unit of its own until it is done.
            let second = await blocked.next()
            #expect(second == .syncApplied(node: "apply", commitCount: 1))
            #expect(counter.lines().contains { $0.hasPrefix("  running: a run journal write") })
            journal.letGo()

            await run.wait()
            await runs.flush()
        }
        #expect(await counter.wait(timeout: .seconds(10)) { counter.snapshot.running == 0 })
        #expect(calls.names == ["upload"])
        #expect(store.state.postID == 1)
    }
}
