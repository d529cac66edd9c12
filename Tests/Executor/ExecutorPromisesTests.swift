import Foundation
import OresRedux
import Testing

/// The rest of what the executor rebuild promises, each through the real store: bad input in pure
/// code, cancels that leave nothing behind, reports that tell the truth, subscriptions that let go.
@Suite("Executor promises")
struct ExecutorPromisesTests {
    struct Mark: Action, CustomStringConvertible {
        let text: String
        init(_ text: String) { self.text = text }
        var description: String { text }
    }

    struct Offline: Error {}

    struct Answer: AsyncAction {
        let value: Int
        func run(_ context: ActionContext<[String]>) async throws -> Int {
            await Task.yield()
            return value
        }
    }

    struct Broken: AsyncAction {
        func run(_ context: ActionContext<[String]>) async throws -> Int { throw Offline() }
    }

    /// Suspends until cancelled.
    struct Forever: AsyncAction {
        func run(_ context: ActionContext<[String]>) async throws -> Int {
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            try await withTaskCancellationHandler {
                for await _ in stream {}
                try Task.checkCancellation()
            } onCancel: {
                continuation.finish()
            }
            return 0
        }
    }

    /// Collects diagnostics.
    final class Diagnostics: Sendable {
        private let lock = NSLock()
        nonisolated(unsafe) private var seen: [StoreDiagnostic] = []
        func record(_ diagnostic: StoreDiagnostic) { lock.withLock { seen.append(diagnostic) } }
        var all: [StoreDiagnostic] { lock.withLock { seen } }
    }

    static let journal = Reducer<[String]> { journal, action in
        if let mark = action as? Mark { journal.append(mark.text) }
    }

    // MARK: Pure closures that dispatch

