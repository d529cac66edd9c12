import Foundation

extension DurableRuns {
    /// Resumes every unfinished durable run the journal holds: call it once at launch, after
    /// registering the builders, with the store created from the restored state and its
    /// ``DurableMarks`` (see ``StatePersistence/restoreDurable(from:default:)``).
    ///
    /// For each run it finds the builder by the graph's name, decodes the parameters, builds the
    /// graph and checks that its shape is the one journaled; then it starts the run again, as the
    /// same run (same id, same idempotency keys, records appended to the same journal entry):
    /// - an async node whose response was journaled is **not called again**: its response, decoded,
    ///   flows to its dependents; one that used up its attempts stays failed (its fallback is sent
    ///   if the restored state does not hold it yet);
    /// - a sync node (or fallback) whose mark the restored state holds is **not applied again**;
    ///   one whose mark is missing is applied, once, into this state;
    /// - an attempt that started and never recorded its end is **in doubt**, and its node's
    ///   ``InDoubtPolicy`` decides: ``InDoubtPolicy/rerunWithSameKey`` calls it again as the next
    ///   attempt with the same key; ``InDoubtPolicy/failInDoubt`` ends it failed with
    ///   ``DurableRunError/inDoubt(node:key:)`` without calling it, and its fallback tells the user;
    ///   ``InDoubtPolicy/ask(_:)`` calls the app's check with the key first. The decision is
    ///   journaled as the attempt's end (a response the check found, or the in-doubt failure), so a
    ///   later relaunch replays it and neither decides again nor asks the check again;
    /// - everything else runs as usual; failed attempts count towards the node's retry policy and
    ///   attempt numbers continue;
    /// - a run the app cancelled whose end was not recorded yet (it waits for a saved state to hold
    ///   its sync work) runs nothing more: only the sync nodes it applied that the restored state
    ///   lacks are applied, once, and every other node ends `.cancelled`.
    ///
    /// A resumed run applies its sync work (nodes and fallbacks) in the order an uninterrupted run
    /// would: each node that ended before plays its recorded end where the run reaches it.
    ///
    /// A run whose builder is missing, whose parameters no longer decode, or whose graph changed
    /// shape is not resumed and stays in the journal untouched: the report gives its records and a
    /// ``DurableRunError``. Marks of runs the journal no longer holds are dropped. Never throws: a
    /// journal that cannot be read is reported in ``DurableResumeReport/failures``.
    /// - Returns: what was resumed (each run started), what was not and why.
    public func resumeUnfinished() async -> DurableResumeReport<State> {
        var report = DurableResumeReport<State>()
        let contents: JournalContents
        do {
            contents = try await writer.load()
        } catch {
            report.failures = [error]
            return report
        }
        report.failures = contents.failures
        report.diagnostics = contents.diagnostics
        let held = Set(contents.runs.map(\.runID))
        unresumed.withLock { $0 = $0 ?? held }
        var kept = Set<RunInstance>()
        for journalRun in contents.runs {
            if case .runStarted(_, _, _, _, _, let instance) = journalRun.records.first {
                kept.insert(RunInstance(runID: journalRun.runID, instance: instance))
            }
            do throws(DurableRunError) {
                report.resumed.append(try await resume(journalRun))
            } catch {
                report.notResumed.append(.init(journal: journalRun, error: error))
            }
        }
        // A run the journal could not read may still own marks: drop nothing then.
        if contents.failures.isEmpty { core.durableMarks.retain(runs: kept) }
        return report
    }

