import AllocationCounter
import Foundation
import OresRedux

// MARK: - Durable runs: what journaling a node costs over a plain node

/// Async nodes in the measured chain; one sync node follows them.
let durableChainLength = 10

/// Nodes of the measured chain: the async ones and the sync node after them.
let durableChainNodes = durableChainLength + 1

/// The chain the durable figures run: `durableChainLength` async nodes one after another, then a
/// sync node, every node labelled. `durable` declares the async nodes durable (idempotent).
func labelledChain(durable: Bool) -> ActionGraph<BenchState> {
    var graph = ActionGraph<BenchState>()
    var last = graph.run(Trivial())
    graph.setLabel("call-0", for: last)
    if durable { graph.setDurable(last, inDoubt: .rerunWithSameKey) }
    for index in 1..<durableChainLength {
        last = graph.run(Trivial(), after: last)
        graph.setLabel("call-\(index)", for: last)
        if durable { graph.setDurable(last, inDoubt: .rerunWithSameKey) }
    }
    graph.setLabel("apply", for: graph.send(Increment(amount: 1), after: last))
    return graph
}

/// A journal in memory: what a durable node costs without the disk. Records are kept until their
/// run is removed, as a file journal keeps them.
final class MemoryRunJournal: RunJournal, @unchecked Sendable {
    // @unchecked: `runs` is read and written only while `lock` (an NSLock: pthread-based) is held.
    private let lock = NSLock()
    private var runs: [String: [JournalRecord]] = [:]

    func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        lock.withLock { runs[runID, default: []].append(record) }
    }

    func loadUnfinishedRuns() throws(JournalError) -> JournalContents {
        let unfinished = lock.withLock { runs.filter { $0.value.last != .runFinished } }
        return JournalContents(runs: unfinished.map { JournalRun(runID: $0.key, records: $0.value) })
    }

    func removeRun(_ runID: String) throws(JournalError) {
        lock.withLock { _ = runs.removeValue(forKey: runID) }
    }
}

/// A file journal that notes, before it removes a run, how many bytes the journal's folder holds:
/// with one run in flight, the bytes written for that run (its file's header and every frame).
final class FolderSizeProbe: RunJournal, @unchecked Sendable {
    // @unchecked: `bytes` is read and written only while `lock` (an NSLock) is held; the journal
    // and the folder are immutable.
    private let journal: FileRunJournal
    private let folder: URL
    private let lock = NSLock()
    private var bytes: [Int] = []

    init(folder: URL) throws {
        self.folder = folder
        journal = try FileRunJournal(folder: folder)
    }

    /// The bytes of each run, when it was removed, oldest first.
    var bytesPerRun: [Int] { lock.withLock { bytes } }

    func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        try journal.append(record, to: runID)
    }

    func loadUnfinishedRuns() throws(JournalError) -> JournalContents {
        try journal.loadUnfinishedRuns()
    }

    func removeRun(_ runID: String) throws(JournalError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let total = names.filter { $0 != ".lock" }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
        lock.withLock { bytes.append(total) }
        try journal.removeRun(runID)
    }
}

/// Durable runs of the chain on `journal`, each under a new run id.
final class DurableChainRunner {
    let durable: DurableRuns<BenchState>
    private var next = 0

    init(store: Store<BenchState>, journal: any RunJournal) {
        durable = DurableRuns(store: store, journal: journal)
        durable.register("chain", parameters: Int.self) { _ in labelledChain(durable: true) }
    }

    /// Starts and awaits `count` runs, then waits for their journal writes (the last run's end).
    func run(_ count: Int) async {
        for _ in 0..<count {
            next += 1
            do {
                let run = try await durable.start("chain", runID: "bench-\(next)", parameters: next)
                blackhole(await run.wait().count)
            } catch {
                fatalError("a durable run of the benchmark could not start: \(error)")
            }
        }
        await durable.flush()
    }
}

