import OresRedux
import OresReduxTesting
import Testing

/// A graph with no nodes finishes as it starts, and the store starts it without a registration,
/// task or waiter when nobody watches. Every promise a run makes still holds for it: `wait()`
/// reports it, `cancel()` is harmless, observers see it start and finish, and a store that is gone
/// or an owner that ended still says so.
@Suite("A graph with no nodes")
struct EmptyGraphTests {
    typealias Journal = [String]
    typealias Graph = ActionGraph<Journal>

    struct Mark: Action {
        var text: String
        init(_ text: String) { self.text = text }
    }

    static let reducer = Reducer<Journal> { journal, action in
        if let mark = action as? Mark { journal.append(mark.text) }
    }

    /// What a store's `onDiagnostic` or `onEvent` was given, in order.
    final class Log<Value: Sendable>: Sendable {
        private let values = LockedValue<[Value]>([])
        func record(_ value: Value) { values.withLock { $0.append(value) } }
        var all: [Value] { values.withLock { $0 } }
    }

    static func store(diagnostics: Log<StoreDiagnostic>, events: Log<StoreEvent>? = nil) -> Store<Journal> {
        var options = StoreOptions(onDiagnostic: { diagnostics.record($0) })
        if let events { options.onEvent = { events.record($0) } }
        return Store(initialState: [], reducer: reducer, options: options)
    }

    @Test("is finished when dispatch returns, and wait() reports it: no node, a duration")
    func finishedAtDispatch() async throws {
        let diagnostics = Log<StoreDiagnostic>()
        let store = Self.store(diagnostics: diagnostics)
        let run = store.dispatch(Graph())
        #expect(run.isFinished)
        #expect(run.report.duration != nil)
        let report = try await withDeadline(10, "the run") { await run.wait() }
        #expect(report.isEmpty)
        #expect(report.duration == .zero)
        #expect(report.summary.hasPrefix("0 nodes") && !report.summary.hasSuffix("(still running)"))
        // Waiting again, from another task, returns the same report.
        let again = try await withDeadline(10, "the second wait") { await Task { await run.wait() }.value }
        #expect(again.isEmpty && again.duration == .zero)
        #expect(diagnostics.all.isEmpty)
    }

    @Test("cancel() is harmless: the run stays finished, and its cancel action is never sent")
    func cancelIsHarmless() async throws {
        let diagnostics = Log<StoreDiagnostic>()
        let store = Self.store(diagnostics: diagnostics)
        var graph = Graph()
        graph.setCancelAction(Mark("cancelled"))
        let run = store.dispatch(graph)
        run.cancel()
        run.cancel()
        let report = try await withDeadline(10, "the run") { await run.wait() }
        run.cancel()
        #expect(report.isEmpty && report.duration != nil)
        #expect(run.isFinished)
        store.dispatch(Mark("after"))
        #expect(store.state == ["after"])
        #expect(diagnostics.all.isEmpty)
    }

    @Test("every run the store answers for it keeps every promise, whatever was done to another one")
    func manyRunsOfNoNodes() async throws {
        let diagnostics = Log<StoreDiagnostic>()
        let store = Self.store(diagnostics: diagnostics)
        var other = Graph()
        let stranger = other.send(Mark("stranger"))
        var withCancelAction = Graph()
        withCancelAction.setCancelAction(Mark("cancelled"))
        let first = store.dispatch(Graph())
        first.cancel()
        let second = store.dispatch(withCancelAction)
        second.cancel()
        let third = store.dispatch(Graph())
        for run in [first, second, third] {
            #expect(run.isFinished)
            let report = try await withDeadline(10, "the run") { await run.wait() }
            #expect(report.isEmpty && report.duration == .zero)
            let outcome = try await withDeadline(10, "the outcome") { await run.outcome(of: stranger) }
            guard case .failed(let error) = outcome else {
                Issue.record("a node of another graph answered \(outcome)")
                continue
            }
            #expect(error as? GraphError == .foreignNode(index: stranger.index))
        }
        store.dispatch(Mark("after"))
        #expect(store.state == ["after"])
        #expect(diagnostics.all.isEmpty)
    }