    /// Rebuilds and starts one journaled run.
    private func resume(_ journalRun: JournalRun) async throws(DurableRunError) -> DurableResumeReport<State>.ResumedRun
    {
        let rebuilt = try rebuild(journalRun)
        let (runID, name, instance) = (rebuilt.runID, rebuilt.graphName, rebuilt.instance)
        let (graph, layout, history) = (rebuilt.graph, rebuilt.layout, rebuilt.history)
        guard rebuilt.shapeMatches else {
            throw .graphChanged(graph: name, journaled: rebuilt.journaledFingerprint, current: layout.fingerprint)
        }
        guard claim(runID, instance: instance) else { throw .runAlreadyActive(runID) }
        unresumed.withLock { _ = $0?.remove(runID) }
        var resumed = DurableRunJournal.Resumed()
        var endedBefore: [String] = []
        var inDoubt: [String] = []
        let marks = core.durableMarks
        func fallbackMark(_ node: Int) -> DurableMarks.Mark {
            .init(runID: runID, instance: instance, node: layout.labels[node], isFallback: true)
        }
        func failed(_ node: Int, _ error: any Error) {
            resumed.endedBefore.append(
                .init(node: node, result: .failure(error), sendsFallback: !marks.contains(fallbackMark(node))))
            endedBefore.append(layout.labels[node])
        }
        if journalRun.records.contains(.runCancelled) {
            // Cancelled by the app: nothing more of it runs. Only the sync nodes it applied before the
            // end that the restored state lacks are applied again, once (with their inputs replayed).
            let applied = Set(
                journalRun.records.compactMap { record -> String? in
                    if case .syncApplied(let node, _) = record { node } else { nil }
                })
            var done = Set<Int>()
            for node in 0..<graph.count {
                let label = layout.labels[node]
                let inputsDone = graph.storage.prerequisites(of: node).allSatisfy(done.contains)
                switch graph.storage.bodies[node] {
                case .action, .makeAction:
                    if marks.contains(
                        DurableMarks.Mark(runID: runID, instance: instance, node: label, isFallback: false))
                    {
                        resumed.endedBefore.append(.init(node: node, result: .success(nil)))
                        endedBefore.append(label)
                        done.insert(node)
                        continue
                    }
                    if applied.contains(label) && inputsDone {
                        done.insert(node)  // released by the run: applied again, once
                        continue
                    }
                case .async:
                    if case .success(let value)? = rebuilt.journaledResponse(of: node) {
                        resumed.endedBefore.append(.init(node: node, result: .success(value)))
                        endedBefore.append(label)
                        done.insert(node)
                        continue
                    }
                case .delay:
                    // No side effect: what waited on it counts it done, as it was before the cancel.
                    resumed.endedBefore.append(.init(node: node, result: .success(nil)))
                    done.insert(node)
                    continue
                case .join:
                    break
                }
                resumed.endedBefore.append(.init(node: node, result: .failure(CancellationError()), isCancelled: true))
            }
            resumed.wasCancelled = true
            let run = startJournaled(graph, runID: runID, instance: instance, layout: layout, resumed: resumed)
            return .init(runID: runID, graph: name, run: run, endedBefore: endedBefore, inDoubt: [])
        }
        for node in 0..<graph.count {
            let label = layout.labels[node]
            switch graph.storage.bodies[node] {
            case .action, .makeAction:
                let mark = DurableMarks.Mark(runID: runID, instance: instance, node: label, isFallback: false)
                if marks.contains(mark) {
                    resumed.endedBefore.append(.init(node: node, result: .success(nil)))
                    endedBefore.append(label)
                }
            case .async:
                guard let codec = graph.settings[node]?.durable else { continue }
                let attempts = history[node]
                switch rebuilt.journaledResponse(of: node) {
                case .success(let response)?:
                    resumed.endedBefore.append(.init(node: node, result: .success(response)))
                    endedBefore.append(label)
                    continue
                case .failure(let error)?:
                    failed(node, error)
                    continue
                case nil:
                    break
                }
                guard let last = attempts.lastStarted else { continue }  // never started: runs as usual
                resumed.nextAttempt[node] = last.attempt + 1
                resumed.failedAttempts[node] = attempts.failures
                let decidedInDoubt = DurableRunError.inDoubt(node: label, key: last.key)
                switch attempts.ends[last.attempt] {
                case .failed(let description)? where description == decidedInDoubt.description:
                    // A launch before this one settled it in doubt (and journaled that): not decided again.
                    failed(node, decidedInDoubt)
                case .failed(let description)? where !NodeHistory.wasInterrupted(description):
                    let allowed = graph.settings[node]?.retry?.maxAttempts ?? 1
                    if attempts.failures >= allowed {
                        failed(node, DurableRunError.failedBeforeRelaunch(node: label, description: description))
                    }
                case .responseNotJournaled?, .response?:
                    break  // kept out of the journal: it runs again, with the same key
                case nil, .failed?:
                    // Never ended, or cut off mid-call by the app's exit: the call may have happened.
                    inDoubt.append(label)
                    switch await settle(
                        node, label: label, attempt: last.attempt, key: last.key, codec: codec, runID: runID)
                    {
                    case .runAgain:
                        break
                    case .ended(.success(let response)):
                        resumed.endedBefore.append(.init(node: node, result: .success(response)))
                    case .ended(.failure(let error)):
                        failed(node, error)
                    }
                }
            case .delay, .join:
                continue  // no side effect: a delay waits again
            }
        }
        let run = startJournaled(graph, runID: runID, instance: instance, layout: layout, resumed: resumed)
        return .init(runID: runID, graph: name, run: run, endedBefore: endedBefore, inDoubt: inDoubt)
    }

