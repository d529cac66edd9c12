import Foundation

/// Runs graphs durably in a store: each run is journaled ahead of its side effects under a run id
/// the app chooses, so that a relaunch can tell which calls already happened.
///
/// An app gets its `DurableRuns` from ``DurableLaunch``, which opens the journal, the state and
/// this type in the one safe order; create one yourself only with a journal of your own
/// (``RunJournal``), after restoring the state under whatever lock guards it.
///
/// ```swift
/// let durable = DurableRuns(store: store, journal: try FileRunJournal(folder: journalFolder))
/// durable.register("publishPost", parameters: PostDraft.self) { draft in
///     var graph = ActionGraph<AppState>()
///     let upload = graph.run(UploadPhoto(draft.photo))
///     graph.setLabel("upload", for: upload)
///     graph.setDurable(upload, inDoubt: .rerunWithSameKey)
///     // …
///     return graph
/// }
/// let run = try await durable.start("publishPost", runID: "post-42", parameters: draft)
/// ```
///
/// What a durable run promises, on top of a plain run's:
/// - before each attempt of a durable async node calls it, the journal holds "attempt k of node N
///   started, with key K" on disk; after it, the response (as JSON) or the error's description;
/// - each attempt's ``ActionContext/idempotencyKey`` is the same for every attempt of a node;
/// - each applied sync node is journaled with the store's commit count, in order;
/// - when every node ended, the run is recorded finished and removed from the journal (with a
///   durable ``StatePersistence``, once a saved state holds its sync work); a run id can then be
///   started again: ``start(_:runID:parameters:)`` with the id of a run that ended but waits for
///   that save saves the state first, and starts the new run once the old one left the journal;
/// - a journal that fails never crashes or hangs the store: a run that cannot record its start
///   does not start (``start(_:runID:parameters:)`` throws), a node whose attempt cannot be
///   recorded fails with ``DurableRunError/journalFailed(node:_:)`` (its dependents are skipped),
///   and a run whose journal lacks a record is kept in the journal for the app to decide about.
///
/// Thread-safe: every method may be called from any thread or task.
public final class DurableRuns<State: Sendable>: Sendable {
    typealias Build = @Sendable (Data) throws -> ActionGraph<State>

    let core: StoreCore<State>
    let writer: JournalWriter
    /// Each registered builder, with the name of its parameters type for a person (`PostDraft`).
    private let builders = LockedValue<
        [String: (build: Build, parametersType: String, reencode: @Sendable (Data) throws -> Data)]
    >([:])
    /// The run ids in use in this launch: a run holds its id from its start until it has left the
    /// journal, since a new run's records must never mix with an earlier run's, nor go with its removal.
    let active = LockedValue<[String: RunIDUse]>([:])
    /// The ids of the unfinished runs the journal held when this launch first read it, less those
    /// this launch resumed; `nil` until the first read (by `start` or `resumeUnfinished`).
    let unresumed = LockedValue<Set<String>?>(nil)

    /// Durable runs of `store`, journaled in `journal` (a ``FileRunJournal``, or the app's own).
    public init(store: Store<State>, journal: any RunJournal) {
        let core = store.core
        self.core = core
        self.writer = JournalWriter(journal: journal, counter: core.options.workCounter) { [weak core] message in
            core?.report(.journalFailed, message)
        }
    }

    /// Registers under `name` how to build a durable graph from its parameters. The journal keeps
    /// the name and the parameters (as JSON), never the graph: the graph's code is the app's.
    /// Registering a name again replaces its builder.
    /// - Parameters:
    ///   - name: the graph's stable name, kept in the journal (for example `"publishPost"`).
    ///   - parameters: the type of the parameters `build` receives.
    ///   - build: builds the graph; it must build the same graph for the same parameters.
    public func register<Parameters: Codable & Sendable>(
        _ name: String, parameters: Parameters.Type = Parameters.self,
        build: @escaping @Sendable (Parameters) -> ActionGraph<State>
    ) {
        let decodeAndBuild: Build = { data in build(try JSONDecoder().decode(Parameters.self, from: data)) }
        let reencode: @Sendable (Data) throws -> Data = { data in
            try JSONEncoder().encode(try JSONDecoder().decode(Parameters.self, from: data))
        }
        builders.withLock { builders in
            builders[name] = (decodeAndBuild, String(describing: Parameters.self), reencode)
        }
    }

