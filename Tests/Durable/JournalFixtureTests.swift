import Foundation
import OresReduxTesting
import Testing

@testable import OresRedux

// Journals written by an earlier build (journal format 1, failures journaled as text), kept as
// fixtures in `Fixtures/JournalFixturesV1.swift`: every later build must resume them. They were
// recorded by `recordFixtures` below (run it with ORESREDUX_RECORD_JOURNAL_FIXTURES=<file> to write
// them again; only for a new fixture: the point of these is that they stay as an old build wrote them).

struct OrderState: Equatable, Sendable, Codable {
    var shown: [String] = []
    var charged = 0
    var chargeFailures: [String] = []
    var synced = 0
    var brokenFailures = 0
    var started = 0
    var finished = 0
}

struct OrderDraft: Codable, Sendable, Equatable {
    var item: String
}

struct FetchItem: AsyncAction {
    typealias State = OrderState
    let item: String
    func run(_ context: ActionContext<OrderState>) async throws -> String { "unreachable: stubbed" }
}

struct Charge: AsyncAction {
    typealias State = OrderState
    let item: String
    func run(_ context: ActionContext<OrderState>) async throws -> Int { -1 }
}

struct SyncItem: AsyncAction {
    typealias State = OrderState
    let item: String
    func run(_ context: ActionContext<OrderState>) async throws -> Int { -1 }
}

struct BrokenCall: AsyncAction {
    typealias State = OrderState
    func run(_ context: ActionContext<OrderState>) async throws -> Int { -1 }
}

struct WaitLong: AsyncAction {
    typealias State = OrderState
    func run(_ context: ActionContext<OrderState>) async throws -> Int { -1 }
}

struct FixtureOffline: Error, CustomStringConvertible {
    var description: String { "offline (the fixture's failure)" }
}

private struct ShowItem: Action { let name: String }
private struct Charged: Action {}
private struct ChargeFailed: Action { let reason: String }
private struct Synced: Action {}
private struct BrokenFailed: Action {}
private struct Started: Action {}
private struct Finished: Action {}

private let orderReducer = Reducer<OrderState>.combine(
    .on(ShowItem.self) { state, action in state.shown.append(action.name) },
    .on(Charged.self) { state, _ in state.charged += 1 },
    .on(ChargeFailed.self) { state, action in state.chargeFailures.append(action.reason) },
    .on(Synced.self) { state, _ in state.synced += 1 },
    .on(BrokenFailed.self) { state, _ in state.brokenFailures += 1 },
    .on(Started.self) { state, _ in state.started += 1 },
    .on(Finished.self) { state, _ in state.finished += 1 })

/// The graphs of the fixtures, as the build that recorded them registered them (their shapes must
/// not change: the journals hold their fingerprints).
func registerFixtureGraphs(
    _ durable: DurableRuns<OrderState>, charge: InDoubtPolicy<Int> = .failInDoubt
) {
    // order: fetch (idempotent) -> show; fetch -> charge (at most once) -> confirm;
    // fetch -> sync (idempotent) -> synced; broken (fails, at most once) with a fallback.
    durable.register("order", parameters: OrderDraft.self) { draft in
        var graph = ActionGraph<OrderState>()
        let fetch = graph.run(FetchItem(item: draft.item))
        graph.setLabel("fetch", for: fetch)
        graph.setDurable(fetch, inDoubt: .rerunWithSameKey)
        graph.setLabel("show", for: graph.send(after: fetch) { name in ShowItem(name: name) })
        let charged = graph.run(after: fetch) { name in Charge(item: name) }
        graph.setLabel("charge", for: charged)
        graph.setDurable(charged, inDoubt: charge)
        graph.setFallback(for: charged) { error in ChargeFailed(reason: "\(error)") }
        graph.setLabel("confirm", for: graph.send(after: charged) { _ in Charged() })
        let synced = graph.run(after: fetch) { name in SyncItem(item: name) }
        graph.setLabel("sync", for: synced)
        graph.setDurable(synced, inDoubt: .rerunWithSameKey)
        graph.setLabel("synced", for: graph.send(after: synced) { _ in Synced() })
        let broken = graph.run(BrokenCall())
        graph.setLabel("broken", for: broken)
        graph.setDurable(broken, inDoubt: .failInDoubt)
        graph.setFallback(for: broken) { _ in BrokenFailed() }
        return graph
    }
    // slow: started -> wait (idempotent) -> finished; the app cancels it while wait is in flight.
    durable.register("slow", parameters: OrderDraft.self) { _ in
        var graph = ActionGraph<OrderState>()
        let started = graph.send(Started())
        graph.setLabel("started", for: started)
        let waited = graph.run(after: started) { _ in WaitLong() }
        graph.setLabel("wait", for: waited)
        graph.setDurable(waited, inDoubt: .rerunWithSameKey)
        graph.setLabel("finished", for: graph.send(after: waited) { _ in Finished() })
        return graph
    }
}

