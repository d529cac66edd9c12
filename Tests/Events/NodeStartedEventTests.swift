import Foundation
import OresRedux
import Testing

/// `StoreEvent.nodeStarted`: what a timeline needs to draw a node from its start to its end.
@Suite("Node started events")
struct NodeStartedEventStories {
    struct Count: Sendable { var shown = 0 }
    struct Show: Action {}
    struct Offline: Error {}

    /// Fails its first call, then answers.
    struct Flaky: AsyncAction {
        let calls: Calls
        func run(_ context: ActionContext<Count>) async throws -> Int {
            if calls.next() == 1 { throw Offline() }
            return 42
        }
    }

    final class Calls: Sendable {
        private let count = Mutexed(0)
        func next() -> Int { count.update { $0 += 1 } }
    }

    final class Mutexed<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `value` is read and written only under `lock` (NSLock).
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func update(_ body: (inout Value) -> Void) -> Value {
            lock.withLock {
                body(&value)
                return value
            }
        }
        var current: Value { lock.withLock { value } }
    }

    @Test("a retried node reports each attempt with its back-off; a sync node starts once, before its end")
    func eachAttemptAndTheSyncNode() async throws {
        let events = Mutexed<[StoreEvent]>([])
        var options = StoreOptions()
        options.onEvent = { event in _ = events.update { $0.append(event) } }
        let store = Store(
            initialState: Count(), reducer: .on(Show.self) { state, _ in state.shown += 1 }, options: options)

        var graph = ActionGraph<Count>()
        let flaky = graph.run(Flaky(calls: Calls()))
        graph.setRetry(.retry(2, backoff: .constant(.milliseconds(1))), for: flaky)
        graph.send(Show(), after: flaky)
        let run = store.dispatch(graph)
        let report = try await withDeadline(10, "the run") { await run.wait() }

        let starts = events.current.compactMap { event -> StoreEvent.NodeStartInfo? in
            guard case .nodeStarted(_, let start) = event else { return nil }
            return start
        }
        #expect(starts.map(\.index) == [0, 0, 1])
        #expect(starts.map(\.attempt) == [1, 2, 1])
        #expect(starts.map(\.backoff) == [.zero, .milliseconds(1), .zero])
        #expect(starts[0].kind == .async && starts[2].kind == .sync)
        #expect(starts[1].time >= starts[0].time + .milliseconds(1), "the second try came after its back-off")
        #expect(starts[2].time >= report[0].end!, "the sync node started after its prerequisite ended")
        #expect(starts[0].time >= report[0].start!, "an attempt starts once its task runs, after the node started")

        let lines = events.current.map(\.description)
        let showStarted = try #require(lines.firstIndex(of: "run #1 node 1 Show started, attempt 1"))
        let showEnded = try #require(lines.firstIndex(of: "run #1 node 1 Show succeeded"))
        #expect(showStarted < showEnded)
        #expect(lines.filter { $0.contains("started, attempt") }.count == 3)
    }
}
