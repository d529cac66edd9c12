import Foundation
import OresRedux
import Testing

/// Nodes built from the state when they start (`makeFromState:`), not from the state read when the
/// graph was built.
@Suite("State-built nodes", .timeLimit(.minutes(10)))
struct StateBuiltNodeTests {
    struct Feed: Equatable {
        var page = 1
        var lines: [String] = []
    }

    struct SetPage: Action { let page: Int }
    struct Append: Action { let line: String }

    /// Answers the page it was built for, once its gate opens.
    struct FetchPage: AsyncAction {
        let number: Int
        var gate: GraphStories.Latch? = nil
        func run(_ context: ActionContext<Feed>) async throws -> String {
            await gate?.wait()
            return "page \(number)"
        }
    }

    static let reducer = Reducer<Feed>.combine(
        .on(SetPage.self) { state, action in state.page = action.page },
        .on(Append.self) { state, action in state.lines.append(action.line) }
    )

    @Test("A root async node reads the state when the run starts it, not when the graph was built")
    func rootAsyncNodeReadsStateAtStart() async throws {
        let store = Store(initialState: Feed(), reducer: Self.reducer)
        var graph = ActionGraph<Feed>()
        let fetch = graph.run { state in FetchPage(number: state.page) }
        graph.send(after: fetch) { page in Append(line: page) }
        store.dispatch(SetPage(page: 2))  // after building, before dispatching
        let run = store.dispatch(graph)
        #expect(try await withDeadline { try await run.value(of: fetch) } == "page 2")
    }

    @Test("An async node after a slow one reads the state as it is when it starts")
    func laterAsyncNodeReadsStateWhenItStarts() async throws {
        let store = Store(initialState: Feed(), reducer: Self.reducer)
        let gate = GraphStories.Latch()
        var graph = ActionGraph<Feed>()
        let first = graph.run(FetchPage(number: 0, gate: gate))
        let next = graph.run(after: first) { state, first in FetchPage(number: state.page) }
        let run = store.dispatch(graph)
        store.dispatch(SetPage(page: 7))  // while the first request is on its way
        gate.open()
        #expect(try await withDeadline { try await run.value(of: next) } == "page 7")
    }

    @Test("A sync node sees every action applied before it, including one a subscriber queued in between")
    func syncNodeSeesQueuedActions() async throws {
        let store = Store(initialState: Feed(), reducer: Self.reducer)
        let subscription = store.subscribe { state in
            // A subscriber reacting to the first line, as an analytics observer might.
            if state.lines == ["first"] { store.dispatch(SetPage(page: 5)) }
        }
        defer { subscription.cancel() }
        var graph = ActionGraph<Feed>()
        let first = graph.send(Append(line: "first"))
        graph.send(after: first, makeFromState: { state, _ in Append(line: "on page \(state.page)") })
        let run = store.dispatch(graph)
        _ = try await withDeadline { await run.wait() }
        #expect(store.state.lines == ["first", "on page 5"])
    }

    @Test("Typed responses and the state together; the trailing-closure form picks the state-built node")
    func responsesAndState() async throws {
        let store = Store(initialState: Feed(page: 3), reducer: Self.reducer)
        var graph = ActionGraph<Feed>()
        let a = graph.run(FetchPage(number: 1))
        let b = graph.run(FetchPage(number: 2))
        graph.send(after: a, b) { state, a, b in Append(line: "\(a), \(b) on page \(state.page)") }
        graph.send { state in Append(line: "root on page \(state.page)") }
        let run = store.dispatch(graph)
        _ = try await withDeadline { await run.wait() }
        #expect(Set(store.state.lines) == ["root on page 3", "page 1, page 2 on page 3"])
    }

    @Test("A state-built make closure that dispatches: the dispatch is dropped with a diagnostic")
    func makeThatDispatches() async throws {
        let diagnostics = CoreStore.Recorder<StoreDiagnostic.Kind>()
        let store = Store(
            initialState: Feed(), reducer: Self.reducer,
            options: StoreOptions(onDiagnostic: { diagnostics.record($0.kind) }))
        var graph = ActionGraph<Feed>()
        graph.send { [weak store] state in
            store?.dispatch(SetPage(page: 99))
            return Append(line: "made on page \(state.page)")
        }
        let run = store.dispatch(graph)
        _ = try await withDeadline { await run.wait() }
        #expect(store.state == Feed(page: 1, lines: ["made on page 1"]))
        #expect(diagnostics.values == [.dispatchFromReducer])
    }
}