    /// A journaled run with the graph today's builder builds from its journaled parameters: where
    /// resume starts, and what the replay check of `OresReduxTesting` compares.
    package struct Rebuilt {
        package let runID: String
        /// The name the run's graph was registered under.
        package let graphName: String
        let instance: UInt64
        /// The fingerprint the run's start journaled, as it was journaled.
        let journaledFingerprint: String
        let graph: ActionGraph<State>
        let layout: DurableLayout
        let history: NodeHistory

        /// The fingerprint the run's start journaled: its digest, and its shape if it carries one.
        package var journaled: DurableFingerprint { DurableFingerprint(journaled: journaledFingerprint) }

        /// Today's graph's shape.
        package var shape: DurableShape { layout.shape }

        /// Whether today's graph has the journaled shape, by their digests alone (a journal written
        /// before the fingerprint carried the shape holds the digest alone): resume refuses the run
        /// otherwise.
        package var shapeMatches: Bool { journaled.digest == layout.digest }

        /// The journaled response of the async node `node`, decoded by today's codec as resume
        /// replays it, or why it does not decode; `nil` if none was journaled.
        func journaledResponse(of node: Int) -> Result<ResponseSlot, DurableRunError>? {
            guard let codec = graph.settings[node]?.durable, let response = history[node].response else { return nil }
            do {
                return .success(try codec.decode(response))
            } catch {
                return .failure(.responseNotDecodable(node: layout.labels[node], reason: DecodingReason.of(error)))
            }
        }

        /// Each node whose journaled response does not decode, in graph order, with its response type and
        /// the reason: the nodes resume would fail with ``DurableRunError/responseNotDecodable(node:reason:)``.
        package var undecodableResponses: [(node: String, responseType: String, reason: String)] {
            (0..<graph.count).compactMap { node in
                guard case .failure(.responseNotDecodable(let label, let reason))? = journaledResponse(of: node),
                    let codec = graph.settings[node]?.durable
                else { return nil }
                return (label, codec.responseType, reason)
            }
        }
    }

    /// Finds the builder of `journalRun`'s graph, decodes its parameters and builds its graph, as
    /// resume does first.
    /// - Throws: ``DurableRunError/unreadableRun(runID:reason:)`` if its first record is not its
    ///   start, ``DurableRunError/unknownGraph(_:)``, ``DurableRunError/parametersNotEncodable(graph:reason:)``,
    ///   or what ``DurableLayout`` throws for a graph that cannot run durably.
    package func rebuild(_ journalRun: JournalRun) throws(DurableRunError) -> Rebuilt {
        let runID = journalRun.runID
        guard case .runStarted(_, let name, let parameters, let fingerprint, _, let instance) = journalRun.records.first
        else {
            throw .unreadableRun(runID: runID, reason: "its first record is not the run's start")
        }
        guard let build = builder(name) else { throw .unknownGraph(name) }
        let graph: ActionGraph<State>
        do {
            graph = try build(parameters)
        } catch {
            throw .parametersNotEncodable(graph: name, reason: DecodingReason.of(error))
        }
        let layout = try DurableLayout(graph)
        return Rebuilt(
            runID: runID, graphName: name, instance: instance, journaledFingerprint: fingerprint, graph: graph,
            layout: layout, history: NodeHistory.read(journalRun.records, labels: layout.labels))
    }

    private enum Settled {
        case runAgain
        case ended(Result<ResponseSlot, any Error>)
    }