    @Test("a scoped store's run of it is finished at once too")
    func underAScope() async throws {
        struct Parent: Sendable { var child: Journal = [] }
        let store = Store(
            initialState: Parent(), reducer: Reducer { state, action in Self.reducer(&state.child, action) })
        let scoped = store.scope(\.child)
        let run = scoped.dispatch(Graph())
        #expect(run.isFinished)
        let report = try await withDeadline(10, "the run") { await run.wait() }
        #expect(report.isEmpty && report.duration == .zero)
    }

    @Test("an observer that comes after runs of it sees the next one start and finish")
    func observerComesLater() async throws {
        let (diagnostics, events) = (Log<StoreDiagnostic>(), Log<StoreEvent>())
        let store = Self.store(diagnostics: diagnostics)
        _ = try await withDeadline(10, "the unobserved run") { await store.dispatch(Graph()).wait() }
        let subscription = store.observeEvents { events.record($0) }
        let report = try await withDeadline(10, "the observed run") { await store.dispatch(Graph()).wait() }
        subscription.cancel()
        let descriptions = events.all.map(\.description)
        #expect(descriptions.count == 2 && descriptions.last?.hasSuffix("finished: \(report.summary)") == true)
        #expect(diagnostics.all.isEmpty)
    }

    @Test("an observed store sees it start and finish, before wait() returns")
    func observedStartAndFinish() async throws {
        let (diagnostics, events) = (Log<StoreDiagnostic>(), Log<StoreEvent>())
        let store = Self.store(diagnostics: diagnostics, events: events)
        let report = try await withDeadline(10, "the run") { await store.dispatch(Graph()).wait() }
        #expect(events.all.map(\.description) == ["run #1 started: 0 nodes", "run #1 finished: \(report.summary)"])
        #expect(diagnostics.all.isEmpty)
    }

    @Test("dispatched after its store is gone: reported, and it still finishes")
    func afterTheStoreIsGone() async throws {
        let diagnostics = Log<StoreDiagnostic>()
        let kept = LockedValue<ActionContext<Journal>?>(nil)
        do {
            let store = Store(
                initialState: [], reducer: Self.reducer,
                middleware: [
                    Middleware { action, context, next in
                        kept.withLock { $0 = context }
                        next(action)
                    }
                ], options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
            store.dispatch(Mark("first"))
        }
        let context = try #require(kept.withLock { $0 })
        let run = context.dispatch(Graph())
        let report = try await withDeadline(10, "the run") { await run.wait() }
        #expect(report.isEmpty && report.duration != nil)
        #expect(diagnostics.all.map(\.kind) == [.dispatchAfterRelease])
    }

    @Test("dispatched under an owner that ended: refused with a diagnostic, and it still finishes")
    func underAnEndedOwner() async throws {
        let diagnostics = Log<StoreDiagnostic>()
        let store = Self.store(diagnostics: diagnostics)
        let owner = store.makeOwner("Screen")
        let live = try await withDeadline(10, "the run") { await owner.dispatch(Graph()).wait() }
        #expect(live.isEmpty && live.duration != nil)
        #expect(diagnostics.all.isEmpty)
        owner.end()
        let refused = try await withDeadline(10, "the run") { await owner.dispatch(Graph()).wait() }
        #expect(refused.isEmpty && refused.duration != nil)
        #expect(diagnostics.all.map(\.kind) == [.dispatchRefusedByOwner])
    }

    @Test("a test store follows it to its end: finish() passes, and nothing reaches the reducer")
    func testStoreSeesIt() async throws {
        let store = TestStore(initialState: Journal(), reducer: Self.reducer)
        var graph = Graph()
        graph.setCancelAction(Mark("cancelled"))
        let run = store.dispatch(graph)
        run.cancel()
        let report = try await withDeadline(10, "the run") { await run.wait() }
        #expect(report.isEmpty && report.duration != nil)
        store.dispatch(Graph())
        try store.send(Mark("after")) { $0 = ["after"] }
        try await store.finish()
    }
}