    @Test(
        "a make or fallback closure that dispatches: dropped and reported, the run and store go on",
        arguments: [false, true])
    func pureClosuresThatDispatch(withSubscriber: Bool) async throws {
        let diagnostics = Diagnostics()
        let store = Store(
            initialState: [], reducer: Self.journal,
            options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
        let subscription = withSubscriber ? store.subscribe { _ in } : nil
        var graph = ActionGraph<[String]>()
        let answer = graph.run(Answer(value: 1))
        graph.send(after: answer) { [store] value in
            store.dispatch(Mark("from make"))
            return Mark("made \(value)")
        }
        let broken = graph.run(Broken())
        graph.setFallback(for: broken) { [store] _ in
            store.dispatch(Mark("from fallback"))
            return Mark("could not load")
        }
        let async = graph.run(after: answer) { [store] value in
            store.dispatch(Mark("from async make"))
            return Answer(value: value + 1)
        }
        graph.send(after: async) { Mark("then \($0)") }

        let run = store.dispatch(graph)
        let report = try await withDeadline(30, "the run") { await run.wait() }

        #expect(report.count(of: .succeeded) == 4)
        #expect(Set(store.state) == ["made 1", "could not load", "then 2"])
        #expect(diagnostics.all.map(\.kind) == Array(repeating: .dispatchFromReducer, count: 3))
        #expect(diagnostics.all.contains { $0.message.contains("make closure") })
        #expect(diagnostics.all.contains { $0.message.contains("fallback closure") })
        store.dispatch(Mark("later"))
        #expect(store.state.last == "later")
        withExtendedLifetime(subscription) {}
    }

    @Test("a graph or async action dispatched from a reducer is not started, and reported")
    func reducerDispatchingWork() async throws {
        let diagnostics = Diagnostics()
        final class Box: @unchecked Sendable { var store: Store<[String]>? }  // set once before use
        let box = Box()
        let store = Store(
            initialState: [],
            reducer: Reducer<[String]> { journal, action in
                guard let mark = action as? Mark else { return }
                journal.append(mark.text)
                if mark.text == "go" {
                    box.store?.dispatch(ActionGraph<[String]>())
                    let task = box.store?.dispatch(Answer(value: 1))
                    task?.cancel()
                }
            }, options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
        box.store = store
        store.dispatch(Mark("go"))
        #expect(diagnostics.all.map(\.kind) == [.dispatchFromReducer, .dispatchFromReducer])
        #expect(store.state == ["go"])
        box.store = nil
    }

    @Test("a graph dispatched through a context after its store is gone ends cancelled and is reported")
    func graphAfterStoreIsGone() async throws {
        let diagnostics = Diagnostics()
        let kept = LockedBox<ActionContext<[String]>?>(nil)
        do {
            let store = Store(
                initialState: [], reducer: Self.journal,
                middleware: [
                    Middleware { action, context, next in
                        kept.set(context)
                        next(action)
                    }
                ], options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
            store.dispatch(Mark("first"))
        }
        var graph = ActionGraph<[String]>()
        graph.send(Mark("never"))
        let run = try #require(kept.get()).dispatch(graph)
        let report = try await withDeadline(30, "the run") { await run.wait() }
        #expect(report.count(of: .cancelled) == 1)
        #expect(diagnostics.all.map(\.kind) == [.dispatchAfterRelease])
    }

    // MARK: Cancels

    @Test("after cancel() returns, no fallback reaches the reducer (cancels racing failures)")
    func noFallbackAfterCancel() async throws {
        for round in 0..<300 {
            let cancelReturned = LockedBox(false)
            let late = LockedBox(false)
            let store = Store(
                initialState: [],
                reducer: Reducer<[String]> { journal, action in
                    if let mark = action as? Mark {
                        if mark.text == "fallback", cancelReturned.get() { late.set(true) }
                        journal.append(mark.text)
                    }
                })
            var graph = ActionGraph<[String]>()
            for _ in 0..<4 {
                let broken = graph.run(Broken())
                graph.setFallback(for: broken) { _ in Mark("fallback") }
            }
            let run = store.dispatch(graph)
            if round % 2 == 0 { await Task.yield() }
            run.cancel()
            cancelReturned.set(true)
            _ = try await withDeadline(30, "the run") { await run.wait() }
            #expect(!late.get(), "round \(round): a fallback reached the reducer after cancel() returned")
        }
    }

    @Test("after cancel() returns, no new timed attempt starts: one past its start may still call run")
    func noAttemptAfterCancel() async throws {
        final class Counter: @unchecked Sendable {  // every access under `lock`
            let lock = NSLock()
            var cancelReturned = false
            var lateCalls = [0, 0, 0]
        }
        struct Counted: AsyncAction {
            let counter: Counter
            let node: Int
            func run(_ context: ActionContext<[String]>) async throws -> Int {
                counter.lock.withLock { if counter.cancelReturned { counter.lateCalls[node] += 1 } }
                throw Offline()
            }
        }
        for round in 0..<200 {
            let counter = Counter()
            let store = Store(initialState: [], reducer: Self.journal)
            var graph = ActionGraph<[String]>()
            for index in 0..<3 {
                let node = graph.run(Counted(counter: counter, node: index))
                graph.setTimeout(.seconds(30), for: node)
                graph.setRetry(.retry(1_000), for: node)
            }
            let run = store.dispatch(graph)
            for _ in 0..<(round % 4) { await Task.yield() }
            run.cancel()
            counter.lock.withLock { counter.cancelReturned = true }
            _ = try await withDeadline(30, "the run") { await run.wait() }
            // Let tasks that lost the race reach `run` if they were ever going to.
            for _ in 0..<20 { await Task.yield() }
            // An attempt checks the run right before it calls `run`, outside the run's lock (user code
            // never runs under it), so one that passed that check just before the cancel may still
            // call `run` just after. No retry may follow it: a node that kept retrying would show many.
            let late = counter.lock.withLock { counter.lateCalls }
            #expect(late.allSatisfy { $0 <= 1 }, "round \(round): late calls per node \(late)")
        }
    }

    @Test("a node joined on work that never ends ends at once when its run is cancelled, and lets go of the run")
    func joinEndsOnCancel() async throws {
        let store = Store(initialState: [], reducer: Self.journal)
        let forever = store.dispatch(Forever())
        weak var released: GraphRun<[String]>?
        do {
            var graph = ActionGraph<[String]>()
            let joined = graph.join(forever)
            graph.send(Mark("after"), after: joined)
            let run = store.dispatch(graph)
            released = run
            await Task.yield()
            run.cancel()
            let report = try await withDeadline(30, "the cancelled run") { await run.wait() }
            #expect(report.count(of: .cancelled) == 2)
        }
        // The join's task ends without waiting for `forever`; then nothing holds the run.
        for _ in 0..<10_000 where released != nil { await Task.yield() }
        #expect(released == nil, "the join's task still holds the run")
        forever.cancel()
    }

    @Test("a finished run that nobody holds is released: the store keeps no run past its end")
    func finishedRunIsReleased() async throws {
        let store = Store(initialState: [], reducer: Self.journal)
        weak var released: GraphRun<[String]>?
        do {
            var graph = ActionGraph<[String]>()
            let first = graph.send(Mark("first"))
            graph.send(Mark("second"), after: first)
            let run = store.dispatch(graph)
            released = run
            let report = try await withDeadline(30, "the run") { await run.wait() }
            #expect(report.count(of: .succeeded) == 2)
        }
        // The pipeline lets go of the run right after its last item; the store must not hold it.
        for _ in 0..<10_000 where released != nil { await Task.yield() }
        #expect(released == nil, "something still holds the finished run")
        #expect(store.state == ["first", "second"])
    }

    // MARK: Reports

    @Test("report times: no node starts before its last prerequisite ended, in random graphs", arguments: 0..<4)
    func reportTimesFollowPrerequisites(seed: Int) async throws {
        var random = SystemRandomNumberGenerator()
        let store = Store(
            initialState: [], reducer: Self.journal, middleware: [Middleware { action, _, next in next(action) }])
        let subscription = store.subscribe { _ in }
        for _ in 0..<25 {
            var graph = ActionGraph<[String]>()
            var nodes: [any GraphNode] = []
            for index in 0..<40 {
                let prerequisites =
                    nodes.isEmpty
                    ? [] : (0..<Int.random(in: 0...2, using: &random)).map { _ in nodes.randomElement(using: &random)! }
                if Bool.random(using: &random) {
                    nodes.append(graph.send(Mark("\(seed).\(index)"), after: prerequisites))
                } else {
                    nodes.append(graph.run(Answer(value: index), after: prerequisites))
                }
            }
            let run = store.dispatch(graph)
            let report = try await withDeadline(30, "the run") { await run.wait() }
            for entry in report {
                let start = try #require(entry.start)
                let end = try #require(entry.end)
                #expect(start <= end)
                for prerequisite in entry.prerequisites {
                    #expect(
                        try #require(report[prerequisite].end) <= start,
                        "node \(entry.index) started before node \(prerequisite) ended")
                }
            }
        }
        withExtendedLifetime(subscription) {}
    }

    @Test("a 1,000-node sync chain: each node has its own interval, one after the other")
    func chainIntervals() async throws {
        let store = Store(initialState: [], reducer: Self.journal)
        var graph = ActionGraph<[String]>()
        var previous: Node<Void>?
        for index in 0..<1_000 {
            previous = graph.send(Mark("\(index)"), after: previous.map { [$0] } ?? [])
        }
        let run = store.dispatch(graph)
        let report = try await withDeadline(30, "the chain") { await run.wait() }
        for index in 1..<report.count {
            #expect(try #require(report[index].start) >= (try #require(report[index - 1].end)))
        }
        let trace = report.chromeTrace
        #expect(!trace.isEmpty)
    }

    // MARK: Subscriptions

    /// An object a subscriber captures, to see when it is released.
    final class Screen: Sendable {
        func render(_ journal: [String]) {}
    }

    @Test("cancel() releases the observer and what it captured, at once")
    func cancelReleasesTheObserver() {
        let store = Store(initialState: [], reducer: Self.journal)
        weak var released: Screen?
        let subscription: Subscription
        do {
            let screen = Screen()
            released = screen
            subscription = store.subscribe { screen.render($0) }
        }
        #expect(released != nil)
        subscription.cancel()
        #expect(released == nil)
        #expect(subscription.isCancelled)
    }

    @Test("releasing the store ends every subscription and releases the observers")
    func releasingTheStoreEndsSubscriptions() {
        weak var released: Screen?
        let subscription: Subscription
        do {
            let store = Store(initialState: [], reducer: Self.journal)
            let screen = Screen()
            released = screen
            subscription = store.subscribe { screen.render($0) }
        }
        #expect(subscription.isCancelled)
        #expect(released == nil)
    }
}

/// A value any thread may read and set.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ value: Value) { lock.withLock { self.value = value } }
}