    /// Applies the in-doubt policy of `node`, whose attempt `attempt` never recorded its end.
    private func settle(
        _ node: Int, label: String, attempt: Int, key: IdempotencyKey, codec: DurableNode, runID: String
    ) async -> Settled {
        switch codec.inDoubt {
        case .rerunWithSameKey:
            return .runAgain
        case .failInDoubt:
            return await failedInDoubt(label: label, attempt: attempt, key: key, runID: runID)
        case .ask(let check):
            let answer: InDoubtAnswer<ResponseSlot>
            do {
                answer = try await check(key)  // the app's code: on this task, no lock held
            } catch {
                return .ended(.failure(error))
            }
            switch answer {
            case .runAgain:
                return .runAgain
            case .fail:
                return await failedInDoubt(label: label, attempt: attempt, key: key, runID: runID)
            case .succeeded(let response):
                // Journaled as the attempt's end, so that a later relaunch does not ask again.
                do {
                    // A response kept out of the journal: a later relaunch calls the node again.
                    let end: JournalRecord.AttemptEnd =
                        try codec.encode(response).map { .response($0) } ?? .responseNotJournaled
                    try await writer.append(.attemptEnded(node: label, attempt: attempt, end: end), to: runID)
                } catch let error as JournalError {
                    return .ended(.failure(DurableRunError.journalFailed(node: label, error)))
                } catch {
                    return .ended(.failure(DurableRunError.responseNotEncodable(node: label, reason: "\(error)")))
                }
                return .ended(.success(response))
            }
        }
    }

    /// Ends the in-doubt attempt `attempt` of `label` failed in doubt, and journals that decision as
    /// the attempt's end (the error's description), so that a later relaunch replays the failure
    /// instead of deciding again (or asking the app's check again).
    private func failedInDoubt(label: String, attempt: Int, key: IdempotencyKey, runID: String) async -> Settled {
        let error = DurableRunError.inDoubt(node: label, key: key)
        do {
            try await writer.append(
                .attemptEnded(node: label, attempt: attempt, end: .failed(description: error.description)), to: runID)
        } catch {
            return .ended(.failure(DurableRunError.journalFailed(node: label, error)))
        }
        return .ended(.failure(error))
    }
}

/// What a run's records say about each async node's attempts.
struct NodeHistory {
    struct Attempts {
        /// A journaled response (the node succeeded before).
        var response: Data?
        /// The last attempt that started, and its key.
        var lastStarted: (attempt: Int, key: IdempotencyKey)?
        /// How each attempt that recorded its end ended, by attempt number (ends are matched by
        /// number: a timed-out attempt may record its end after the next one started).
        var ends: [Int: JournalRecord.AttemptEnd] = [:]
        /// Attempts that failed for a reason of their own (not cancelled by the run or the app's exit).
        var failures = 0
    }

    private var nodes: [Attempts]

    subscript(node: Int) -> Attempts { nodes[node] }

    static func read(_ records: [JournalRecord], labels: [String]) -> NodeHistory {
        let index = Dictionary(labels.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var history = NodeHistory(nodes: Array(repeating: Attempts(), count: labels.count))
        for record in records {
            switch record {
            case .attemptStarted(let label, let attempt, let key):
                guard let node = index[label] else { continue }
                if attempt >= (history.nodes[node].lastStarted?.attempt ?? 0) {
                    history.nodes[node].lastStarted = (attempt, key)
                }
            case .attemptEnded(let label, let attempt, let end):
                guard let node = index[label] else { continue }
                history.nodes[node].ends[attempt] = end
                switch end {
                case .response(let data): history.nodes[node].response = data
                case .failed(let description) where !isCancellation(description): history.nodes[node].failures += 1
                case .failed, .responseNotJournaled: break
                }
            case .runStarted, .syncApplied, .runCancelled, .runFinished:
                continue
            }
        }
        return history
    }

    /// Whether a journaled failure is a call cut off by cancellation: it may have reached the server.
    static func wasInterrupted(_ description: String) -> Bool {
        description == String(describing: CancellationError())
    }

    /// Whether a journaled failure is a cancellation (the app's exit or the run's cancel), which
    /// does not count towards a node's retry policy.
    static func isCancellation(_ description: String) -> Bool {
        description == DurableRunJournal.notCalledDescription || description == String(describing: CancellationError())
    }
}