/// A journal folder and saved state, as files.
struct JournalFixture: Sendable {
    /// File name to contents, base64.
    var files: [String: String]
    /// The saved state with its marks (`StatePersistence`'s durable form), base64; empty if none was saved.
    var state: String

    /// Writes the fixture into `folder` (the journal) and returns the saved state's file beside it.
    func write(to folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(base64Encoded: contents)!.write(to: folder.appendingPathComponent(name))
        }
        let stateFile = folder.deletingLastPathComponent().appendingPathComponent("state.json")
        if !state.isEmpty { try Data(base64Encoded: state)!.write(to: stateFile) }
        return stateFile
    }
}

/// A test store restored from the state saved in `stateFile`, with its marks.
private func restoredStore(_ stateFile: URL) -> TestStore<OrderState> {
    let restored = StatePersistence.restoreDurable(from: stateFile, default: OrderState())
    return TestStore(
        initialState: restored.state, reducer: orderReducer, dependencies: Dependencies(), exhaustivity: .off,
        durableMarks: restored.durableMarks)
}

/// A launch on a fixture: the store restored from its saved state, its journal, the graphs
/// registered, and stubs that log their calls.
private struct FixtureLaunch {
    let store: TestStore<OrderState>
    let journal: FileRunJournal
    let durable: DurableRuns<OrderState>
    let calls = CallLog()

    init(stateFile: URL, journalFolder: URL, charge: InDoubtPolicy<Int> = .failInDoubt) throws {
        store = restoredStore(stateFile)
        journal = try FileRunJournal(folder: journalFolder)
        durable = DurableRuns(store: store.store, journal: journal)
        let calls = self.calls
        store.stub(FetchItem.self) { action, context in
            calls.append("fetch", context.idempotencyKey)
            return action.item
        }
        store.stub(Charge.self) { _, context in
            calls.append("charge", context.idempotencyKey)
            return 1
        }
        store.stub(SyncItem.self) { _, context in
            calls.append("sync", context.idempotencyKey)
            return 1
        }
        store.stub(BrokenCall.self) { _, context in
            calls.append("broken", context.idempotencyKey)
            throw FixtureOffline()
        }
        store.stub(WaitLong.self) { _, context in
            calls.append("wait", context.idempotencyKey)
            return 1
        }
        registerFixtureGraphs(durable, charge: charge)
    }

    func resume() async throws -> DurableResumeReport<OrderState> {
        try await withDeadline(10, "the resumed fixture runs") {
            let report = await durable.resumeUnfinished()
            for resumed in report.resumed { await resumed.run.wait() }
            await durable.flush()
            return report
        }
    }

    /// Resumes `fixture` in a fresh folder and hands the launch and its report to `body`.
    static func resuming(
        _ fixture: JournalFixture, charge: InDoubtPolicy<Int> = .failInDoubt,
        _ body: (FixtureLaunch, DurableResumeReport<OrderState>) async throws -> Void
    ) async throws {
        try await withJournalFolderAsync { folder in
            let stateFile = try fixture.write(to: folder)
            let launch = try FixtureLaunch(stateFile: stateFile, journalFolder: folder, charge: charge)
            defer { launch.journal.close() }
            try await body(launch, try await launch.resume())
        }
    }
}

private let chargeKey = IdempotencyKey(runID: "order-1", node: "charge")
private let syncKey = IdempotencyKey(runID: "order-1", node: "sync")

