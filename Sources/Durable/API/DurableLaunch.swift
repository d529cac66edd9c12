import Foundation

/// A store whose state and durable runs survive a relaunch, launched in the one safe order: the
/// journal's folder locked first, then the state and its ``DurableMarks`` restored under that
/// lock, then the runs the journal holds resumed.
///
/// ```swift
/// let launch = try await DurableLaunch.open(
///     journalFolder: support.appendingPathComponent("runs"),
///     stateURL: support.appendingPathComponent("state.json"),
///     default: AppState(), reducer: appReducer
/// ) { runs in
///     registerBuilders(runs)
/// }
/// let store = launch.store
/// let run = try await launch.runs.start("publishPost", runID: "post-42", parameters: draft)
/// ```
///
/// Why one call: two processes of one app start at once more often than it seems (an app
/// extension, a second window on iPad, a relaunch while the previous process is still dying). A
/// process that restores the state before it holds the journal's lock can restore a state that
/// another process is about to replace, run, and then save its stale state over the other's:
/// a run the other process finished (its calls made, its journal entry removed) is then in neither
/// the saved state nor the journal. Here the order is fixed:
/// 1. the journal's folder is locked (``FileRunJournal``); a second launch gets
///    ``DurableLaunchError/journal(_:)`` with ``JournalError/locked(path:reason:)`` **before it
///    reads or writes anything**, or waits up to `lockWait` for the lock;
/// 2. the state and its marks are restored (``StatePersistence/restoreDurable(from:default:)``);
/// 3. the store is created from them, and a durable ``StatePersistence`` saves it; every save
///    happens while the journal holds the folder's lock, so the state file is guarded by the same
///    lock as the journal, and nothing is saved after ``close()``;
/// 4. `register` registers the graph builders, and the journal's unfinished runs are resumed
///    (``DurableRuns/resumeUnfinished()``); the result is ``report``.
///
/// Call ``flush()`` when the app goes to the background, and ``close()`` when it is done with the
/// store (at termination, or before a test opens the same folder again). The lock is also released
/// when the process ends, however it ends.
///
/// Thread-safe: every method may be called from any thread or task.
public final class DurableLaunch<State: Codable & Sendable>: Sendable {
    /// The store, created from the restored state and marks.
    public let store: Store<State>
    /// The durable runs of ``store``: start new runs here (after ``open(journalFolder:stateURL:default:reducer:middleware:options:saveDebounce:lockWait:pendingRunLimit:onSaveError:isolation:register:)``
    /// returned, every run the journal held was resumed, so no run id is refused as unresumed).
    public let runs: DurableRuns<State>
    /// The journal, locked by this launch until ``close()``: read it or remove a run the report
    /// left in it (``RunJournal/removeRun(_:)``).
    public let journal: FileRunJournal
    /// Saves ``store``'s state with its marks after it changes, always under the journal's lock.
    public let persistence: StatePersistence
    /// What resuming the journal's unfinished runs did: the runs resumed, those left in the journal
    /// and why, the runs the journal could not read, and the torn records it dropped.
    public let report: DurableResumeReport<State>
    /// Why the saved state could not be used, when it could not: a file that does not decode was
    /// kept aside (the error says where) and the store started from the default state. `nil` when
    /// the state was restored, or on a first launch (no file).
    public let restoreError: PersistenceError?

    private init(
        store: Store<State>, runs: DurableRuns<State>, journal: FileRunJournal, persistence: StatePersistence,
        report: DurableResumeReport<State>, restoreError: PersistenceError?
    ) {
        self.store = store
        self.runs = runs
        self.journal = journal
        self.persistence = persistence
        self.report = report
        self.restoreError = restoreError
    }

