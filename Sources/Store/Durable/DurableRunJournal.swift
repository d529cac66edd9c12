import Foundation

/// What a durable run journals as it goes, and when: the shell of a ``GraphRun`` calls it at three
/// points (an async node's attempts, a sync node's application, the run's end). A plain run has
/// none, and pays one `nil` check at each point.
final class DurableRunJournal: Sendable {
    let runID: String
    let layout: DurableLayout
    private let writer: JournalWriter
    private let state = LockedValue(Flags())
    /// Called once, when the run ends (it frees the run id).
    private let onEnd: @Sendable () -> Void

    private struct Flags {
        /// An append failed: the journal lacks a record, so the run is kept for the app to decide.
        var appendFailed = false
        /// The store was released: the run did not finish, it stopped; a relaunch resumes it.
        var storeReleased = false
        var ended = false
    }

    init(runID: String, layout: DurableLayout, writer: JournalWriter, onEnd: @escaping @Sendable () -> Void) {
        self.runID = runID
        self.layout = layout
        self.writer = writer
        self.onEnd = onEnd
    }

    /// The key of every attempt of `node`.
    func key(of node: Int) -> IdempotencyKey {
        IdempotencyKey(runID: runID, node: layout.labels[node])
    }

    /// `operation`, journaled: each attempt appends its start (on disk before `operation` is
    /// called), then its end with the response encoded or the error described.
    func journaled(
        _ operation: @escaping @Sendable () async throws -> ResponseSlot, node: Int, codec: DurableNode
    ) -> @Sendable () async throws -> ResponseSlot {
        let attempts = LockedValue(0)
        let label = layout.labels[node]
        let key = key(of: node)
        return { [self] in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            try await record(.attemptStarted(node: label, attempt: attempt, key: key), node: label)
            if Task.isCancelled {
                // Announced but never called: say so, so that a relaunch does not take it for in doubt.
                try await record(
                    .attemptEnded(
                        node: label, attempt: attempt, end: .failed(description: "cancelled before its call")),
                    node: label)
                throw CancellationError()
            }
            let end: JournalRecord.AttemptEnd
            let result: Result<ResponseSlot, any Error>
            do {
                let response = try await operation()
                do {
                    end = .response(try codec.encode(response))
                    result = .success(response)
                } catch {
                    end = .failed(description: "its response could not be encoded: \(error)")
                    result = .failure(DurableRunError.responseNotEncodable(node: label, reason: "\(error)"))
                }
            } catch {
                end = .failed(description: String(describing: error))
                result = .failure(error)
            }
            try await record(.attemptEnded(node: label, attempt: attempt, end: end), node: label)
            return try result.get()
        }
    }

    private func record(_ record: JournalRecord, node: String) async throws(DurableRunError) {
        do {
            try await writer.append(record, to: runID)
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

    /// Every node of the run is terminal: records the end and removes the run, unless the store
    /// was released (a relaunch resumes it) or an append failed (the app decides).
    func finished() {
        let first = state.withLock { flags in
            defer { flags.ended = true }
            return !flags.ended
        }
        guard first else { return }
        onEnd()
        let runID = self.runID
        writer.enqueue("the end of run \"\(runID)\"") { [state] journal throws(JournalError) in
            let keep = state.withLock { $0.appendFailed || $0.storeReleased }
            guard !keep else { return }
            try journal.append(.runFinished, to: runID)
            try journal.removeRun(runID)
        }
    }
}
