import Foundation
import OresRedux
import OresReduxTesting
import Testing

/// Search-as-you-type and "leave the screen, start again": work dispatched with an id, where only
/// the latest dispatch may reach the state.
@Suite("Take-latest, debounce and throttle: stories", .timeLimit(.minutes(10)))
struct TakeLatestStories {
    // MARK: The app

    struct SearchState: Equatable {
        var query = ""
        var results: [String] = []
        var isSearching = false
    }

    struct SetQuery: Action, Equatable { let query: String }
    struct SetResults: Action, Equatable { let results: [String] }

    /// The search request; a test answers it with a stub or runs it for real.
    struct Search: AsyncAction, Equatable {
        let query: String
        func run(_ context: ActionContext<SearchState>) async throws -> [String] {
            ["\(query) 1", "\(query) 2"]
        }
    }

    /// A search whose request ignores cancellation and answers when the test opens its latch, then
    /// dispatches its results itself: the late response a take-latest must drop.
    struct StubbornSearch: AsyncAction {
        let query: String
        let answer: GraphStories.Latch
        var started = GraphStories.Latch()
        var finished = GraphStories.Latch()
        func run(_ context: ActionContext<SearchState>) async throws {
            started.open()
            await answer.wait()
            context.dispatch(SetResults(results: ["\(query) 1"]))
            finished.open()
        }
    }

    enum SearchID: Hashable, Sendable { case search }

    static let reducer = Reducer<SearchState>.combine(
        .on(SetQuery.self) { state, action in state.query = action.query },
        .on(SetResults.self) { state, action in state.results = action.results }
    )

    /// The search graph: the request, then its results into the state.
    static func searchGraph(_ query: String) -> ActionGraph<SearchState> {
        var graph = ActionGraph<SearchState>()
        let search = graph.run(Search(query: query))
        graph.send(after: search) { results in SetResults(results: results) }
        return graph
    }

    // MARK: Debounce + take latest

    @Test("Typing ten characters with debounce and take-latest makes exactly one call and applies one result")
    func typingTenCharacters() async throws {
        let store = TestStore(initialState: SearchState(), reducer: Self.reducer)
        store.stub(Search.self) { search in ["\(search.query) 1"] }
        var typed = ""
        for character in "oresredux!" {
            typed.append(character)
            try store.send(SetQuery(query: typed)) { $0.query = typed }
            store.dispatch(Self.searchGraph(typed), id: SearchID.search, policy: .debounce(.milliseconds(300)))
            try await store.clock.waitForSleepers(1)  // this keystroke's quiet time (the last one's is gone)
            await store.clock.advance(by: .milliseconds(100))  // a keystroke every 100 ms
        }
        #expect(store.calls(to: Search.self).isEmpty, "no search before the typing paused")
        await store.clock.advance(by: .milliseconds(200))  // 300 ms after the last keystroke
        try await store.receive(SetResults(results: ["oresredux! 1"])) { $0.results = ["oresredux! 1"] }
        try await store.finish()
        #expect(store.calls(to: Search.self) == [Search(query: "oresredux!")])
    }

