/// What ``DurableRuns/resumeUnfinished()`` did with each run the journal held at launch.
public struct DurableResumeReport<State: Sendable>: Sendable {
    /// A run that was resumed: it runs now, as the same run (same id, same keys), appending to the
    /// same records.
    public struct ResumedRun: Sendable {
        /// The run's id, as the app chose it at start.
        public let runID: String
        /// The name its graph was registered under.
        public let graph: String
        /// The run, started: await it, read its outcomes, or cancel it like any run.
        public let run: GraphRun<State>
        /// The nodes (labels, in graph order) whose end the run replays, neither called nor applied
        /// again: async nodes whose response or final failure was journaled, sync nodes the
        /// restored state already held, and async nodes in doubt that this launch settled without
        /// calling them (failed in doubt, or found done by an ``InDoubtPolicy/ask(_:)`` check;
        /// those are in ``inDoubt`` too).
        public let endedBefore: [String]
        /// The async nodes (labels) whose last attempt started and never recorded its end; each
        /// was handled by its ``InDoubtPolicy``: called again, failed in doubt, or settled by its
        /// check (then also in ``endedBefore``).
        public let inDoubt: [String]
    }

    /// A run that was not resumed and stays in the journal as it was, with why.
    public struct NotResumedRun: Sendable {
        /// The run as the journal holds it, every record: enough for the app to decide (retry it
        /// under a new build, tell the user, or remove it with ``RunJournal/removeRun(_:)``).
        public let journal: JournalRun
        /// Why: ``DurableRunError/graphChanged(graph:journaled:current:)``,
        /// ``DurableRunError/unknownGraph(_:)`` (no builder registered under its name),
        /// ``DurableRunError/parametersNotEncodable(graph:reason:)``,
        /// ``DurableRunError/runAlreadyActive(_:)`` or ``DurableRunError/unreadableRun(runID:reason:)``.
        public let error: DurableRunError
    }

    /// The runs resumed, in the order the journal listed them.
    public var resumed: [ResumedRun] = []
    /// The runs left in the journal, with why.
    public var notResumed: [NotResumedRun] = []
    /// Runs the journal could not read (a damaged record, a newer format), or the journal's own
    /// failure to load: those runs stay where they are.
    public var failures: [JournalError] = []
    /// Torn last records the journal dropped while reading (their append never returned, so their
    /// side effect never started).
    public var diagnostics: [JournalDiagnostic] = []

    /// The resumed run `runID`, if it was resumed.
    public func run(_ runID: String) -> GraphRun<State>? {
        resumed.first { $0.runID == runID }?.run
    }
}
