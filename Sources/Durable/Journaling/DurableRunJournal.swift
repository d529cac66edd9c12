import Foundation

/// What a durable run journals as it goes, and when. It observes the run (``RunObserver``): a
/// cancel that counted, the application of each sync node, the run's end; and each attempt of a
/// journaled async node is wrapped by ``journaled(_:node:codec:)``, numbered by the run's machine.
/// A plain run has no journal.
final class DurableRunJournal: RunObserver, Sendable {
    let runID: String
    let layout: DurableLayout
    /// Tells this run from an earlier one with the same id (journaled in its start).
    let instance: UInt64
    /// What a resumed run takes over from its earlier launches; empty for a new run.
    let resumed: Resumed
    private let writer: JournalWriter
    private let marks: DurableMarksTable
    private let state = LockedValue(Flags())
    /// Told when the run ended and waits to leave the journal, then once it left it or is kept
    /// there (the run id is held until then).
    private let onEnd: @Sendable (EndStep) -> Void

    /// Where a run that ended stands with the journal.
    enum EndStep: Sendable, Equatable {
        /// Every node ended; the run's end is queued, or waits for a saved state to be.
        case waitingToLeave
        /// Recorded finished and removed.
        case leftJournal
        /// Left in the journal unfinished (a record is missing, or the store was released).
        case keptInJournal
    }

    /// What a resumed run takes over from the launches before: the nodes that ended, and where
    /// each node's attempts stand.
    struct Resumed: Sendable {
        /// The nodes that ended before this launch, for ``RunStateMachine/start(now:endedBefore:)``.
        var endedBefore: [RunStateMachine.EndedBefore] = []
        /// Per async node, the number its next attempt takes (attempts continue, they never restart).
        var nextAttempt: [Int: Int] = [:]
        /// Per async node, the attempts that failed before: they count towards its retry policy.
        var failedAttempts: [Int: Int] = [:]
        /// The app cancelled the run in an earlier launch (its cancel is journaled already).
        var wasCancelled = false
    }

    private struct Flags {
        /// An append failed: the journal lacks a record, so the run is kept for the app to decide.
        var appendFailed = false
        /// The store was released: the run did not finish, it stopped; a relaunch resumes it.
        var storeReleased = false
        /// The run was cancelled: the cancel is recorded at once, so a relaunch runs nothing more.
        var cancelled = false
        var ended = false
        /// The run's end is in the journal (set on the journal's queue): a record of a node that
        /// ends after it (a cancelled call) is dropped, so nothing follows the end.
        var closed = false
    }

    init(
        runID: String, instance: UInt64, layout: DurableLayout, resumed: Resumed = Resumed(),
        writer: JournalWriter, marks: DurableMarksTable, onEnd: @escaping @Sendable (EndStep) -> Void
    ) {
        self.runID = runID
        self.instance = instance
        self.layout = layout
        self.resumed = resumed
        self.writer = writer
        self.marks = marks
        self.onEnd = onEnd
        if resumed.wasCancelled { state.withLock { $0.cancelled = true } }
    }

    /// What the run's machine takes over at its start: the nodes that ended, and the attempts
    /// made and failed before this launch.
    var earlierLaunches: EarlierLaunches {
        EarlierLaunches(
            endedBefore: resumed.endedBefore, attemptsMade: resumed.nextAttempt.mapValues { $0 - 1 },
            attemptsFailed: resumed.failedAttempts)
    }

    // MARK: Observing the run

    func observe(_ step: RunStep, of machine: RunStateMachine) {
        switch step {
        case .runCancelled(byStoreRelease: true): storeReleased()
        case .runCancelled(byStoreRelease: false): cancelled()
        case .runFinished: finished()
        default: break
        }
    }

    /// Marks `item` with the commit that will first hold it, then applies it. The number is the
    /// commit count plus one, and it is exact, not a guess: the run applies its items on the thread
    /// that holds the store's pipeline, so no other commit comes between; `next` cannot outlive a
    /// middleware; and what a middleware dispatches is queued behind the item. A middleware that
    /// drops the item leaves the mark on the next commit, whose state holds the item as applied (it
    /// was: dropped); one that passes it on twice has it marked from the first of the two.
    /// `DurableMarkCommitTests` holds this.
    func apply(_ item: RunStateMachine.SyncItem, on host: any RunHost, _ apply: () -> Void) {
        willApply(item, asCommit: host.commitCount + 1)
        apply()
        if case .node(let node) = item { syncApplied(node, commitCount: host.commitCount) }
    }

    /// Marks the sync node or fallback `item` as applied by the store's commit `commitCount`,
    /// right before it enters the pipeline (see ``DurableMarks``).
    func willApply(_ item: RunStateMachine.SyncItem, asCommit commitCount: UInt64) {
        switch item {
        case .node(let node):
            marks.willApply(mark(node, isFallback: false), asCommit: commitCount)
        case .fallback(let node):
            marks.willApply(mark(node, isFallback: true), asCommit: commitCount)
        case .cancelAction:
            break  // the run's end is recorded when it is cancelled; a relaunch never resends it
        }
    }

    func mark(_ node: Int, isFallback: Bool) -> DurableMarks.Mark {
        DurableMarks.Mark(runID: runID, instance: instance, node: layout.labels[node], isFallback: isFallback)
    }