    /// Starts the graph registered as `name` with `parameters`, as the durable run `runID`, once
    /// its start is on disk.
    /// - Parameters:
    ///   - name: a name given to ``register(_:parameters:build:)``.
    ///   - runID: the run's stable id, chosen by the app (for example `"post-42"`): the idempotency
    ///     keys derive from it, so it must name this piece of work, not this attempt at it.
    ///   - parameters: what the graph is built from; journaled as JSON.
    /// - Returns: the run, started.
    /// - Throws: ``DurableRunError``: an unknown name, parameters that do not encode, a graph with
    ///   a missing or duplicate label or an undeclared async node, a run id already in flight, a
    ///   run id the journal holds unfinished that this launch has not resumed
    ///   (``DurableRunError/runNotResumed(_:)``: call ``resumeUnfinished()`` first), a run id whose
    ///   previous run ended but cannot leave the journal because the state cannot be saved
    ///   (``DurableRunError/runEndNotSaved(_:reason:)``), or a journal that could not be read or
    ///   record the start (then nothing ran). The first call reads the journal once, unless
    ///   ``resumeUnfinished()`` already did.
    ///
    /// A run id can be used again once its run ended (``GraphRun/wait()`` returned). With a durable
    /// ``StatePersistence``, an ended run leaves the journal only once a saved state holds its sync
    /// work; a `start` with its id meanwhile saves the state at once (the persistence's write, as
    /// ``StatePersistence/flush()`` does) and returns once the old run has left the journal, so the
    /// new run's records are never mixed with the old run's, nor removed with them.
    public func start<Parameters: Codable & Sendable>(
        _ name: String, runID: String, parameters: Parameters
    ) async throws(DurableRunError) -> GraphRun<State> {
        guard let build = builders.withLock({ $0[name]?.build }) else { throw .unknownGraph(name) }
        let encoded: Data
        let graph: ActionGraph<State>
        do {
            encoded = try JSONEncoder().encode(parameters)
            // Built from the decoded parameters, as a relaunch will build it.
            graph = try build(encoded)
        } catch {
            throw .parametersNotEncodable(graph: name, reason: "\(error)")
        }
        let layout = try DurableLayout(graph)
        try await waitForEnd(ofEarlierRun: runID)
        try await refuseUnresumed(runID)
        // Drawn, not derived: it only tells this run's marks from an earlier run's with the same id.
        let instance = UInt64.random(in: 1...UInt64.max)
        guard claim(runID, instance: instance) else { throw .runAlreadyActive(runID) }
        do {
            try await writer.append(
                .runStarted(
                    runID: runID, graph: name, parameters: encoded, fingerprint: layout.fingerprint,
                    instance: instance),
                to: runID)
        } catch {
            active.withLock { _ = $0.removeValue(forKey: runID) }
            throw .journalFailed(node: nil, error)
        }
        return startJournaled(graph, runID: runID, instance: instance, layout: layout)
    }

    /// Takes `runID` for the run `instance`, unless a run of this launch holds it.
    func claim(_ runID: String, instance: UInt64) -> Bool {
        active.withLock { active in
            guard active[runID] == nil else { return false }
            active[runID] = RunIDUse(instance: instance)
            return true
        }
    }

    /// If the run that held `runID` ended and waits for a saved state to leave the journal, saves
    /// the state now and returns once that run has left it (at once without a durable persistence:
    /// its end is queued already). Throws ``DurableRunError/runEndNotSaved(_:reason:)`` if the
    /// state could not be saved, so the old run is still in the journal.
    private func waitForEnd(ofEarlierRun runID: String) async throws(DurableRunError) {
        guard active.withLock({ $0[runID]?.ending == true }) else { return }
        // A save of a state holding the run's sync work queues its end (`DurableMarksTable.whenSaved`)
        // before it returns; the flush then waits for that end behind every earlier record.
        let reasons = core.durableMarks.saveNow()
        await writer.flush()
        guard active.withLock({ $0[runID]?.ending == true }) else { return }
        throw .runEndNotSaved(
            runID, reason: reasons.isEmpty ? "no saved state holds its sync work yet" : reasons.joined(separator: "; "))
    }

