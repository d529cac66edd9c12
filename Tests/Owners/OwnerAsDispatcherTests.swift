import OresRedux
import Testing

/// An owner where code takes an `ActionDispatcher`: what it dispatches is the owner's work, work
/// dispatched by id included.
@Suite("Work that belongs to a screen: an owner is an ActionDispatcher")
struct OwnerAsDispatcherTests {
    typealias AppState = OwnerStories.AppState
    typealias Gate = OwnerStories.Gate
    typealias Note = OwnerStories.Note
    typealias Call = OwnerStories.Call<AppState>
    typealias Graph = ActionGraph<AppState>

    /// Feature code that knows nothing of owners: an async action and a graph, each at `gate`.
    static func refresh(_ dispatcher: some ActionDispatcher<AppState>, _ gate: Gate) -> (
        ActionTask<String>, GraphRun<AppState>
    ) {
        let task = dispatcher.dispatch(Call("action", gate))
        var graph = Graph()
        let call = graph.run(Call("graph", gate))
        graph.send(after: call) { Note("shows \($0)") }
        return (task, dispatcher.dispatch(graph))
    }

    @Test("code that takes an ActionDispatcher dispatches under the owner: its work ends with it")
    func featureCodeDispatchesUnderTheOwner() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Feed screen")
        let gate = Gate()
        let (task, run) = Self.refresh(owner, gate)
        try await withDeadline { await gate.arrivals(2) }

        owner.end()

        let report = try await withDeadline { await run.wait() }
        #expect(report.count(of: .cancelled) == 2)
        #expect(run.isEndedByOwner)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await task.value } }
        #expect(store.state.applied.isEmpty)
    }

    @Test("work dispatched by id through an owner follows its policy, and ends with the owner")
    func workByIDEndsWithTheOwner() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Search screen")
        let gate = Gate()
        let first = owner.dispatch(Call("search 1", gate), id: "search")
        try await withDeadline { await gate.arrivals(1) }
        let second = owner.dispatch(Call("search 2", gate), id: "search")  // takes the latest
        await #expect(throws: CancellationError.self) { try await withDeadline { try await first.value } }
        var graph = Graph()
        let feed = graph.run(Call("feed", gate))
        let run = owner.dispatch(graph, id: "feed")
        try await withDeadline { await gate.arrivals(3) }

        owner.end()

        #expect(run.report[feed].outcome == .cancelled)
        #expect(run.isEndedByOwner)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await second.value } }
    }

    @Test("work dispatched by id to an ended owner is refused, never run, and the store says why")
    func workByIDRefusedAfterTheEnd() async throws {
        let diagnostics = OwnerStories.Recorder<StoreDiagnostic>()
        let store = OwnerStories.makeStore(diagnostics: diagnostics)
        let owner = store.makeOwner("Search screen")
        owner.end()
        let gate = Gate()

        let task = owner.dispatch(Call("search", gate), id: "search")
        var graph = Graph()
        let feed = graph.run(Call("feed", gate))
        let run = owner.dispatch(graph, id: "feed", policy: .debounce(.milliseconds(300)))

        await #expect(throws: CancellationError.self) { try await withDeadline { try await task.value } }
        let report = try await withDeadline { await run.wait() }
        #expect(report[feed].outcome == .cancelled && report[feed].attempts == 0)
        #expect(diagnostics.all.map(\.kind) == [.dispatchRefusedByOwner, .dispatchRefusedByOwner])
    }

}