@Suite("Durable runs: journals written by an earlier build resume")
struct JournalFixtureTests {
    @Test("format 1, stopped mid-way: the fetched item and the failure replay, charge fails in doubt, sync runs again")
    func midway() async throws {
        try await FixtureLaunch.resuming(JournalFixturesV1.midway) { launch, report in
            #expect(report.failures.isEmpty)
            #expect(report.notResumed.isEmpty)
            let resumed = try #require(report.resumed.first)
            #expect(resumed.runID == "order-1")
            #expect(Set(resumed.endedBefore).isSuperset(of: ["fetch", "show", "broken", "charge"]))
            #expect(resumed.inDoubt == ["charge", "sync"])
            #expect(launch.calls.names == ["sync"], "nothing that ended is called again; charge is never repeated")
            #expect(launch.calls.keys == [syncKey], "the idempotent node runs again with its key")
            let state = launch.store.state
            #expect(state.shown == ["item-7"], "show is applied once, before the stop")
            #expect(state.brokenFailures == 1, "the journaled failure's fallback is applied once")
            #expect(state.charged == 0)
            #expect(state.chargeFailures.count == 1)
            #expect(state.chargeFailures.first?.contains("may or may not have happened") == true)
            #expect(state.synced == 1)
            #expect(try launch.journal.loadUnfinishedRuns().runs.isEmpty, "the resumed run finished")
        }
    }

    @Test("format 1, charge settled in doubt by an earlier resume: it is neither called nor decided again")
    func settledBefore() async throws {
        // Even with today's policy turned to `.rerunWithSameKey`: the journal says it failed in doubt.
        try await FixtureLaunch.resuming(JournalFixturesV1.settled, charge: .rerunWithSameKey) { launch, report in
            let resumed = try #require(report.resumed.first)
            #expect(resumed.inDoubt.isEmpty, "settled by the launch before")
            #expect(launch.calls.names.isEmpty, "charge is not called; sync's response was journaled")
            #expect(launch.store.state.chargeFailures.count == 1)
            #expect(launch.store.state.chargeFailures.first?.contains(chargeKey.rawValue) == true)
            #expect(launch.store.state.synced == 1)
            #expect(launch.store.state.charged == 0)
        }
    }

    @Test("format 1, a cancelled run: nothing more of it runs, its applied sync node stays applied once")
    func cancelled() async throws {
        try await FixtureLaunch.resuming(JournalFixturesV1.cancelled) { launch, report in
            let resumed = try #require(report.resumed.first)
            #expect(resumed.runID == "slow-1")
            #expect(launch.calls.names.isEmpty)
            #expect(launch.store.state.started == 1)
            #expect(launch.store.state.finished == 0)
            #expect(try launch.journal.loadUnfinishedRuns().runs.isEmpty)
        }
    }

    // MARK: Recording

    @Test(
        "records the fixtures with this build (only when asked)",
        .enabled(if: ProcessInfo.processInfo.environment["ORESREDUX_RECORD_JOURNAL_FIXTURES"] != nil))
    func recordFixtures() async throws {
        let output = ProcessInfo.processInfo.environment["ORESREDUX_RECORD_JOURNAL_FIXTURES"]!
        var source = """
            // Journals and saved states written by the build of this file's first commit (journal format
            // 1), recorded by `JournalFixtureTests.recordFixtures`. Never edit: they are what an old
            // build left on disk.

            extension JournalFixturesV1 {

            """
        func add(_ name: String, _ fixture: JournalFixture) {
            source += "    static let \(name) = JournalFixture(\n        files: [\n"
            for (file, contents) in fixture.files.sorted(by: { $0.key < $1.key }) {
                source += "            \"\(file)\":\n"
                source += chunked(contents, indent: "                ") + ",\n"
            }
            let state = fixture.state.isEmpty ? "            \"\"" : chunked(fixture.state, indent: "            ")
            source += "        ],\n        state:\n" + state + ")\n\n"
        }
        let (midway, settled) = try await recordOrder()
        add("midway", midway)
        add("settled", settled)
        add("cancelled", try await recordCancelled())
        source += "}\n"
        try source.write(toFile: output, atomically: true, encoding: .utf8)
    }
}

/// The namespace of the recorded fixtures.
enum JournalFixturesV1 {}

/// `text` as a Swift string concatenation of lines of at most 80 characters.
private func chunked(_ text: String, indent: String) -> String {
    var lines: [String] = []
    var rest = Substring(text)
    while !rest.isEmpty {
        lines.append(indent + "\"" + rest.prefix(80) + "\"")
        rest = rest.dropFirst(80)
    }
    return lines.joined(separator: "\n" + indent.dropLast(4) + "    + ")
}

