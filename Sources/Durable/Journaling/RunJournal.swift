/// Where durable runs are recorded, written ahead of their side effects: the default is a
/// ``FileRunJournal``; an app can keep its journal in its own database by conforming to this.
///
/// A conformance promises:
/// - ``append(_:to:)`` returns only once the record is on stable storage (flushed to the drive:
///   `fcntl(F_FULLFSYNC)` on Apple platforms, where `fsync` alone leaves it in the drive's cache;
///   `fsync` on Linux), so that a side effect announced by it starts only after it survives a power
///   loss; records of a
///   run are read back in the order they were appended; a failed append leaves the run as it was.
/// - ``loadUnfinishedRuns()`` returns every run with acknowledged records that was not removed and
///   does not end with ``JournalRecord/runFinished``; a record whose append never returned may be
///   missing (reported as a diagnostic), never misread.
/// - ``removeRun(_:)`` forgets a run for good; removing a run that is not there is no error.
///
/// ``JournalRecord/encoded()`` and ``JournalRecord/init(decoding:)`` give a stable binary form of
/// a record for storage as a blob. Calls may come from any thread.
public protocol RunJournal: Sendable {
    /// Records `record` as the next record of the run `runID`, durably.
    func append(_ record: JournalRecord, to runID: String) throws(JournalError)

    /// Every unfinished run with its records, the runs that could not be read, and what was dropped.
    func loadUnfinishedRuns() throws(JournalError) -> JournalContents

    /// Removes the run `runID` and all its records.
    func removeRun(_ runID: String) throws(JournalError)
}
