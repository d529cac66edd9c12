import Foundation
import OresRedux

/// Checks durable runs recorded by an earlier build of the app against the graph builders the app
/// registers today, as `DurableRuns.resumeUnfinished()` would take them up: the replay
/// test of a durable graph, for a test target that keeps recorded journals as fixtures.
///
/// ```swift
/// @Test func recordedRunsStillResume() throws {
///     let check = ReplayCheck(initialState: AppState(), builders: registerBuilders)
///     try check.expectReplays(journalFolder: fixtures)
/// }
/// ```
///
/// For each recorded run it checks, with resume's own steps, that:
/// - a builder is registered under the run's graph name;
/// - the journaled parameters decode as the builder's parameters type;
/// - the graph built from them can run durably, and has the shape the run was recorded with: the
///   same nodes, with the same labels and kinds, waiting for the same nodes, added in the same
///   order (resume refuses the run otherwise);
/// - each journaled response decodes with its node's codec (resume would fail the node otherwise).
///
/// A run recorded by a build whose run starts did not journal the graph's shape (only its digest)
/// is checked against the digest; if that differs, the findings name the nodes the run's records
/// mention that today's graph lacks, and say that the recorded shape is unknown.
///
/// Nothing runs: the builders build graphs, and no action of them is called. Every method may be
/// called from any thread or task.
public struct ReplayCheck<State: Sendable>: Sendable {
    private let durable: DurableRuns<State>

    /// A check against the builders registered on `durable` (registered as the app registers them;
    /// registering more later counts too). The check never starts or resumes a run on it.
    public init(_ durable: DurableRuns<State>) {
        self.durable = durable
    }

    /// A check against the builders `builders` registers, on durable runs of its own (a store of
    /// `initialState` that never applies an action, and a journal in memory that is never written).
    /// - Parameters:
    ///   - initialState: any state of the app's type; the check never reads it.
    ///   - builders: the app's own registration, such as `registerBuilders(_:)`, called once now.
    public init(initialState: State, builders: (DurableRuns<State>) -> Void) {
        let durable = DurableRuns(
            store: Store(initialState: initialState, reducer: Reducer { _, _ in }), journal: InMemoryRunJournal())
        builders(durable)
        self.init(durable)
    }

    /// The findings of the check for each `run-*.journal` file of `folder` (the files a
    /// `FileRunJournal` writes, copied from a device or recorded by a test).
    ///
    /// The files are only read, with the journal's own file format reader: no lock is taken and
    /// nothing is cut, repaired or removed. A torn last record is left out of the check, as resume
    /// leaves it out; a file whose header was never completely written holds no run.
    /// - Returns: every finding, run by run in file-name order; empty when every run would resume
    ///   as recorded. A folder that cannot be listed, or a file that cannot be read, is a
    ///   ``ReplayFinding/Kind/unreadableJournal`` finding; a folder with no run to check is a
    ///   ``ReplayFinding/Kind/noRecordedRuns`` finding.
    public func findings(journalFolder folder: URL) -> [ReplayFinding] {
        let paths: [String]
        do {
            paths = try RecordedJournalFile.paths(in: folder)
        } catch {
            return [ReplayFinding(runID: nil, node: nil, kind: .unreadableJournal, description: "\(error)")]
        }
        var unreadable: [ReplayFinding] = []
        var runs: [JournalRun] = []
        for path in paths {
            do {
                if let run = try RecordedJournalFile.read(path: path).run { runs.append(run) }
            } catch {
                // A file damaged after its header still names its run.
                let runID = RecordedJournalFile.runID(path: path)
                let prefix = runID.map { "run \"\($0)\": " } ?? ""
                unreadable.append(
                    ReplayFinding(runID: runID, node: nil, kind: .unreadableJournal, description: prefix + "\(error)"))
            }
        }
        guard !runs.isEmpty || !unreadable.isEmpty else {
            return [
                ReplayFinding(
                    runID: nil, node: nil, kind: .noRecordedRuns,
                    description: "the folder \(folder.path) holds no run-*.journal file with a recorded run")
            ]
        }
        return unreadable + runs.flatMap(findings(for:))
    }

    /// The findings of the check for `runs`: the runs of an app's own
    /// `RunJournal`, or of an ``InMemoryRunJournal``.
    /// - Returns: every finding, run by run in the order given; empty when every run would resume
    ///   as recorded. No runs at all is a ``ReplayFinding/Kind/noRecordedRuns`` finding.
    public func findings(_ runs: [JournalRun]) -> [ReplayFinding] {
        guard !runs.isEmpty else {
            return [
                ReplayFinding(runID: nil, node: nil, kind: .noRecordedRuns, description: "no recorded run was given")
            ]
        }
        return runs.flatMap(findings(for:))
    }