/// The journal folder's files and the saved state, read now.
private func snapshot(_ folder: URL, state stateFile: URL) throws -> JournalFixture {
    var files: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".journal") {
        files[name] = try Data(contentsOf: folder.appendingPathComponent(name)).base64EncodedString()
    }
    let state = FileManager.default.fileExists(atPath: stateFile.path) ? try Data(contentsOf: stateFile) : Data()
    return JournalFixture(files: files, state: state.base64EncodedString())
}

/// A recording launch: a test store whose whole state a durable persistence saves (when flushed).
private struct RecordingLaunch {
    let store: TestStore<OrderState>
    let journal: FileRunJournal
    let durable: DurableRuns<OrderState>
    let persistence: StatePersistence

    init(folder: URL, stateFile: URL) throws {
        store = restoredStore(stateFile)
        journal = try FileRunJournal(folder: folder)
        durable = DurableRuns(store: store.store, journal: journal)
        persistence = StatePersistence(durableStore: store.store, url: stateFile, debounce: .seconds(3600))
        registerFixtureGraphs(durable)
    }
}

/// Records order-1 stopped with fetch and broken ended, show applied and saved, charge and sync in
/// flight; then the same journal after a resume by this build settled charge in doubt and ran sync
/// (before the state holding that was saved).
private func recordOrder() async throws -> (JournalFixture, JournalFixture) {
    var midway: JournalFixture?
    var settled: JournalFixture?
    try await withJournalFolderAsync { folder in
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stateFile = folder.deletingLastPathComponent().appendingPathComponent("state.json")
        let first = try RecordingLaunch(folder: folder, stateFile: stateFile)
        first.store.stub(FetchItem.self) { _ in "item-7" }
        first.store.stub(BrokenCall.self, throwing: FixtureOffline())
        let charge = first.store.hold(Charge.self)
        let sync = first.store.hold(SyncItem.self)
        let run = try await first.durable.start("order", runID: "order-1", parameters: OrderDraft(item: "x"))
        _ = try await charge.nextCall()
        _ = try await sync.nextCall()
        try await withDeadline(10, "show and broken's fallback") {
            while first.store.state.shown.isEmpty || first.store.state.brokenFailures == 0 {
                await Task.yield()
            }
        }
        await first.durable.flush()
        try first.persistence.flush()
        midway = try snapshot(folder, state: stateFile)
        // The process is gone: what the run journals from here is not in the fixture.
        first.persistence.stop()
        run.cancel()
        _ = try await withDeadline(10, "the cancelled run") { await run.wait() }
        await first.durable.flush()
        first.journal.close()

        // The next launch, on the fixture as it was when the first stopped.
        try FileManager.default.removeItem(at: folder)
        let midwayState = try midway!.write(to: folder)
        let second = try RecordingLaunch(folder: folder, stateFile: midwayState)
        second.store.stub(SyncItem.self, with: 1)
        try await withDeadline(10, "the resumed run") {
            for resumed in await second.durable.resumeUnfinished().resumed { await resumed.run.wait() }
            await second.durable.flush()
        }
        settled = try snapshot(folder, state: midwayState)
        second.persistence.stop()
        second.journal.close()
    }
    return (midway!, settled!)
}

/// Records slow-1 cancelled by the app while its wait was in flight, its start applied but not
/// saved yet (so its end waits in the journal).
private func recordCancelled() async throws -> JournalFixture {
    var cancelled: JournalFixture?
    try await withJournalFolderAsync { folder in
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stateFile = folder.deletingLastPathComponent().appendingPathComponent("state.json")
        let launch = try RecordingLaunch(folder: folder, stateFile: stateFile)
        // No state saved: the restored state lacks what the run applies, so its end waits in the journal.
        let wait = launch.store.hold(WaitLong.self)
        let run = try await launch.durable.start("slow", runID: "slow-1", parameters: OrderDraft(item: "x"))
        _ = try await wait.nextCall()
        run.cancel()
        _ = try await withDeadline(10, "the cancelled run") { await run.wait() }
        await launch.durable.flush()
        cancelled = try snapshot(folder, state: stateFile)
        launch.persistence.stop()
        launch.journal.close()
    }
    return cancelled!
}
