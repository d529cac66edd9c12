import Dispatch

/// Writes to a ``RunJournal`` off Swift's cooperative pool: an append blocks until its record is
/// on disk (`FileSync.toDisk`), so every call of the journal runs on one serial dispatch queue of its own,
/// in the order the calls were made.
///
/// The store's count of its work sees every write: a task that awaits an append is not parked (it
/// waits on work under way, not on the test), and a write nobody awaits is a unit of its own until
/// it is done. A `TestStore` therefore never finds the store quiet while a record is being written.
final class JournalWriter: Sendable {
    let journal: any RunJournal
    private let queue = DispatchQueue(label: "OresRedux.RunJournal")
    private let counter: WorkCounter?
    /// Tells the app of a write that failed with nobody awaiting it.
    private let report: @Sendable (String) -> Void

    init(journal: any RunJournal, counter: WorkCounter?, report: @escaping @Sendable (String) -> Void) {
        self.journal = journal
        self.counter = counter
        self.report = report
    }

    /// Appends `record` to the run `runID` and returns once it is on disk, after every write asked
    /// for before it.
    /// - Parameter skip: asked on the journal's queue, right before the append: `true` drops the
    ///   record (its run was recorded finished meanwhile, so nothing may follow its end).
    func append(
        _ record: JournalRecord, to runID: String, skip: (@Sendable () -> Bool)? = nil
    ) async throws(JournalError) {
        // The task-local read only when the store counts its work (a test store's).
        if counter != nil { WorkCounter.current?.note("waits for its journal record to be on disk") }
        let journal = self.journal
        let result: Result<Void, JournalError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(JournalError) {
                    if skip?() != true { try journal.append(record, to: runID) }
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// Reads every unfinished run, on the journal's queue (after every write asked for before).
    func load() async throws(JournalError) -> JournalContents {
        if counter != nil { WorkCounter.current?.note("waits for the run journal to be read") }
        let journal = self.journal
        let result: Result<JournalContents, JournalError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(JournalError) {
                    continuation.resume(returning: .success(try journal.loadUnfinishedRuns()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Runs `write` on the journal's queue, after every write asked for before it, without waiting;
    /// a failure is reported with `what` (a phrase naming what was not recorded).
    func enqueue(_ what: String, _ write: @escaping @Sendable (any RunJournal) throws(JournalError) -> Void) {
        let unit = counter?.begin("a run journal write: \(what)", isTask: false)
        let journal = self.journal
        let report = self.report
        queue.async {
            do throws(JournalError) {
                try write(journal)
            } catch {
                report("the run journal could not record \(what): \(error)")
            }
            unit?.end()
        }
    }

    /// Returns once every write asked for before the call is done.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}
