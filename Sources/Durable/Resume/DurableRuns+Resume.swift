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
    /// - an attempt that started and never recorded its end is **in doubt**, and the
    ///   ``InDoubtPolicy`` it started under decides (journaled with its start; today's node's policy
    ///   for an attempt journaled by format 1, which did not record it):
    ///   ``InDoubtPolicy/rerunWithSameKey`` calls it again as the next attempt with the same key;
    ///   ``InDoubtPolicy/failInDoubt`` ends it failed with
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

    /// Rebuilds one journaled run, plans what each node becomes, performs the plan (asks the
    /// app's checks, journals the settlements) and starts the run.
    private func resume(_ journalRun: JournalRun) async throws(DurableRunError) -> DurableResumeReport<State>.ResumedRun
    {
        let rebuilt = try rebuild(journalRun)
        let (runID, name, instance, layout) = (rebuilt.runID, rebuilt.graphName, rebuilt.instance, rebuilt.layout)
        guard rebuilt.shapeMatches else {
            throw .graphChanged(graph: name, journaled: rebuilt.journaledFingerprint, current: layout.fingerprint)
        }
        guard claim(runID, instance: instance) else { throw .runAlreadyActive(runID) }
        unresumed.withLock { _ = $0?.remove(runID) }
        var plan = rebuilt.plan(marks: core.durableMarks)
        for check in plan.checks {
            plan.answered(check.node, await ask(check.node, of: rebuilt.graph, key: check.key))
        }
        for settlement in plan.settlements {
            do {
                try await writer.append(settlement.record, to: runID)
            } catch {
                plan.journalFailed(settlement.node, error)
            }
        }
        let run = startJournaled(
            rebuilt.graph, runID: runID, instance: instance, layout: layout, resumed: plan.resumed)
        return .init(runID: runID, graph: name, run: run, endedBefore: plan.endedBefore, inDoubt: plan.inDoubt)
    }

    /// Asks the app's check of the in-doubt node `node` (its code: on this task, no lock held).
    private func ask(_ node: Int, of graph: ActionGraph<State>, key: IdempotencyKey) async -> ResumePlan.Answer {
        guard let codec = graph.settings[node]?.durable, case .ask(let check) = codec.inDoubt else { return .fail }
        let answer: InDoubtAnswer<ResponseSlot>
        do {
            answer = try await check(key)
        } catch {
            return .failed(error)
        }
        switch answer {
        case .runAgain:
            return .runAgain
        case .fail:
            return .fail
        case .succeeded(let response):
            do {
                // A response kept out of the journal: a later relaunch calls the node again.
                return .succeeded(
                    response, end: try codec.encode(response).map { .response($0) } ?? .responseNotJournaled)
            } catch {
                let label = graph.settings[node]?.label ?? "#\(node)"
                return .failed(DurableRunError.responseNotEncodable(node: label, reason: "\(error)"))
            }
        }
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
        let records: [JournalRecord]

        /// The fingerprint the run's start journaled: its digest, and its shape if it carries one.
        package var journaled: DurableFingerprint { DurableFingerprint(journaled: journaledFingerprint) }

        /// Today's graph's shape.
        package var shape: DurableShape { layout.shape }

        /// Whether today's graph has the journaled shape, by their digests alone (a journal written
        /// before the fingerprint carried the shape holds the digest alone): resume refuses the run
        /// otherwise.
        package var shapeMatches: Bool { journaled.digest == layout.digest }

        /// What resume does with each node, given the marks the restored state holds.
        func plan(marks: DurableMarksTable) -> ResumePlan {
            let labels = layout.labels
            var applied = Set<String>()
            var fallbacksApplied = Set<String>()
            for label in labels {
                if marks.contains(.init(runID: runID, instance: instance, node: label, isFallback: false)) {
                    applied.insert(label)
                }
                if marks.contains(.init(runID: runID, instance: instance, node: label, isFallback: true)) {
                    fallbacksApplied.insert(label)
                }
            }
            return ResumePlan(records: records, nodes: planNodes, applied: applied, fallbacksApplied: fallbacksApplied)
        }

        /// Today's graph as the plan sees it.
        var planNodes: [ResumePlan.Node] {
            let storage = graph.storage
            return (0..<storage.count).map { node in
                let label = layout.labels[node]
                let kind: ResumePlan.Node.Kind
                switch storage.bodies[node] {
                case .action, .makeAction:
                    kind = .sync
                case .delay:
                    kind = .delay
                case .join:
                    kind = .join
                case .async:
                    guard let codec = storage.settings[node]?.durable else {
                        kind = .join  // refused by `DurableLayout`: never reached
                        break
                    }
                    kind = .async(
                        .init(
                            inDoubt: codec.inDoubt.rule, maxAttempts: storage.settings[node]?.retry?.maxAttempts ?? 1,
                            decode: { data in
                                do {
                                    return .success(try codec.decode(data))
                                } catch {
                                    return .failure(
                                        .responseNotDecodable(node: label, reason: DecodingReason.of(error)))
                                }
                            }))
                }
                return ResumePlan.Node(label: label, kind: kind, prerequisites: Array(storage.prerequisites(of: node)))
            }
        }

        /// Each node whose journaled response does not decode, in graph order, with its response type and
        /// the reason: the nodes resume would fail with ``DurableRunError/responseNotDecodable(node:reason:)``.
        package var undecodableResponses: [(node: String, responseType: String, reason: String)] {
            let attempts = JournaledAttempts(records, labels: layout.labels)
            return planNodes.indices.compactMap { node in
                guard case .async(let durable) = planNodes[node].kind, let response = attempts[node].response,
                    case .failure(.responseNotDecodable(let label, let reason)) = durable.decode(response),
                    let codec = graph.settings[node]?.durable
                else { return nil }
                return (label, codec.responseType, reason)
            }
        }
    }

    /// Finds the builder of `journalRun`'s graph, decodes its parameters and builds its graph, as
    /// resume does first.
    /// - Throws: ``DurableRunError/unreadableRun(runID:reason:)`` if its first record is not its
    ///   start, ``DurableRunError/unknownGraph(_:)``, ``DurableRunError/parametersNotDecodable(graph:reason:)``,
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
            throw .parametersNotDecodable(graph: name, reason: DecodingReason.of(error))
        }
        let layout = try DurableLayout(graph)
        return Rebuilt(
            runID: runID, graphName: name, instance: instance, journaledFingerprint: fingerprint, graph: graph,
            layout: layout, records: journalRun.records)
    }
}
