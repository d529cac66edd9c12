import Foundation
import Testing

@testable import OresRedux

/// The store keeps its promises under load, leaves nothing behind, and answers bad input clearly.
@Suite("Reliability", .timeLimit(.minutes(10)))
struct Reliability {
    struct Counter: Sendable, Equatable { var value = 0 }
    struct Add: Action { var amount = 1 }
    struct Fetch: AsyncAction {
        var answer: Int
        func run(_ context: ActionContext<Counter>) async throws -> Int { answer }
    }

    static let reducer = Reducer<Counter>.on(Add.self) { state, action in state.value += action.amount }

    /// A subscriber's sequence, checked for commit order as it arrives.
    final class OrderWitness: Sendable {
        private let state = LockedValue<(last: Int, calls: Int, outOfOrder: Int)>((-1, 0, 0))
        func see(_ value: Int) {
            state.withLock { state in
                if value <= state.last { state.outOfOrder += 1 }
                state.last = value
                state.calls += 1
            }
        }
        var summary: (last: Int, calls: Int, outOfOrder: Int) { state.withLock { $0 } }
    }

    // Plain threads, not tasks: 800,000 dispatches are seconds of work under ThreadSanitizer, and
    // tasks would hold every thread of the cooperative pool that long, starving the tests beside it.
    // Far fewer under the sanitizer (see `stressCount`).
    @Test(
        "8 threads x 100_000 dispatches (1_000 under ThreadSanitizer) with subscribers attached: exact final state, every subscriber in commit order"
    )
    func eightThreadsTimesAHundredThousandDispatches() async {
        let threads = 8
        let perThread = stressCount(100_000, underThreadSanitizer: 1_000)
        let store = Store(initialState: Counter(), reducer: Self.reducer)
        let everyState = OrderWitness()
        let selected = OrderWitness()
        let plain = store.subscribe { everyState.see($0.value) }
        let select = store.subscribe({ $0.value / 1000 }) { selected.see($0) }

        await onThreads(threads) { _ in
            for _ in 0..<perThread { store.dispatch(Add()) }
        }

        let total = threads * perThread
        #expect(store.state.value == total)
        let every = everyState.summary
        #expect(every.calls == total + 1, "the first call, then one per commit")
        #expect(every.outOfOrder == 0)
        #expect(every.last == total)
        let thousands = selected.summary
        #expect(thousands.calls == total / 1000 + 1, "only when the selected value changed")
        #expect(thousands.outOfOrder == 0)
        withExtendedLifetime((plain, select)) {}
    }

    @Test("Many graphs dispatched at once from many tasks all finish, and the state counts every sync node")
    func manyGraphsFromManyTasks() async throws {
        let store = Store(initialState: Counter(), reducer: Self.reducer)
        let graphs = 400
        let reports = try await withDeadline(30, "\(graphs) graphs from \(graphs) tasks") {
            await withTaskGroup(of: GraphReport.self) { group in
                for index in 0..<graphs {
                    group.addTask {
                        var graph = ActionGraph<Counter>()
                        let first = graph.run(Fetch(answer: index))
                        let second = graph.run(after: first) { value in Fetch(answer: value + 1) }
                        graph.send(after: first, second) { a, b in Add(amount: 1 + (b - a - 1)) }
                        graph.send(Add(), after: first)
                        return await store.dispatch(graph).wait()
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(reports.count == graphs)
        #expect(reports.allSatisfy { $0.count(of: .succeeded) == 4 })
        #expect(store.state.value == graphs * 2)
    }

    @Test("After a store, its runs and subscriptions go out of scope, nothing of them stays alive")
    func nothingLeaks() async {
        weak var weakStore: Store<Counter>?
        weak var weakCore: StoreCore<Counter>?
        weak var weakSyncRun: GraphRun<Counter>?
        weak var weakAsyncRun: GraphRun<Counter>?
        weak var weakSubscription: Subscription?
        do {
            let store = Store(initialState: Counter(), reducer: Self.reducer)
            let subscription = store.subscribe { _ in }
            let selected = store.subscribe({ $0.value }) { _ in }
            let states = store.states()

            var syncGraph = ActionGraph<Counter>()
            syncGraph.send(Add(), after: syncGraph.send(Add()))
            let syncRun = store.dispatch(syncGraph)

            var asyncGraph = ActionGraph<Counter>()
            let fetched = asyncGraph.run(Fetch(answer: 3))
            asyncGraph.send(after: fetched) { Add(amount: $0) }
            let asyncRun = store.dispatch(asyncGraph)
            await asyncRun.wait()
            _ = try? await store.dispatch(Fetch(answer: 1)).value

            weakStore = store
            weakCore = store.core
            weakSyncRun = syncRun
            weakAsyncRun = asyncRun
            weakSubscription = subscription
            withExtendedLifetime((subscription, selected, states)) {}
        }
        // A finished node's task lets go of its run a moment after the run reports finished;
        // give those tasks their turn (bounded; no sleeping).
        for _ in 0..<10_000 where weakAsyncRun != nil || weakCore != nil {
            await Task.yield()
        }
        #expect(weakStore == nil)
        #expect(weakSubscription == nil)
        #expect(weakSyncRun == nil)
        #expect(weakAsyncRun == nil)
        #expect(weakCore == nil, "no cycle between the core, its runs, subscriptions and closures")
    }
}
