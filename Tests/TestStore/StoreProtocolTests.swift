import OresRedux
import OresReduxTesting
import Testing

/// Issue 13: feature code written once against `StoreProtocol`, driven by a `Store` or a `TestStore`.
@Suite("StoreProtocol: one view model, either store")
struct StoreProtocolTests {
    struct Counter: Equatable, Sendable {
        var count = 0
        var loading = false
    }
    struct StartLoading: Action {}
    struct Loaded: Action { var count: Int }
    struct LoadCount: AsyncAction {
        func run(_ context: ActionContext<Counter>) async throws -> Int { 42 }
    }
    static let reducer = Reducer<Counter>.combine(
        .on(StartLoading.self) { state, _ in state.loading = true },
        .on(Loaded.self) { state, action in
            state.count = action.count
            state.loading = false
        }
    )

    /// A screen's model, written against the protocol only.
    final class CounterModel<S: StoreProtocol<Counter>>: Sendable {
        let store: S
        init(store: S) { self.store = store }

        var title: String { store.state.loading ? "Loading…" : "\(store.state.count)" }

        @discardableResult
        func load() -> GraphRun<Counter> {
            store.dispatch(StartLoading())
            var graph = ActionGraph<Counter>()
            let count = graph.run(LoadCount())
            graph.send(after: count) { count in Loaded(count: count) }
            return store.dispatch(graph)
        }
    }

    @Test("On the app's store, the model loads for real")
    func liveStore() async throws {
        let model = CounterModel(store: Store(initialState: Counter(), reducer: Self.reducer))
        let run = model.load()
        _ = try await withDeadline(30, "the load") { await run.wait() }
        #expect(model.title == "42")
    }

    @Test("On a test store, the same model's dispatches are tracked: receive waits for the graph")
    func testStore() async throws {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer)
        let load = store.hold(LoadCount.self)
        let model = CounterModel(store: store)

        model.load()
        try await store.receive(StartLoading.self) { $0.loading = true }
        #expect(model.title == "Loading…")
        _ = try await load.nextCall()
        load.respond(with: 7)
        try await store.receive(Loaded.self) {
            $0.count = 7
            $0.loading = false
        }
        #expect(model.title == "7")
        try await store.finish()
    }

    @Test("Subscribing through the protocol works on both stores")
    func subscribing() async throws {
        func watch(_ store: some StoreProtocol<Counter>) -> (Subscription, CoreStore.Recorder<Int>) {
            let seen = CoreStore.Recorder<Int>()
            let subscription = store.subscribe({ $0.count }) { seen.record($0) }
            store.dispatch(Loaded(count: 3))
            return (subscription, seen)
        }
        let (liveSubscription, live) = watch(Store(initialState: Counter(), reducer: Self.reducer))
        let testStore = TestStore(initialState: Counter(), reducer: Self.reducer)
        let (testSubscription, tested) = watch(testStore)
        #expect(live.values == [0, 3])
        #expect(tested.values == [0, 3])
        try await testStore.receive(Loaded.self) { $0.count = 3 }
        liveSubscription.cancel()
        testSubscription.cancel()
    }

    /// Code that only dispatches takes any dispatcher: a store, a scope, an action's context.
    static func startLoading(_ dispatcher: some ActionDispatcher<Counter>) {
        dispatcher.dispatch(StartLoading())
    }

    @Test("A function over ActionDispatcher takes a store, a test store and an action's context alike")
    func oneFunctionForEveryDispatcher() async throws {
        let store = Store(initialState: Counter(), reducer: Self.reducer)
        Self.startLoading(store)
        #expect(store.state.loading)

        struct StartFromContext: AsyncAction {
            func run(_ context: ActionContext<Counter>) async throws {
                StoreProtocolTests.startLoading(context)
            }
        }
        let fresh = Store(initialState: Counter(), reducer: Self.reducer)
        try await withDeadline(10, "StartFromContext") { try await fresh.dispatch(StartFromContext()).value }
        #expect(fresh.state.loading)

        let testStore = TestStore(initialState: Counter(), reducer: Self.reducer)
        Self.startLoading(testStore)
        try await testStore.receive(StartLoading.self) { $0.loading = true }
        try await testStore.finish()
    }
}