/// A fresh folder under the temporary directory for a benchmark's journal.
func temporaryJournalFolder() -> URL {
    FileManager.default.temporaryDirectory
        .appendingPathComponent("oresredux-bench-journal-\(UUID().uuidString)", isDirectory: true)
}

func benchDurable(_ report: Report, budget: Budget, quick: Bool) async {
    report.section(
        "Durable runs: a chain of \(durableChainLength) durable async nodes + 1 sync node against the same "
            + "chain plain (time per run)")
    let folder = temporaryJournalFolder()
    let probeFolder = temporaryJournalFolder()
    defer {
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.removeItem(at: probeFolder)
    }
    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    let memory = DurableChainRunner(store: store, journal: MemoryRunJournal())
    let file: DurableChainRunner
    do {
        file = DurableChainRunner(store: store, journal: try FileRunJournal(folder: folder))
    } catch {
        print("not measured: the file journal could not open in \(folder.path): \(error)")
        return
    }
    func plain(_ count: Int) async {
        for _ in 0..<count { blackhole(await store.dispatch(labelledChain(durable: false)).wait().count) }
    }
    // Each journal record waits for an fsync: a file journal's run lasts milliseconds, so fewer
    // pairs keep the group short.
    var fileBudget = budget
    fileBudget.pairs = quick ? 5 : 11
    fileBudget.runsPerSide = 2
    let onFile = report.add(
        await comparePaired(
            "durable", "durable chain, FileRunJournal (fsync)", baseline: "the same chain, plain",
            budget: fileBudget, ours: { await file.run($0) }, baseline: { await plain($0) }))
    let inMemory = report.add(
        await comparePaired(
            "durable", "durable chain, journal in memory", baseline: "the same chain, plain", budget: budget,
            ours: { await memory.run($0) }, baseline: { await plain($0) }))
    for (name, result) in [("FileRunJournal", onFile), ("journal in memory", inMemory)] {
        let perNode = result.difference.divided(by: Double(durableChainNodes))
        report.add(
            GuardRecord(
                scenario: "a durable node over a plain one, \(name)",
                value: "+" + formatNanoseconds(perNode.median)
                    + " (IQR \(formatNanoseconds(perNode.lowerQuartile))-\(formatNanoseconds(perNode.upperQuartile)))",
                note:
                    "(durable run - plain run) / \(durableChainNodes) nodes, per pair; the run's start and end included"
            ))
    }

    // What a run writes: the run's file (header and frames) just before its removal.
    do {
        let probe = try FolderSizeProbe(folder: probeFolder)
        await DurableChainRunner(store: store, journal: probe).run(3)
        if let bytes = probe.bytesPerRun.last {
            report.add(
                GuardRecord(
                    scenario: "journal bytes per durable node",
                    value: String(format: "%.0f B", Double(bytes) / Double(durableChainNodes)),
                    note: "\(bytes) B per run of \(durableChainNodes) nodes: header, start, 2 per async node, "
                        + "1 per sync node, end"))
        }
    } catch {
        print("not measured: journal bytes (\(error))")
    }

    guard allocation_counter_available() != 0 else {
        print("allocations not counted: the allocation counter works on Linux with glibc only, with no sanitizer")
        return
    }
    let runs = quick ? 300 : 3_000
    let fileRuns = quick ? 30 : 200
    let plainAllocations = await allocationsPerOperation(runs, { await plain($0) })
    for (name, runner, count) in [("journal in memory", memory, runs), ("FileRunJournal", file, fileRuns)] {
        let record = AllocationRecord(
            scenario: "durable chain, \(name)", baseline: "the same chain, plain",
            ours: await allocationsPerOperation(count, { await runner.run($0) }), theirs: plainAllocations)
        report.add(record)
        report.add(
            GuardRecord(
                scenario: "allocations per durable node over a plain one, \(name)",
                value: String(format: "%.1f", (record.ours - record.theirs) / Double(durableChainNodes)),
                note: "(durable run - plain run) / \(durableChainNodes) nodes, mean of \(formatCount(count)) runs"))
    }
}
