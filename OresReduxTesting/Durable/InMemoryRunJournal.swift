import OresRedux

/// A run journal in memory, for tests of durable runs: it keeps every run's records as a file
/// journal would, and can play the process dying right after a chosen record (see
/// ``stop(at:)``), so that a test resumes from exactly that point, every time.
///
/// ```swift
/// let journal = InMemoryRunJournal()
/// journal.stop(at: .attemptEnded(node: "upload"))     // the app dies once upload's end is on disk
/// let first = TestStore(initialState: AppState(), reducer: appReducer)
/// let persisted = first.persisting(untilStopOf: journal)
/// // … start the durable run on `first`, await it …
/// let second = TestStore(initialState: try persisted.state(), reducer: appReducer,
///                        dependencies: Dependencies(), durableMarks: try persisted.durableMarks())
/// let durable = DurableRuns(store: second.store, journal: journal.reopened())
/// // … register the builders, stub the calls, then:
/// let report = await durable.resumeUnfinished()
/// ```
///
/// Once stopped, every append and removal fails with `JournalError/ioFailed(path:operation:reason:)`
/// (the process is gone: nothing after the stop point reaches the journal), so the first launch's
/// run ends soon and keeps its records. ``reopened()`` is the journal the next launch opens.
public final class InMemoryRunJournal: RunJournal, Sendable {
    private struct Contents {
        var runs: [String: [JournalRecord]] = [:]
        /// The order runs were first appended to, so that loading lists them in start order.
        var order: [String] = []
        var stopPoint: JournalStopPoint?
        var stopped = false
        var onStop: [@Sendable (JournalRecord) -> Void] = []
    }

    private let contents: LockedValue<Contents>

    /// An empty journal.
    public init() {
        contents = LockedValue(Contents())
    }

    private init(_ copied: Contents) {
        contents = LockedValue(copied)
    }

    /// Plays the process dying right after the record `point` names is on disk: that record is
    /// kept, and every later append or removal fails.
    public func stop(at point: JournalStopPoint) {
        contents.withLock { $0.stopPoint = point }
    }

    /// Whether the journal reached its stop point.
    public var hasStopped: Bool { contents.withLock { $0.stopped } }

    /// Every run the journal holds, with its records, in the order the runs started.
    public var runs: [JournalRun] {
        contents.withLock { contents in
            contents.order.compactMap { id in contents.runs[id].map { JournalRun(runID: id, records: $0) } }
        }
    }

    /// The journal the next launch opens: the same records, accepting appends again, with no stop
    /// point.
    public func reopened() -> InMemoryRunJournal {
        InMemoryRunJournal(
            contents.withLock { contents in
                var copy = Contents()
                copy.runs = contents.runs
                copy.order = contents.order
                return copy
            })
    }

    /// Calls `body` with the stop record, on the thread that appends it, before the append returns.
    func onStop(_ body: @escaping @Sendable (JournalRecord) -> Void) {
        contents.withLock { $0.onStop.append(body) }
    }

    // MARK: RunJournal

    /// Appends `record` to the run `runID`; fails once the journal has stopped.
    public func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        let stoppedNow = contents.withLock { contents -> [@Sendable (JournalRecord) -> Void]? in
            guard !contents.stopped else { return nil }
            if contents.runs[runID] == nil { contents.order.append(runID) }
            contents.runs[runID, default: []].append(record)
            guard let point = contents.stopPoint, point.matches(record) else { return [] }
            contents.stopped = true
            return contents.onStop
        }
        guard let stoppedNow else { throw Self.gone(runID) }
        for body in stoppedNow { body(record) }
    }

    /// Every run that does not end with `JournalRecord/runFinished`.
    public func loadUnfinishedRuns() throws(JournalError) -> JournalContents {
        JournalContents(runs: runs.filter { $0.records.last != .runFinished })
    }

    /// Forgets the run `runID`; fails once the journal has stopped.
    public func removeRun(_ runID: String) throws(JournalError) {
        let removed = contents.withLock { contents -> Bool in
            guard !contents.stopped else { return false }
            contents.runs[runID] = nil
            contents.order.removeAll { $0 == runID }
            return true
        }
        guard removed else { throw Self.gone(runID) }
    }

    private static func gone(_ runID: String) -> JournalError {
        .ioFailed(
            path: "memory:\(runID)", operation: "write after the simulated crash",
            reason: "the journal stopped at its stop point; the process is gone")
    }
}

/// A record of a durable run at which ``InMemoryRunJournal`` plays the process dying.
public enum JournalStopPoint: Sendable, Hashable, CustomStringConvertible {
    /// Right after attempt `attempt` of the async node `node` is announced: the call is in doubt.
    case attemptStarted(node: String, attempt: Int = 1)
    /// Right after attempt `attempt` of `node` recorded its end: its response is kept.
    case attemptEnded(node: String, attempt: Int = 1)
    /// Right after the application of the sync node `node` is recorded.
    case syncApplied(node: String)

    func matches(_ record: JournalRecord) -> Bool {
        switch (self, record) {
        case (.attemptStarted(let node, let attempt), .attemptStarted(let recorded, let number, _, _)),
            (.attemptEnded(let node, let attempt), .attemptEnded(let recorded, let number, _)):
            node == recorded && attempt == number
        case (.syncApplied(let node), .syncApplied(let recorded, _)):
            node == recorded
        default:
            false
        }
    }

    /// The point, for a failure message.
    public var description: String {
        switch self {
        case .attemptStarted(let node, let attempt): "after attempt \(attempt) of \"\(node)\" started"
        case .attemptEnded(let node, let attempt): "after attempt \(attempt) of \"\(node)\" ended"
        case .syncApplied(let node): "after \"\(node)\" was applied"
        }
    }
}
