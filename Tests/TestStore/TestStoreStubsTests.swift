import OresRedux
import OresReduxTesting
import Testing

/// Issue 13: async stubs that see the action and its context, and actions run for real.
@Suite("TestStore: async stubs and actions run for real")
struct TestStoreStubsTests {
    typealias App = HomeApp

    struct Table: Equatable, Sendable {
        var deck: [Int] = []
        var dealt: [Int] = []
        var note: String?
    }
    /// A pure async action: no fake needed, its own `run` is the behaviour under test.
    struct Shuffle: AsyncAction {
        var deck: [Int]
        func run(_ context: ActionContext<Table>) async throws -> [Int] {
            deck.enumerated().sorted { ($0.offset * 7) % deck.count < ($1.offset * 7) % deck.count }.map(\.element)
        }
    }
    struct Deal: Action { var cards: [Int] }
    struct Note: Action { var text: String }
    struct FetchDeck: AsyncAction {
        func run(_ context: ActionContext<Table>) async throws -> [Int] { fatalError("network in a test") }
    }
    static let reducer = Reducer<Table>.combine(
        .on(Deal.self) { table, action in table.dealt = action.cards },
        .on(Note.self) { table, action in table.note = action.text }
    )

    @Test("An async stub reads the state through its context, dispatches, and answers after suspending")
    func asyncStubSeesTheContext() async throws {
        let store = TestStore(initialState: Table(note: "fresh"), reducer: Self.reducer)
        store.stub(FetchDeck.self) { _, context in
            context.dispatch(Note(text: "fetching, note was \(context.state.note ?? "none")"))
            await Task.yield()
            return [1, 2, 3]
        }
        var graph = ActionGraph<Table>()
        let deck = graph.run(FetchDeck())
        graph.send(after: deck) { cards in Deal(cards: cards) }
        store.dispatch(graph)

        try await store.receive(Note.self) { $0.note = "fetching, note was fresh" }
        try await store.receive(Deal.self) { $0.dealt = [1, 2, 3] }
        try await store.finish()
    }

    @Test("runForReal runs a pure async action's own run, with its own fields")
    func runForReal() async throws {
        let store = TestStore(initialState: Table(), reducer: Self.reducer)
        store.runForReal(Shuffle.self)
        var graph = ActionGraph<Table>()
        let shuffled = graph.run(Shuffle(deck: [1, 2, 3, 4, 5]))
        graph.send(after: shuffled) { cards in Deal(cards: cards) }
        store.dispatch(graph)

        try await store.receive(Deal.self) { $0.dealt = [1, 4, 2, 5, 3] }  // Shuffle's own order
        #expect(store.calls(to: Shuffle.self).map(\.deck) == [[1, 2, 3, 4, 5]])
        try await store.finish()
    }

    /// Deals what `FetchDeck` answers: machinery that reaches the outside only through `FetchDeck`.
    struct DealFromTheServer: CoordinatingAsyncAction {
        func run(_ context: ActionContext<Table>) async throws -> Int {
            let cards = try await context.dispatch(FetchDeck()).value
            context.dispatch(Deal(cards: cards))
            return cards.count
        }
    }

    @Test("A coordinating action runs for real without a stub; the call it makes is stubbed")
    func coordinatingActionRunsForReal() async throws {
        let store = TestStore(initialState: Table(), reducer: Self.reducer)
        store.stub(FetchDeck.self, with: [4, 2])
        let dealt = store.dispatch(DealFromTheServer())

        try await store.receive(Deal.self) { $0.dealt = [4, 2] }
        #expect(try await withDeadline { try await dealt.value } == 2)
        #expect(store.calls(to: DealFromTheServer.self).count == 1)
        try await store.finish()
    }

    @Test("A coordinating action's stub, when the test sets one, is used instead of its run")
    func coordinatingActionStubbed() async throws {
        let store = TestStore(initialState: Table(), reducer: Self.reducer)
        store.stub(DealFromTheServer.self, with: 9)
        #expect(try await withDeadline { try await store.dispatch(DealFromTheServer()).value } == 9)
        #expect(store.calls(to: FetchDeck.self).isEmpty)
        try await store.finish()
    }

    @Test("A stub can wait on the test store's clock, and the test advances it")
    func asyncStubSleepsOnTheClock() async throws {
        let store = TestStore(initialState: Table(), reducer: Self.reducer)
        store.stub(FetchDeck.self) { [clock = store.clock] _, _ in
            try await clock.sleep(for: .seconds(3))  // a slow server, in virtual time
            return [9]
        }
        var graph = ActionGraph<Table>()
        let deck = graph.run(FetchDeck())
        graph.send(after: deck) { cards in Deal(cards: cards) }
        store.dispatch(graph)

        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(3))
        try await store.receive(Deal.self) { $0.dealt = [9] }
        try await store.finish()
    }
}
