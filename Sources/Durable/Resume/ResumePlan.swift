import Foundation

/// What a relaunch does with one journaled run, decided from its records, today's graph and the
/// marks the restored state holds: each node replays an end recorded before, runs (its attempts
/// continuing where the journal left them), or was in flight and is settled by the in-doubt policy
/// its attempt started under. `DurableRuns.resumeUnfinished()` performs the plan: it asks the app's
/// checks the plan lists, journals the settlements, and starts the run with ``resumed``.
///
/// A value: no I/O, no waiting, no lock. The app's check is asked by the caller, which feeds the
/// answer back with ``answered(_:_:)``; a settlement the journal could not record is fed back with
/// ``journalFailed(_:_:)``.
struct ResumePlan {
    /// One node of today's graph, as the plan sees it.
    struct Node {
        enum Kind {
            case sync
            case async(Durable)
            case delay
            case join
        }

        /// What the plan needs of a durable async node.
        struct Durable {
            /// Today's in-doubt policy: it settles an attempt journaled without its own (format 1).
            var inDoubt: JournalRecord.InDoubtRule
            /// Today's retry budget (attempts in all), against the failures journaled before.
            var maxAttempts: Int
            /// Today's codec reading a journaled response back (pure: no I/O).
            var decode: @Sendable (Data) -> Result<ResponseSlot, DurableRunError>
        }

        var label: String
        var kind: Kind
        var prerequisites: [Int]
    }

    /// What a node becomes in the resumed run.
    enum Fate {
        /// It runs as it would in a new run (never started, or a sync node the state lacks).
        case runs
        /// It runs, its attempts continuing: the next is `nextAttempt`, and `failedBefore` attempts
        /// that failed count towards its retry policy.
        case continues(nextAttempt: Int, failedBefore: Int)
        /// It ended before this launch (or was settled now): its end is played where the run
        /// reaches it. `sendsFallback` is false when the restored state holds its fallback.
        case replayed(Result<ResponseSlot, any Error>, sendsFallback: Bool)
        /// Its run was cancelled before this launch: it ends `.cancelled`.
        case cancelled
        /// Its attempt `attempt` is in doubt and its policy asks the app's check, with `key`: the
        /// caller asks, then calls ``answered(_:_:)``.
        case asking(attempt: Int, key: IdempotencyKey)
    }

    /// How the app's check answered (or why there is no answer).
    enum Answer {
        case runAgain
        case fail
        /// The call happened, with `response`; `end` is what the journal keeps of it.
        case succeeded(ResponseSlot, end: JournalRecord.AttemptEnd)
        /// The check threw, or its response could not be encoded: the node fails with `error`.
        case failed(any Error)
    }

    /// A record to journal before the run starts, settling `node`'s in-doubt attempt.
    struct Settlement {
        var node: Int
        var record: JournalRecord
    }

    private let nodes: [Node]
    private let applied: Set<String>
    private let fallbacksApplied: Set<String>

    /// Each node's fate, by index.
    private(set) var fates: [Fate]
    /// Where each async node replayed from the journal ended among the run's records (the
    /// position of the record of its end): replays released together play in that order. A node
    /// settled by this launch has none: it ended after every recorded end.
    private var endedAt: [Int: Int] = [:]
    /// Records that settle in-doubt attempts, in the order decided.
    private(set) var settlements: [Settlement] = []
    /// Labels of the nodes whose last attempt was in flight when the app stopped.
    private(set) var inDoubt: [String] = []
    /// The app cancelled the run before this launch.
    let wasCancelled: Bool

    /// - Parameters:
    ///   - records: the run's records, its start first.
    ///   - nodes: today's graph, by index.
    ///   - applied: labels of the sync nodes whose mark the restored state holds.
    ///   - fallbacksApplied: labels of the nodes whose fallback's mark the restored state holds.
    init(records: [JournalRecord], nodes: [Node], applied: Set<String>, fallbacksApplied: Set<String>) {
        self.nodes = nodes
        self.applied = applied
        self.fallbacksApplied = fallbacksApplied
        fates = Array(repeating: .runs, count: nodes.count)
        wasCancelled = records.contains(.runCancelled)
        let history = JournaledAttempts(records, labels: nodes.map(\.label))
        if wasCancelled {
            planCancelled(history, syncApplied: Self.syncApplied(records))
        } else {
            for node in nodes.indices { plan(node, history[node]) }
        }
    }

    /// Labels of the nodes whose fate is an end played before anything runs (for the report).
    var endedBefore: [String] {
        nodes.indices.compactMap { node in
            switch (fates[node], nodes[node].kind) {
            case (.replayed, .delay): nil  // nothing happened: it waits again
            case (.replayed, _): nodes[node].label
            default: nil
            }
        }
    }

