import Foundation

/// Runs graphs durably in a store: each run is journaled ahead of its side effects under a run id
/// the app chooses, so that a relaunch can tell which calls already happened.
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
/// - when every node ended, the run is recorded finished and removed from the journal;
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
    private let builders = LockedValue<[String: Build]>([:])
    let active = LockedValue<Set<String>>([])
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
        builders.withLock { builders in
            builders[name] = { data in build(try JSONDecoder().decode(Parameters.self, from: data)) }
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
    ///   (``DurableRunError/runNotResumed(_:)``: call ``resumeUnfinished()`` first), or a journal
    ///   that could not be read or record the start (then nothing ran). The first call reads the
    ///   journal once, unless ``resumeUnfinished()`` already did.
    public func start<Parameters: Codable & Sendable>(
        _ name: String, runID: String, parameters: Parameters
    ) async throws(DurableRunError) -> GraphRun<State> {
        guard let build = builders.withLock({ $0[name] }) else { throw .unknownGraph(name) }
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
        try await refuseUnresumed(runID)
        guard active.withLock({ $0.insert(runID).inserted }) else { throw .runAlreadyActive(runID) }
        // Drawn, not derived: it only tells this run's marks from an earlier run's with the same id.
        let instance = UInt64.random(in: 1...UInt64.max)
        do {
            try await writer.append(
                .runStarted(
                    runID: runID, graph: name, parameters: encoded, fingerprint: layout.fingerprint,
                    instance: instance),
                to: runID)
        } catch {
            active.withLock { _ = $0.remove(runID) }
            throw .journalFailed(node: nil, error)
        }
        return startJournaled(graph, runID: runID, instance: instance, layout: layout)
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
        ) { [active] in
            active.withLock { _ = $0.remove(runID) }
        }
        return core.startGraph(graph, backend: core, durable: journal)
    }

    /// The builder registered as `name`.
    func builder(_ name: String) -> Build? {
        builders.withLock { $0[name] }
    }

    /// Returns once every journal write asked for so far is on disk (or has failed and was
    /// reported): the end of a run that ``GraphRun/wait()`` saw finish, for example.
    public func flush() async {
        await writer.flush()
    }
}