    /// Launches the store: locks `journalFolder`, restores the state saved at `stateURL` with its
    /// marks, creates the store and its durable persistence, lets `register` register the graph
    /// builders, and resumes the unfinished runs, in that order.
    /// - Parameters:
    ///   - journalFolder: the ``FileRunJournal``'s folder (created with mode `0700` if missing).
    ///     Keep it in the app's own container; see <doc:RunsThatSurviveARelaunch> for iOS.
    ///   - stateURL: the saved state's file (its folder must exist). Only launches of this type
    ///     should read or write it: they do so under the journal's lock.
    ///   - initial: the state of a first launch, or when the saved state does not decode.
    ///   - reducer: the store's reducer.
    ///   - middleware: the store's middleware.
    ///   - options: the store's options; its ``StoreOptions/durableMarks`` are replaced by the
    ///     restored marks.
    ///   - saveDebounce: the persistence's debounce (see
    ///     ``StatePersistence/init(durableStore:url:debounce:clock:writer:onError:)``).
    ///   - lockWait: how long to wait for another holder of the folder to release it before
    ///     throwing ``JournalError/locked(path:reason:)``; zero (the default) does not wait. The
    ///     lock is tried again at growing intervals (up to a quarter of a second) on the continuous
    ///     clock; a cancelled task stops waiting.
    ///   - pendingRunLimit: the most runs the journal keeps at once.
    ///   - onSaveError: receives failures of timed saves.
    ///   - isolation: the caller's actor; `register` runs there.
    ///   - register: registers the app's graph builders (``DurableRuns/register(_:parameters:build:)``)
    ///     before the journal's runs are resumed; it must register every graph a journaled run may
    ///     name.
    /// - Throws: ``DurableLaunchError/journal(_:)`` if the journal cannot be opened (``JournalError/locked(path:reason:)``
    ///   when another launch holds it) and ``DurableLaunchError/stateUnreadable(_:)`` if the saved
    ///   state exists but cannot be read. Nothing was written then, and the lock is released.
    public static func open(
        journalFolder: URL,
        stateURL: URL,
        default initial: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        options: StoreOptions = StoreOptions(),
        saveDebounce: Duration = .seconds(1),
        lockWait: Duration = .zero,
        pendingRunLimit: Int = 100,
        onSaveError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError,
        isolation: isolated (any Actor)? = #isolation,
        register: (DurableRuns<State>) -> Void
    ) async throws(DurableLaunchError) -> DurableLaunch<State> {
        // 1. The lock, before anything is read.
        let journal = try await lockFolder(journalFolder, pendingRunLimit: pendingRunLimit, waitingUpTo: lockWait)
        // 2. The state and its marks, under the lock.
        let (state, marks, restoreError) = StatePersistence.restoreDurable(from: stateURL, default: initial)
        if let restoreError, case .unreadable = restoreError {
            journal.close()
            throw .stateUnreadable(restoreError)
        }
        // 3. The store and its persistence, which saves only while the journal holds the lock.
        var options = options
        options.durableMarks = marks
        let store = Store(initialState: state, reducer: reducer, middleware: middleware, options: options)
        let persistence = StatePersistence(
            durableStore: store, url: stateURL, debounce: saveDebounce,
            writer: { data, url in
                do {
                    try journal.whileHoldingFolder { try StatePersistence.writeAtomically(data, to: url) }
                } catch let error as JournalError {
                    throw PersistenceError.writeFailed(
                        path: url.path, description: "the state is saved only under the journal's lock: \(error)")
                }
            },
            onError: onSaveError)
        // 4. The builders, then the runs the journal holds.
        let runs = DurableRuns(store: store, journal: journal)
        register(runs)
        let report = await runs.resumeUnfinished()
        return DurableLaunch(
            store: store, runs: runs, journal: journal, persistence: persistence, report: report,
            restoreError: restoreError)
    }

    /// Opens the journal, trying again while another holder has the folder, up to `wait`.
    private static func lockFolder(
        _ folder: URL, pendingRunLimit: Int, waitingUpTo wait: Duration
    ) async throws(DurableLaunchError) -> FileRunJournal {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var interval = Duration.milliseconds(10)
        while true {
            do {
                return try FileRunJournal(folder: folder, pendingRunLimit: pendingRunLimit)
            } catch .locked(let path, let reason) {
                let now = clock.now
                guard now < deadline else { throw .journal(.locked(path: path, reason: reason)) }
                do {
                    try await clock.sleep(until: min(now.advanced(by: interval), deadline))
                } catch {
                    throw .journal(.locked(path: path, reason: "\(reason); stopped waiting: the task was cancelled"))
                }
                interval = min(interval * 2, .milliseconds(250))
            } catch {
                throw .journal(error)
            }
        }
    }

    /// Saves the state now if it changed, with every journal write asked for before: call it when
    /// the app goes to the background. Returns once both are on disk; runs that ended then leave the
    /// journal too (their end waited for a saved state holding their sync work).
    /// - Throws: the save's ``PersistenceError``; the change stays pending and the next save tries
    ///   again.
    public func flush() async throws(PersistenceError) {
        await runs.flush()
        try persistence.flush()
        await runs.flush()
    }

    /// Ends the launch in the one safe order: saves the state (as ``flush()`` does), stops saving,
    /// then closes the journal, which releases the folder's lock for the next launch, in this
    /// process or another. Runs still in flight are left to the next launch, as a kill would leave
    /// them: their next journal write fails (``DurableRunError/journalFailed(node:_:)``) and
    /// ``DurableRuns/resumeUnfinished()`` takes them up again. To end them first, await their
    /// ``GraphRun/wait()`` before closing.
    ///
    /// The lock is released even when the last save fails; that error is then thrown, and the
    /// state on disk is the last one saved (a relaunch resumes from it, applying once what it
    /// lacks). Closing again does nothing.
    public func close() async throws(PersistenceError) {
        defer {
            persistence.stop()
            journal.close()
        }
        try await flush()
    }
}