    /// The checks the caller asks, in node order.
    var checks: [(node: Int, attempt: Int, key: IdempotencyKey)] {
        nodes.indices.compactMap { node in
            guard case .asking(let attempt, let key) = fates[node] else { return nil }
            return (node, attempt, key)
        }
    }

    /// What the run takes over, once every check was answered.
    var resumed: DurableRunJournal.Resumed {
        var resumed = DurableRunJournal.Resumed()
        resumed.wasCancelled = wasCancelled
        for node in nodes.indices {
            switch fates[node] {
            case .runs:
                break
            case .continues(let next, let failed):
                resumed.nextAttempt[node] = next
                resumed.failedAttempts[node] = failed
            case .replayed(let result, let sendsFallback):
                resumed.endedBefore.append(
                    .init(node: node, result: result, sendsFallback: sendsFallback, order: endedAt[node] ?? .max))
            case .cancelled:
                resumed.endedBefore.append(.init(node: node, result: .failure(CancellationError()), isCancelled: true))
            case .asking:
                preconditionFailure("OresRedux: a resumed run started before its in-doubt check was answered")
            }
        }
        return resumed
    }

    /// The app's check of `node` answered.
    mutating func answered(_ node: Int, _ answer: Answer) {
        guard case .asking(let attempt, let key) = fates[node] else { return }
        let label = nodes[node].label
        switch answer {
        case .runAgain:
            fates[node] = .continues(nextAttempt: attempt + 1, failedBefore: failedBefore(node))
        case .fail:
            failInDoubt(node, attempt: attempt, key: key)
        case .succeeded(let response, let end):
            // Journaled as the attempt's end, so that a later relaunch neither asks again nor calls.
            // A response kept out of the journal (`.responseNotJournaled`) is replayed by this launch
            // only: a later one calls the node again.
            settlements.append(.init(node: node, record: .attemptEnded(node: label, attempt: attempt, end: end)))
            fates[node] = .replayed(.success(response), sendsFallback: false)
        case .failed(let error):
            fates[node] = replayedFailure(node, error)
        }
    }

    /// The journal could not record `node`'s settlement: the node fails with that, and its attempt
    /// stays in doubt for the next launch.
    mutating func journalFailed(_ node: Int, _ error: JournalError) {
        fates[node] = replayedFailure(node, DurableRunError.journalFailed(node: nodes[node].label, error))
    }

    // MARK: Deciding

    private var failedCounts: [Int: Int] = [:]

    private func failedBefore(_ node: Int) -> Int { failedCounts[node] ?? 0 }

    private func replayedFailure(_ node: Int, _ error: any Error) -> Fate {
        .replayed(.failure(error), sendsFallback: !fallbacksApplied.contains(nodes[node].label))
    }

    private mutating func failInDoubt(_ node: Int, attempt: Int, key: IdempotencyKey) {
        let label = nodes[node].label
        settlements.append(
            .init(node: node, record: .attemptEnded(node: label, attempt: attempt, end: .failedInDoubt(key: key))))
        fates[node] = replayedFailure(node, DurableRunError.inDoubt(node: label, key: key))
    }

    /// A run going on: what `node` becomes from its journaled attempts and the restored marks.
    private mutating func plan(_ node: Int, _ attempts: JournaledAttempts.Node) {
        let label = nodes[node].label
        switch nodes[node].kind {
        case .sync:
            if applied.contains(label) { fates[node] = .replayed(.success(nil), sendsFallback: false) }
        case .delay, .join:
            break  // no side effect: a delay waits again
        case .async(let durable):
            if let response = attempts.response {
                endedAt[node] = attempts.respondedAt
                fates[node] =
                    switch durable.decode(response) {
                    case .success(let value): .replayed(.success(value), sendsFallback: false)
                    case .failure(let error): replayedFailure(node, error)
                    }
                return
            }
            guard let last = attempts.lastStarted else { return }  // never started: runs as usual
            failedCounts[node] = attempts.failures
            let continues = Fate.continues(nextAttempt: last.attempt + 1, failedBefore: attempts.failures)
            switch attempts.ends[last.attempt] {
            case .failedInDoubt(let key)?:
                // A launch before this one settled it in doubt (and journaled that): not decided again.
                endedAt[node] = attempts.endedAt[last.attempt]
                fates[node] = replayedFailure(node, DurableRunError.inDoubt(node: label, key: key))
            case .failed(let description)?:
                guard attempts.failures >= durable.maxAttempts else {
                    fates[node] = continues
                    return
                }
                endedAt[node] = attempts.endedAt[last.attempt]
                fates[node] = replayedFailure(
                    node, DurableRunError.failedBeforeRelaunch(node: label, description: description))
            case .notCalled?, .responseNotJournaled?, .response?:
                // Never called, or its response kept out of the journal: it runs again, with the same key.
                fates[node] = continues
            case nil, .cancelled?:
                // Never ended, or cut off mid-call by the app's exit: the call may have happened.
                inDoubt.append(label)
                switch last.inDoubt ?? durable.inDoubt {
                case .rerunWithSameKey:
                    fates[node] = continues
                case .failInDoubt:
                    failInDoubt(node, attempt: last.attempt, key: last.key)
                case .ask where durable.inDoubt == .ask:
                    fates[node] = .asking(attempt: last.attempt, key: last.key)
                case .ask:
                    // Started under a check that today's graph no longer has: the attempt promised to
                    // repeat only if the check said so, so it is not repeated.
                    failInDoubt(node, attempt: last.attempt, key: last.key)
                }
            }
        }
    }

