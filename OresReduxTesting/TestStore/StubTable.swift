import OresRedux

/// The stubs of a test store, by action type: the store's interceptor.
final class StubTable: AsyncActionInterceptor, Sendable {
    private struct Stub {
        let matches: (@Sendable (Any) -> Bool)?
        let respond: @Sendable (Any, Any) async throws -> Any
        let held: (@Sendable () -> Int)?
        let name: String
    }

    private struct Table {
        var stubs: [ObjectIdentifier: [Stub]] = [:]
        var calls: [ObjectIdentifier: [Any]] = [:]
        var failures: [String] = []
    }

    private let table = LockedValue(Table())
    let waits: TestStoreWaits
    /// The test store's state type: its stubs take only the async actions of that state.
    private let state: Any.Type

    init(waits: TestStoreWaits, state: Any.Type) {
        self.waits = waits
        self.state = state
    }

    func set<A: AsyncAction>(
        for type: A.Type, matching: (@Sendable (Any) -> Bool)? = nil,
        held: HeldCalls<A>? = nil,
        _ respond: @escaping @Sendable (Any, Any) async throws -> A.Response
    ) {
        var waitingCount: (@Sendable () -> Int)?
        if let held { waitingCount = { held.waitingCount } }
        let stub = Stub(
            matches: matching, respond: { action, context in try await respond(action, context) },
            held: waitingCount, name: "\(A.self)")
        table.withLock { table in
            var stubs = table.stubs[ObjectIdentifier(A.self)] ?? []
            if matching == nil { stubs.removeAll { $0.matches == nil } }
            stubs.insert(stub, at: matching == nil ? stubs.endIndex : 0)
            table.stubs[ObjectIdentifier(A.self)] = stubs
        }
    }

    func perform<A: AsyncAction>(_ action: A, context: ActionContext<A.State>) async throws -> A.Response {
        let stub = table.withLock { table -> Stub? in
            table.calls[ObjectIdentifier(A.self), default: []].append(action)
            let stub = table.stubs[ObjectIdentifier(A.self)]?.first { $0.matches?(action) ?? true }
            if stub == nil, !(action is any CoordinatingAsyncAction) {
                table.failures.append(missingStub(A.self))
            }
            return stub
        }
        waits.counter.noteProgress()
        WorkCounter.current?.note("called its stub")
        guard let stub else {
            // Machinery that reaches nothing outside the store needs no fake: it runs for real.
            if action is any CoordinatingAsyncAction { return try await action.run(context) }
            throw MissingStub(action: "\(A.self)")
        }
        let response = try await stub.respond(action, context) as! A.Response
        WorkCounter.current?.note("got its stub's answer")
        return response
    }

    /// Why a call of `A` failed for want of a stub, and what to do.
    private func missingStub<A: AsyncAction>(_: A.Type) -> String {
        guard A.State.self == state else {
            // A scoped feature's action (dispatched through `store.scope(_:)`): stubs here take
            // only actions of this store's state, so the fix is a test store of the feature's own.
            return "\(A.self) was run but has no stub: it is an async action of \(A.State.self), a scope of this "
                + "test store's state, which this test store cannot stub; test the feature that dispatches it on "
                + "a TestStore<\(A.State.self)> of its own, and stub it there"
        }
        return "\(A.self) was run but has no stub: add store.stub(\(A.self).self, ...) or store.hold(\(A.self).self)"
    }

    func calls<A>(of type: A.Type) -> [Any] {
        table.withLock { $0.calls[ObjectIdentifier(A.self)] ?? [] }
    }

    func failures() -> [String] {
        table.withLock { $0.failures }
    }

    private func heldCounters() -> [(name: String, waiting: @Sendable () -> Int)] {
        table.withLock { table in
            table.stubs.values.flatMap { $0 }.compactMap { stub in stub.held.map { (stub.name, $0) } }
        }
    }

    /// How many held calls wait for an answer, over every held type.
    func heldWaitingCount() -> Int {
        heldCounters().reduce(0) { $0 + $1.waiting() }
    }

    func unansweredHeldCalls() -> [String] {
        heldCounters().compactMap { held in
            let waiting = held.waiting()
            return waiting > 0 ? "\(waiting) x \(held.name)" : nil
        }
    }
}

/// What an async action without a stub throws in a ``TestStore``; `finish` reports it too.
struct MissingStub: Error, CustomStringConvertible {
    let action: String
    var description: String { "\(action) has no stub" }
}