    /// Fails the test unless ``findings(journalFolder:)`` finds nothing: throws a
    /// ``TestStoreFailure`` at the caller's line that lists every finding, one a line, as a failed
    /// ``TestStore`` assertion does.
    /// - Throws: ``TestStoreFailure`` if any recorded run would not resume as recorded.
    public func expectReplays(
        journalFolder folder: URL, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) throws(TestStoreFailure) {
        try Self.expectNone(
            findings(journalFolder: folder), Place(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Fails the test unless ``findings(_:)`` finds nothing: throws a ``TestStoreFailure`` at the
    /// caller's line that lists every finding, one a line, as a failed ``TestStore`` assertion does.
    /// - Throws: ``TestStoreFailure`` if any recorded run would not resume as recorded.
    public func expectReplays(
        _ runs: [JournalRun], fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) throws(TestStoreFailure) {
        try Self.expectNone(findings(runs), Place(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    private static func expectNone(_ findings: [ReplayFinding], _ place: Place) throws(TestStoreFailure) {
        guard !findings.isEmpty else { return }
        throw TestStoreFailure(
            place,
            "recorded durable runs would not resume as recorded with today's builders:\n"
                + findings.map { "  - \($0.description)" }.joined(separator: "\n"))
    }

    /// What would keep `run` from resuming as recorded.
    private func findings(for run: JournalRun) -> [ReplayFinding] {
        var graphName: String?
        if case .runStarted(_, let name, _, _, _, _) = run.records.first { graphName = name }
        let prefix = "run \"\(run.runID)\"" + (graphName.map { " (graph \"\($0)\")" } ?? "") + ": "
        func finding(_ kind: ReplayFinding.Kind, node: String? = nil, _ text: String) -> ReplayFinding {
            ReplayFinding(runID: run.runID, node: node, kind: kind, description: prefix + text)
        }

        let rebuilt: DurableRuns<State>.Rebuilt
        do {
            rebuilt = try durable.rebuild(run)
        } catch {
            switch error {
            case .unreadableRun(_, let reason):
                return [finding(.unreadableJournal, reason)]
            case .unknownGraph(let name):
                return [finding(.unknownGraph, "no builder is registered as \"\(name)\"")]
            case .parametersNotDecodable(let name, let reason):
                let type = durable.parametersType(name) ?? "the registered type"
                return [
                    finding(.parametersNotDecodable, "the journaled parameters no longer decode as \(type): \(reason)")
                ]
            case .missingLabel(let index):
                return [finding(.graphNotDurable, node: "#\(index)", "today's graph cannot run durably: \(error)")]
            case .duplicateLabel(let label, _), .notDurable(let label):
                return [finding(.graphNotDurable, node: label, "today's graph cannot run durably: \(error)")]
            default:
                return [finding(.graphNotDurable, "today's graph cannot run durably: \(error)")]
            }
        }

        var findings: [ReplayFinding] = []
        if case .runStarted(_, let name, let parameters, _, _, _) = run.records.first,
            let dropped = durable.droppedParameterKeys(name, parameters), !dropped.isEmpty
        {
            let type = durable.parametersType(name) ?? "the registered type"
            let fields = dropped.map { "\"\($0)\"" }.joined(separator: ", ")
            findings.append(
                finding(
                    .parametersFieldDropped,
                    "the journaled parameters hold \(fields), which \(type) no longer reads (renamed or removed): "
                        + "a resume drops \(dropped.count == 1 ? "its value" : "their values")"))
        }
        let recorded = rebuilt.journaled
        if !rebuilt.shapeMatches {
            if let shape = recorded.shape {
                findings += ShapeChange.changes(from: shape, to: rebuilt.shape).map {
                    finding($0.kind, node: $0.node, "node \"\($0.node)\" \($0.change)")
                }
                if findings.isEmpty {
                    let how =
                        ShapeChange.reordering(from: shape, to: rebuilt.shape).map {
                            "the same nodes, added in another order (\($0))"
                        } ?? "\(recorded.digest), now \(DurableFingerprint(rebuilt.shape).digest)"
                    findings.append(finding(.shapeChanged, "the graph's shape changed: \(how)"))
                }
            } else {
                let today = Set(rebuilt.shape.nodes.map(\.label))
                var named: [String] = []
                for record in run.records {
                    switch record {
                    case .attemptStarted(let node, _, _, _), .attemptEnded(let node, _, _), .syncApplied(let node, _):
                        if !today.contains(node) && !named.contains(node) { named.append(node) }
                    case .runStarted, .runCancelled, .runFinished:
                        continue
                    }
                }
                findings += named.map {
                    finding(
                        .unknownNode, node: $0,
                        "node \"\($0)\", which the journal names, is not in today's graph (renamed or removed)")
                }
                findings.append(
                    finding(
                        .shapeChanged,
                        "the graph's shape changed since the run was recorded, and the recorded shape is unknown: "
                            + "its start was journaled before run starts recorded the shape (only its digest)"))
            }
        }
        findings += rebuilt.undecodableResponses.map {
            finding(
                .responseNotDecodable, node: $0.node,
                "the journaled response of node \"\($0.node)\" no longer decodes as \($0.responseType): \($0.reason)")
        }
        return findings
    }
}
