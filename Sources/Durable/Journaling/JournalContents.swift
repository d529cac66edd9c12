/// What a journal holds on launch: the runs to resume, the runs it could not read, and what it
/// repaired on the way.
public struct JournalContents: Sendable {
    /// Every unfinished run that was read whole, with its records.
    public var runs: [JournalRun]
    /// One error per run that could not be read (a record damaged in the middle, a newer format):
    /// those runs are left untouched for the app to decide about, and do not stop the others.
    public var failures: [JournalError]
    /// The torn last records that were dropped.
    public var diagnostics: [JournalDiagnostic]

    /// Contents with these runs, failures and diagnostics.
    public init(runs: [JournalRun], failures: [JournalError] = [], diagnostics: [JournalDiagnostic] = []) {
        self.runs = runs
        self.failures = failures
        self.diagnostics = diagnostics
    }
}