    /// A run the app cancelled: nothing more of it runs. Only the sync nodes it applied before the
    /// end that the restored state lacks are applied again, once (their inputs replayed).
    private mutating func planCancelled(_ history: JournaledAttempts, syncApplied: Set<String>) {
        var done = Set<Int>()
        for node in nodes.indices {
            let label = nodes[node].label
            let inputsDone = nodes[node].prerequisites.allSatisfy(done.contains)
            switch nodes[node].kind {
            case .sync:
                if applied.contains(label) {
                    fates[node] = .replayed(.success(nil), sendsFallback: false)
                    done.insert(node)
                    continue
                }
                if syncApplied.contains(label) && inputsDone {
                    done.insert(node)  // released by the run: applied again, once
                    continue
                }
            case .async(let durable):
                if let response = history[node].response, case .success(let value) = durable.decode(response) {
                    fates[node] = .replayed(.success(value), sendsFallback: false)
                    done.insert(node)
                    continue
                }
            case .delay:
                // No side effect: what waited on it counts it done, as it was before the cancel.
                fates[node] = .replayed(.success(nil), sendsFallback: false)
                done.insert(node)
                continue
            case .join:
                break
            }
            fates[node] = .cancelled
        }
    }

    private static func syncApplied(_ records: [JournalRecord]) -> Set<String> {
        Set(
            records.compactMap { record -> String? in
                if case .syncApplied(let node, _) = record { node } else { nil }
            })
    }
}

/// What a run's records say about each async node's attempts.
struct JournaledAttempts {
    struct Node {
        /// A journaled response (the node succeeded before).
        var response: Data?
        /// The position of the record of that response among the run's records.
        var respondedAt: Int?
        /// The last attempt that started, its key, and the in-doubt policy it started under (`nil`
        /// when journaled by format 1, which did not record it).
        var lastStarted: (attempt: Int, key: IdempotencyKey, inDoubt: JournalRecord.InDoubtRule?)?
        /// How each attempt that recorded its end ended, by attempt number (ends are matched by
        /// number: a timed-out attempt may record its end after the next one started).
        var ends: [Int: JournalRecord.AttemptEnd] = [:]
        /// The position of each of those ends' records among the run's records, by attempt number.
        var endedAt: [Int: Int] = [:]
        /// Attempts that failed for a reason of their own (not cancelled, not in doubt, not skipped).
        var failures = 0
    }

    private var nodes: [Node]

    subscript(node: Int) -> Node { nodes[node] }

    init(_ records: [JournalRecord], labels: [String]) {
        let index = Dictionary(labels.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        nodes = Array(repeating: Node(), count: labels.count)
        for (position, record) in records.enumerated() {
            switch record {
            case .attemptStarted(let label, let attempt, let key, let inDoubt):
                guard let node = index[label] else { continue }
                if attempt >= (nodes[node].lastStarted?.attempt ?? 0) {
                    nodes[node].lastStarted = (attempt, key, inDoubt)
                }
            case .attemptEnded(let label, let attempt, let end):
                guard let node = index[label] else { continue }
                nodes[node].ends[attempt] = end
                nodes[node].endedAt[attempt] = position
                switch end {
                case .response(let data):
                    nodes[node].response = data
                    nodes[node].respondedAt = position
                case .failed: nodes[node].failures += 1
                case .notCalled, .cancelled, .failedInDoubt, .responseNotJournaled: break
                }
            case .runStarted, .syncApplied, .runCancelled, .runFinished:
                continue
            }
        }
    }
}