    /// Throws ``DurableRunError/runNotResumed(_:)`` if the journal holds `runID` unfinished and
    /// this launch has not resumed it. The journal is read once a launch (before this launch's
    /// first record), and again only to confirm a refusal: the app may have removed the run since.
    private func refuseUnresumed(_ runID: String) async throws(DurableRunError) {
        do throws(JournalError) {
            if unresumed.withLock({ $0 }) == nil {
                let held = Set(try await writer.load().runs.map(\.runID))
                unresumed.withLock { $0 = $0 ?? held }
            }
            guard unresumed.withLock({ $0?.contains(runID) == true }) else { return }
            guard try await writer.load().runs.contains(where: { $0.runID == runID }) else {
                unresumed.withLock { _ = $0?.remove(runID) }
                return
            }
        } catch {
            throw .journalFailed(node: nil, error)
        }
        throw .runNotResumed(runID)
    }

    /// Starts `graph` as the durable run `runID`, whose start is on disk; `resumed` is what it takes
    /// over from earlier launches.
    func startJournaled(
        _ graph: ActionGraph<State>, runID: String, instance: UInt64, layout: DurableLayout,
        resumed: DurableRunJournal.Resumed = .init()
    ) -> GraphRun<State> {
        let journal = DurableRunJournal(
            runID: runID, instance: instance, layout: layout, resumed: resumed, writer: writer,
            marks: core.durableMarks
        ) { [active, unresumed] step in
            active.withLock { active in
                guard active[runID]?.instance == instance else { return }
                switch step {
                case .waitingToLeave: active[runID]?.ending = true
                case .leftJournal, .keptInJournal: active[runID] = nil
                }
            }
            // Kept (a record is missing): a new run under its id would append to it; the app decides.
            if step == .keptInJournal { unresumed.withLock { _ = $0?.insert(runID) } }
        }
        return core.startGraph(graph, backend: core, durable: journal)
    }

    /// Which run holds a run id, and whether it ended and only waits to leave the journal.
    struct RunIDUse {
        let instance: UInt64
        var ending = false
    }

    /// The builder registered as `name`.
    func builder(_ name: String) -> Build? {
        builders.withLock { $0[name]?.build }
    }

    /// The name of the parameters type of the builder registered as `name`.
    package func parametersType(_ name: String) -> String? {
        builders.withLock { $0[name]?.parametersType }
    }

    /// The keys of the journaled parameters `data` that the type registered as `name` does not
    /// read back, as paths (`draft.text`): a field renamed or removed since the run was journaled,
    /// whose value a resume drops. Empty if nothing is dropped; `nil` if they do not decode.
    package func droppedParameterKeys(_ name: String, _ data: Data) -> [String]? {
        guard let reencode = builders.withLock({ $0[name]?.reencode }),
            let again = try? reencode(data),
            let journaled = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let read = try? JSONSerialization.jsonObject(with: again, options: [.fragmentsAllowed])
        else { return nil }
        func dropped(_ journaled: Any, _ read: Any, at path: String) -> [String] {
            guard let journaled = journaled as? [String: Any] else { return [] }
            let read = read as? [String: Any] ?? [:]
            return journaled.keys.sorted().flatMap { key -> [String] in
                let keyPath = path.isEmpty ? key : path + "." + key
                guard let value = read[key] else { return journaled[key] is NSNull ? [] : [keyPath] }
                return dropped(journaled[key]!, value, at: keyPath)
            }
        }
        return dropped(journaled, read, at: "")
    }

    /// Returns once every journal write asked for so far is on disk (or has failed and was
    /// reported): the end of a run that ``GraphRun/wait()`` saw finish, for example.
    public func flush() async {
        await writer.flush()
    }
}