    @Test("Take latest: a response that comes after its search was replaced never reaches the state")
    func staleResponseIsDropped() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let slowAnswer = GraphStories.Latch()
        let fastAnswer = GraphStories.Latch()
        let slow = StubbornSearch(query: "o", answer: slowAnswer)
        let stale = store.dispatch(slow, id: SearchID.search)
        try await withDeadline { await slow.started.wait() }  // the request is on its way
        let fresh = store.dispatch(StubbornSearch(query: "or", answer: fastAnswer), id: SearchID.search)
        fastAnswer.open()
        try await withDeadline { try await fresh.value }
        slowAnswer.open()  // the first request answers late, ignoring its cancellation
        try await withDeadline { try await stale.value }
        #expect(store.state.results == ["or 1"])
    }

    @Test("Cancelling an action's task drops what it dispatches afterwards")
    func cancellingTheTaskDropsLateDispatches() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let answer = GraphStories.Latch()
        let search = StubbornSearch(query: "o", answer: answer)
        let task = store.dispatch(search, id: SearchID.search)
        try await withDeadline { await search.started.wait() }
        task.cancel()
        answer.open()
        try await withDeadline { try await task.value }
        #expect(store.state.results.isEmpty)
    }

    @Test("Without an id nothing is cancelled: two searches both apply, in the order they answer")
    func withoutAnIDBothApply() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let first = GraphStories.Latch()
        let second = GraphStories.Latch()
        let a = store.dispatch(StubbornSearch(query: "a", answer: first))
        let b = store.dispatch(StubbornSearch(query: "b", answer: second))
        second.open()
        try await withDeadline { try await b.value }
        first.open()
        try await withDeadline { try await a.value }
        #expect(store.state.results == ["a 1"])
    }

    @Test("A graph dispatched with an id: the run it replaced ends with its nodes cancelled, the new one applies")
    func graphTakeLatest() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let answer = GraphStories.Latch()
        var slow = ActionGraph<SearchState>()
        let request = slow.run(StubbornSearch(query: "slow", answer: answer))
        let apply = slow.send(SetResults(results: ["slow"]), after: request)
        let first = store.dispatch(slow, id: SearchID.search)
        let second = store.dispatch(Self.searchGraph("fast"), id: SearchID.search)
        let report = try await withDeadline { await second.wait() }
        #expect(report.count == 2)
        #expect(
            try await withDeadline(10, "the outcome of apply") { await first.outcome(of: apply) }.kind == .cancelled)
        #expect(store.state.results == ["fast 1", "fast 2"])
        // The replaced run's request ignores cancellation, and may still answer if it started;
        // what its action then dispatches through its own context is the action's business (the
        // guide promises that the run's `apply` never runs, checked above), so the state is read
        // before that answer, not after: after, the read would race that action's own dispatch.
        answer.open()
    }

    /// How work dispatched with an id ends early.
    enum Ending: CaseIterable, Sendable {
        case replaced, cancelledByID, runCancelled
    }

    @Test(
        "A graph dispatched with an id: once its run is replaced or cancelled, what its nodes dispatch through their context is dropped",
        arguments: Ending.allCases)
    func endedGraphsNodeContextIsClosed(_ ending: Ending) async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let answer = GraphStories.Latch()
        let stubborn = StubbornSearch(query: "slow", answer: answer)
        var slow = ActionGraph<SearchState>()
        slow.run(stubborn)
        let first = store.dispatch(slow, id: SearchID.search)
        try await withDeadline { await stubborn.started.wait() }
        switch ending {
        case .replaced:
            _ = try await withDeadline { await store.dispatch(Self.searchGraph("fast"), id: SearchID.search).wait() }
        case .cancelledByID: store.cancel(id: SearchID.search)
        case .runCancelled: first.cancel()
        }
        answer.open()  // the request answers anyway, and dispatches its results itself
        try await withDeadline { await stubborn.finished.wait() }
        #expect(store.state.results == (ending == .replaced ? ["fast 1", "fast 2"] : []))
        _ = try await withDeadline { await first.wait() }
    }

    // MARK: Cancel by id

    @Test("cancel(id:) from anywhere: a debounced search still waiting ends cancelled and never runs")
    func cancelWhileDebouncing() async throws {
        let store = TestStore(initialState: SearchState(), reducer: Self.reducer)
        store.stub(Search.self, with: ["never"])
        let task = store.dispatch(Search(query: "o"), id: SearchID.search, policy: .debounce(.seconds(1)))
        try await store.clock.waitForSleepers(1)
        store.cancel(id: SearchID.search)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await task.value } }
        await store.clock.advance(by: .seconds(2))
        try await store.finish()
        #expect(store.calls(to: Search.self).isEmpty)
        store.cancel(id: SearchID.search)  // nothing left under the id: nothing happens
        store.cancel(id: "never used")
    }

    @Test("cancel(id:) from an async action's context cancels a running graph: leaving the screen")
    func cancelFromAContext() async throws {
        struct LeaveScreen: AsyncAction {
            func run(_ context: ActionContext<SearchState>) async throws {
                context.cancel(id: SearchID.search)
            }
        }
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let answer = GraphStories.Latch()
        var graph = ActionGraph<SearchState>()
        let stubborn = StubbornSearch(query: "o", answer: answer)
        let request = graph.run(stubborn)
        let apply = graph.send(SetResults(results: ["late"]), after: request)
        let run = store.dispatch(graph, id: SearchID.search)
        // A running graph: its request has started (cancelled before it starts, it never would, and
        // nothing would wait for it below).
        try await withDeadline { await stubborn.started.wait() }
        try await withDeadline { try await store.dispatch(LeaveScreen()).value }
        #expect(try await withDeadline { await run.outcome(of: apply).kind } == .cancelled)
        answer.open()
        // The request ignores cancellation and answers anyway: its sync node never applies it. (What
        // the request dispatches itself through its context is not held back for a graph node.)
        try await withDeadline { await stubborn.finished.wait() }
        #expect(store.state.results != ["late"])
    }

    // MARK: Throttle

    @Test("Throttle: three refreshes within a second make two calls, the first and the last")
    func throttleRefreshes() async throws {
        let store = TestStore(initialState: SearchState(), reducer: Self.reducer)
        store.stub(Search.self) { search in [search.query] }
        let throttle = InFlightPolicy.throttle(.seconds(1))
        let first = store.dispatch(Search(query: "1"), id: SearchID.search, policy: throttle)
        #expect(try await withDeadline { try await first.value } == ["1"])
        let second = store.dispatch(Search(query: "2"), id: SearchID.search, policy: throttle)
        try await store.clock.waitForSleepers(1)
        let third = store.dispatch(Search(query: "3"), id: SearchID.search, policy: throttle)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await second.value } }
        await store.clock.advance(by: .seconds(1))
        #expect(try await withDeadline { try await third.value } == ["3"])
        try await store.finish()
        #expect(store.calls(to: Search.self) == [Search(query: "1"), Search(query: "3")])
    }

    // MARK: Bad input and threads

    @Test("A dispatch with an id from a reducer is dropped with a diagnostic; the store goes on")
    func fromAReducer() async throws {
        struct Misbehave: Action {}
        let diagnostics = CoreStore.Recorder<StoreDiagnostic.Kind>()
        let holder = CoreStore.Recorder<Store<SearchState>>()
        let reducer = Reducer<SearchState> { state, action in
            Self.reducer(&state, action)
            if action is Misbehave, let store = holder.values.first {
                store.dispatch(Search(query: "x"), id: SearchID.search)
            }
        }
        let store = Store(
            initialState: SearchState(), reducer: reducer,
            options: StoreOptions(onDiagnostic: { diagnostics.record($0.kind) }))
        holder.record(store)
        store.dispatch(Misbehave())
        store.dispatch(SetQuery(query: "still works"))
        #expect(diagnostics.values == [.dispatchFromReducer])
        #expect(store.state.query == "still works")
    }

    @Test("Releasing the store while a search waits out its debounce ends it; nothing hangs")
    func storeReleasedWhileDebouncing() async throws {
        let clock = VirtualClock()
        var store: Store<SearchState>? = Store(
            initialState: SearchState(), reducer: Self.reducer, options: StoreOptions(clock: clock))
        let task = store!.dispatch(Search(query: "o"), id: SearchID.search, policy: .debounce(.seconds(1)))
        let run = store!.dispatch(Self.searchGraph("o"), id: "graph", policy: .debounce(.seconds(1)))
        try await clock.waitForSleepers(2)
        store = nil
        await #expect(throws: CancellationError.self) { try await withDeadline { try await task.value } }
        let report = try await withDeadline { await run.wait() }
        #expect(report.count == 2)
    }

    @Test("A hundred tasks dispatch under one id at once: every dispatch ends, the state holds one answer")
    func manyThreadsOneID() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        struct Answer: AsyncAction {
            let index: Int
            func run(_ context: ActionContext<SearchState>) async throws {
                context.dispatch(SetResults(results: ["\(index)"]))
            }
        }
        try await withDeadline(30) {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask { _ = try? await store.dispatch(Answer(index: index), id: SearchID.search).value }
                }
            }
        }
        #expect(store.state.results.count == 1)
    }

    // MARK: Feature code written against StoreProtocol

    /// A search field's model, written once for any store of the search state.
    final class SearchModel<S: StoreProtocol<SearchState>> {
        let store: S
        init(store: S) { self.store = store }
        func typed(_ text: String) {
            store.dispatch(SetQuery(query: text))
            store.dispatch(TakeLatestStories.searchGraph(text), id: SearchID.search)
        }
        func leave() { store.cancel(id: SearchID.search) }
    }

    @Test("A model written against StoreProtocol takes the latest search, and leaving cancels it")
    func protocolModel() async throws {
        let store = Store(initialState: SearchState(), reducer: Self.reducer)
        let model = SearchModel(store: store)
        model.typed("a")
        model.typed("ab")
        model.leave()
        model.typed("abc")
        let results = store.states()
        let shown = try await withDeadline { await results.first { $0.results == ["abc 1", "abc 2"] } }
        #expect(shown?.query == "abc")
    }
}
