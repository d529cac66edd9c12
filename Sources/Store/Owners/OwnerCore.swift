/// The work one ``WorkOwner`` started and has not seen end: what its end ends, once.
///
/// Not generic, so that a store's scopes of any state share it. Work is adopted *before* it starts
/// (a run before its first event), so an end that comes at any moment after the adoption reaches
/// it, and an end that came before refuses it.
final class OwnerCore: Sendable {
    /// One piece of adopted work: how to end it, and whether it has ended by itself.
    struct OwnedWork: Sendable {
        let end: @Sendable () -> Void
        let isDone: @Sendable () -> Bool
    }

    private struct Registry {
        var isEnded = false
        var nextID: UInt64 = 0
        var work: [UInt64: OwnedWork] = [:]
        /// Calls of `end()` that have not returned yet.
        var endsInProgress = 0
        /// The count at which adopting next drops the work that ended by itself, so that a
        /// long-lived owner does not keep every run it ever started.
        var pruneAt = 16
    }

    /// The name a person gave the owner ("Log-in screen"), in diagnostics and test failures.
    let name: String
    private let registry = LockedValue(Registry())

    init(name: String) {
        self.name = name
    }

    var isEnded: Bool { registry.withLock { $0.isEnded } }

    /// How many pieces of work the owner holds, ended or not (the tests check what it forgets).
    var adoptedCount: Int { registry.withLock { $0.work.count } }

    /// Adopts `work`; `nil` when the owner has ended (the work must not start).
    func adopt(_ work: OwnedWork) -> UInt64? {
        registry.withLock { registry in
            guard !registry.isEnded else { return nil }
            if registry.work.count >= registry.pruneAt {
                registry.work = registry.work.filter { !$0.value.isDone() }
                registry.pruneAt = Swift.max(16, registry.work.count * 2)
            }
            registry.nextID += 1
            registry.work[registry.nextID] = work
            return registry.nextID
        }
    }

    /// Adopts `run` before it starts; the sentence of a refusal when it must not start (the owner
    /// has ended, or the graph is durable), `nil` once adopted.
    func adopt<State: Sendable>(_ run: GraphRun<State>) -> String? {
        if run.storage.settings.values.contains(where: { $0.durable != nil }) {
            return "a graph with durable nodes was dispatched to the owner \"\(name)\"; durable runs belong to the "
                + "app, not to a screen: it was cancelled. Start it with DurableRuns instead."
        }
        let adopted = adopt(
            OwnedWork(end: { [weak run] in run?.endForOwner() }, isDone: { [weak run] in run?.isFinished ?? true }))
        guard adopted == nil else { return nil }
        return "a graph of \(run.storage.count) nodes was dispatched to the owner \"\(name)\" after it ended; "
            + "it was cancelled before any of its nodes ran."
    }

    /// Starts an async action (`name` says which) as this owner's work: `start` starts it with the
    /// gate the owner's end closes and the closure its task calls when its body ends. Refused when
    /// the owner has ended: `start` is not called, the task throws `CancellationError`, and `host`
    /// reports why.
    func startAsync<Response: Sendable>(
        _ name: String, host: any RunHost,
        _ start: (CancellationGate, _ onEnd: @escaping @Sendable () -> Void) -> ActionTask<Response>
    ) -> ActionTask<Response> {
        let gate = CancellationGate()
        let handle = LockedValue<ActionTask<Response>?>(nil)
        let adopted = adopt(
            OwnedWork(
                end: {
                    gate.cancel()
                    handle.withLock { $0 }?.cancel()
                    // A dispatch of the action being reduced right now ends first; none passes the gate later.
                    host.stateLock.withLock {}
                }, isDone: { false }))
        guard let id = adopted else {
            host.report(
                .dispatchRefusedByOwner,
                "\(name) was dispatched to the owner \"\(self.name)\" after it ended; it was not started.")
            return ActionTask(.failed(CancellationError()))
        }
        let task = start(gate) { self.release(id) }
        handle.withLock { $0 = task }
        if isEnded { task.cancel() }
        return task
    }

    /// Forgets work that ended by itself.
    func release(_ id: UInt64) {
        registry.withLock { _ = $0.work.removeValue(forKey: id) }
    }

    /// Ends the owner: from now on it adopts nothing, and every piece of work it adopted ends now,
    /// in the order it was adopted, outside the owner's lock. Calling it again after it returned
    /// does nothing.
    ///
    /// A call made while another is still ending ends every piece of work too (each piece's end
    /// does nothing the second time but wait for a reducer in progress), so that it too returns
    /// only once nothing it cancelled can be applied, not as soon as the first call took the list.
    /// The last call to return forgets the work.
    func end() {
        let work = registry.withLock { registry -> [OwnedWork] in
            registry.isEnded = true
            registry.endsInProgress += 1
            return registry.work.sorted { $0.key < $1.key }.map(\.value)
        }
        for owned in work { owned.end() }
        registry.withLock { registry in
            registry.endsInProgress -= 1
            if registry.endsInProgress == 0 { registry.work = [:] }
        }
    }
}
