/// One unfinished durable run as its journal holds it: its id and its records, oldest first.
public struct JournalRun: Sendable, Hashable {
    /// The run id the app chose, e.g. `"post-42"`.
    public var runID: String
    /// Every record appended for the run and acknowledged, in the order they were appended.
    public var records: [JournalRecord]

    /// A run `runID` with `records`.
    public init(runID: String, records: [JournalRecord]) {
        self.runID = runID
        self.records = records
    }
}