    /// The key of every attempt of `node`.
    func key(of node: Int) -> IdempotencyKey {
        IdempotencyKey(runID: runID, node: layout.labels[node])
    }

    /// `operation`, journaled: each attempt (numbered by the run's machine, counting the attempts
    /// of earlier launches) appends its start (on disk before `operation` is called), then its end
    /// with the response encoded or the error described.
    func journaled(
        _ operation: @escaping @Sendable (Int) async throws -> ResponseSlot, node: Int, codec: DurableNode
    ) -> @Sendable (Int) async throws -> ResponseSlot {
        let label = layout.labels[node]
        let key = key(of: node)
        return { [self] attempt in
            try await record(
                .attemptStarted(node: label, attempt: attempt, key: key, inDoubt: codec.inDoubt.rule), node: label)
            if Task.isCancelled {
                // Announced but never called: say so, so that a relaunch does not take it for in doubt.
                try await record(.attemptEnded(node: label, attempt: attempt, end: .notCalled), node: label)
                throw CancellationError()
            }
            let end: JournalRecord.AttemptEnd
            let result: Result<ResponseSlot, any Error>
            do {
                let response = try await operation(attempt)
                do {
                    end = try codec.encode(response).map { .response($0) } ?? .responseNotJournaled
                    result = .success(response)
                } catch {
                    end = .failed(description: "its response could not be encoded: \(error)")
                    result = .failure(DurableRunError.responseNotEncodable(node: label, reason: "\(error)"))
                }
            } catch {
                end = error is CancellationError ? .cancelled : .failed(description: String(describing: error))
                result = .failure(error)
            }
            try await record(.attemptEnded(node: label, attempt: attempt, end: end), node: label)
            return try result.get()
        }
    }

    private func record(_ record: JournalRecord, node: String) async throws(DurableRunError) {
        do {
            try await writer.append(record, to: runID) { [state] in state.withLock { $0.closed } }
        } catch {
            state.withLock { $0.appendFailed = true }
            throw DurableRunError.journalFailed(node: node, error)
        }
    }

    /// The sync node `node` was applied as the store's commit `commitCount`: journaled in order,
    /// without waiting (it records what happened; no side effect waits for it).
    func syncApplied(_ node: Int, commitCount: UInt64) {
        let label = layout.labels[node]
        let runID = self.runID
        writer.enqueue("the application of \"\(label)\" in run \"\(runID)\"") { [state] journal throws(JournalError) in
            do throws(JournalError) {
                guard !state.withLock({ $0.closed }) else { return }
                try journal.append(.syncApplied(node: label, commitCount: commitCount), to: runID)
            } catch {
                state.withLock { $0.appendFailed = true }
                throw error
            }
        }
    }

    /// The store was released: the run stops unfinished, and stays in the journal.
    func storeReleased() {
        state.withLock { $0.storeReleased = true }
    }

    /// The run was cancelled by the app: the cancel is recorded now (queued behind the records
    /// before it), so that a relaunch runs nothing more of a run the app cancelled, even if the
    /// process dies before the run's last node ends; it only applies again the sync nodes the run
    /// applied that its restored state lacks. Its cancel action is therefore sent at most once.
    /// The run's end waits for a saved state, as a finished run's does (see ``finished()``).
    func cancelled() {
        let first = state.withLock { flags in
            defer { flags.cancelled = true }
            return !flags.cancelled && !flags.ended
        }
        guard first else { return }
        let runID = self.runID
        writer.enqueue("the cancellation of run \"\(runID)\"") { journal throws(JournalError) in
            try journal.append(.runCancelled, to: runID)
        }
    }

    /// Every node of the run is terminal: records the end and removes the run (and then its marks),
    /// unless the store was released (a relaunch resumes it) or an append failed (the app decides).
    /// When a durable ``StatePersistence`` saves the state, this waits until a saved state holds the
    /// run's sync work: a kill before that save resumes the run and applies what the state lacks.
    /// The run id stays taken until the run has left the journal (or is kept in it), so a new run
    /// under it never appends to this run's records (see ``DurableRuns/start(_:runID:parameters:)``).
    func finished() {
        let (first, cancelled) = state.withLock { flags in
            defer { flags.ended = true }
            return (!flags.ended, flags.cancelled)
        }
        guard first else { return }
        let runID = self.runID
        let instance = self.instance
        marks.whenSaved(runID: runID, instance: instance) { [writer, state, marks, onEnd] in
            writer.enqueue("the end of run \"\(runID)\"") { journal throws(JournalError) in
                let keep = state.withLock { $0.appendFailed || $0.storeReleased }
                guard !keep || cancelled else { return onEnd(.keptInJournal) }
                do throws(JournalError) {
                    try journal.append(.runFinished, to: runID)
                    state.withLock { $0.closed = true }
                    try journal.removeRun(runID)
                } catch {
                    onEnd(.keptInJournal)
                    throw error
                }
                marks.remove(runID: runID, instance: instance)
                onEnd(.leftJournal)
            }
        }
        // After `whenSaved`: a `start` that sees the run ending and saves the state finds its end queued.
        onEnd(.waitingToLeave)
    }
}
