import Foundation
import OresRedux
import Testing

/// DESIGN.md semantics 11, "A run always finishes", through the real store: whatever observers do
/// between two releases, and however many sync nodes are ready at once, every node of a run reaches
/// a terminal outcome and `wait()` returns. Every wait has a deadline, so a hang fails the test.
@Suite("A run always finishes")
struct RunAlwaysFinishesTests {
    // MARK: The app these tests tell their story with

    /// A sync action that leaves its text in the journal.
    struct Mark: Action, CustomStringConvertible {
        let text: String
        init(_ text: String) { self.text = text }
        var description: String { text }
    }

    /// An async action that goes to sleep once and answers `()`: a network call, without the network.
    struct Slow: AsyncAction {
        func run(_ context: ActionContext<[String]>) async throws {
            await Task.yield()
        }
    }

    struct Offline: Error {}

    /// An async action that fails.
    struct Broken: AsyncAction {
        func run(_ context: ActionContext<[String]>) async throws -> Int {
            await Task.yield()
            throw Offline()
        }
    }

    static let journal = Reducer<[String]> { journal, action in
        if let mark = action as? Mark { journal.append(mark.text) }
    }

    /// Who dispatches during the run.
    enum Observer: String, CaseIterable, CustomTestStringConvertible {
        case none, middleware, subscriber, both
        var testDescription: String { rawValue }
    }

    /// A store whose middleware and/or subscriber dispatches `Mark("echo of <text>")` right after it
    /// sees the mark named `trigger` (applied after the current action, FIFO).
    static func store(
        _ observer: Observer, echoing trigger: String, middleware more: [Middleware<[String]>] = [],
        options: StoreOptions = StoreOptions()
    ) -> (Store<[String]>, Subscription?) {
        let echo = "echo of \(trigger)"
        var middleware: [Middleware<[String]>] = []
        if observer == .middleware || observer == .both {
            middleware.append(
                Middleware { action, context, next in
                    next(action)
                    if (action as? Mark)?.text == trigger { context.dispatch(Mark(echo)) }
                })
        }
        let store = Store(initialState: [], reducer: journal, middleware: middleware + more, options: options)
        var subscription: Subscription?
        if observer == .subscriber || observer == .both {
            subscription = store.subscribe { [weak store] journal in
                if journal.last == trigger { store?.dispatch(Mark(echo + " (subscriber)")) }
            }
        }
        return (store, subscription)
    }

    // MARK: Observers that dispatch

    @Test("a middleware or subscriber that dispatches during a run does not stop the run", arguments: Observer.allCases)
    func observerDispatchesDuringRun(_ observer: Observer) async throws {
        let (store, subscription) = Self.store(observer, echoing: "first")
        var graph = ActionGraph<[String]>()
        graph.send(Mark("first"))
        let slow = graph.run(Slow())
        graph.send(after: slow) { _ in Mark("after") }
        let run = store.dispatch(graph)

        let report = try await withDeadline(30, "the run") { await run.wait() }

        #expect(report.count(of: .succeeded) == 3)
        #expect(store.state.contains("after"))
        #expect(store.state.first == "first")
        withExtendedLifetime(subscription) {}
    }

    @Test(
        "an observer that dispatches at any position of a run: the echo comes right after its trigger",
        arguments: Observer.allCases, 0..<6)
    func observerDispatchesAtEveryPosition(_ observer: Observer, position: Int) async throws {
        // Three roots, an async node, then three sync nodes after it: six marks, echo after mark #position.
        let names = ["r0", "r1", "r2", "a0", "a1", "a2"]
        let (store, subscription) = Self.store(observer, echoing: names[position])
        var graph = ActionGraph<[String]>()
        for name in names.prefix(3) { graph.send(Mark(name)) }
        let slow = graph.run(Slow())
        for name in names.suffix(3) { graph.send(Mark(name), after: slow) }
        let run = store.dispatch(graph)

        let report = try await withDeadline(30, "the run") { await run.wait() }

        #expect(report.count(of: .succeeded) == 7)
        let journal = store.state
        #expect(journal.filter { names.contains($0) } == names)
        for (index, entry) in journal.enumerated() where entry.hasPrefix("echo of") {
            // FIFO: an echo is applied before any graph node that was not yet being applied.
            #expect(index > 0 && journal[..<index].contains(names[position]))
        }
        let echoes = observer == .none ? 0 : observer == .both ? 2 : 1
        #expect(journal.filter { $0.hasPrefix("echo of") }.count == echoes)
        withExtendedLifetime(subscription) {}
    }

    /// When `wait()` is called: while the run is in flight, or once it has finished but the echo of
    /// its last node is still being applied.
    enum WaitBegins: String, CaseIterable, CustomTestStringConvertible {
        case early, duringTheEcho
        var testDescription: String { rawValue }
    }

    // One case after the other, not side by side: the hold below blocks the thread that applies
    // the echo, and a `wait()` that returned too early must find a free thread to show it.
    // That thread is the pool thread that ended `Slow`, and no plain thread can take its place: a
    // plain thread holding the pipeline would make it wait for the pipeline's lock instead. So the
    // hold stays, bounded (200 ms, once per case; the same in the test after this one), holding
    // one pool thread and never waiting for work that needs one.
    @Test("wait() returns once what observers dispatched in answer to the run's last node is applied")
    func waitReturnsAfterTheEcho() async throws {
        let cases = [Observer.middleware, .subscriber].flatMap { observer in
            WaitBegins.allCases.flatMap { waitBegins in [false, true].map { (observer, waitBegins, $0) } }
        }
        for (observer, waitBegins, isObserved) in cases {
            let echoStarted = CoreStore.Latch()
            let waitReturned = DispatchSemaphore(value: 0)
            // Holds the echo in the pipeline, after the run's last node: a `wait()` that returned
            // now would signal, and find the state without the echo. One that waits for the echo
            // is never seen here, so the window has to close by itself.
            let holdTheEcho = Middleware<[String]> { action, _, next in
                if (action as? Mark)?.text.hasPrefix("echo of") == true {
                    echoStarted.open()
                    _ = waitReturned.wait(timeout: .now() + .milliseconds(200))
                }
                next(action)
            }
            var options = StoreOptions()
            if isObserved { options.onEvent = { _ in } }
            let (store, subscription) = Self.store(
                observer, echoing: "last", middleware: [holdTheEcho], options: options)
            var graph = ActionGraph<[String]>()
            let slow = graph.run(Slow())
            graph.send(Mark("last"), after: slow)
            let run = store.dispatch(graph)

            if waitBegins == .duringTheEcho {
                try await withDeadline(30, "the echo") { try await echoStarted.wait() }
            }
            _ = try await withDeadline(30, "the run") { await run.wait() }
            let journal = store.state
            waitReturned.signal()

            #expect(
                journal.contains { $0.hasPrefix("echo of last") },
                "\(observer), wait begins \(waitBegins), observed: \(isObserved)")
            withExtendedLifetime(subscription) {}
        }
    }

    @Test(
        "value(of:) called once its node ended, while the sync node it released is applied, returns after it; so do the waiters beside it"
    )
    func lateValueWaitsForTheReleasedSyncNode() async throws {
        let markStarted = CoreStore.Latch()
        let valueReturned = DispatchSemaphore(value: 0)
        // Holds the mark the async node released, in the pipeline: a `value(of:)` that returned now
        // would signal, and find the state without the mark. The waiters that park meanwhile are
        // held together until the pipeline's exit.
        let holdTheMark = Middleware<[String]> { action, _, next in
            if (action as? Mark)?.text == "after" {
                markStarted.open()
                _ = valueReturned.wait(timeout: .now() + .milliseconds(200))
            }
            next(action)
        }
        let store = Store(initialState: [], reducer: Self.journal, middleware: [holdTheMark])
        var graph = ActionGraph<[String]>()
        let slow = graph.run(Slow())
        graph.send(Mark("after"), after: slow)
        let run = store.dispatch(graph)

        try await withDeadline(30, "the mark") { try await markStarted.wait() }
        let (report, outcome) = try await withDeadline(30, "the waiters") {
            async let report = run.wait()
            async let outcome = run.outcome(of: slow)
            try await run.value(of: slow)
            return (await report, await outcome)
        }
        let journal = store.state
        valueReturned.signal()

        #expect(journal == ["after"])
        #expect(report.count(of: .succeeded) == 2)
        guard case .succeeded = outcome else {
            Issue.record("the async node succeeded, as value(of:) said")
            return
        }
    }

    // MARK: Many sync nodes ready at once

    @Test(
        "any number of ready sync roots, then an async node, then a sync node after it",
        arguments: [1, 127, 128, 129, 255, 256, 257, 300], Observer.allCases)
    func manyReadyRootsThenAsyncTail(_ roots: Int, _ observer: Observer) async throws {
        let (store, subscription) = Self.store(observer, echoing: "root \(roots / 2)")
        var graph = ActionGraph<[String]>()
        for index in 0..<roots { graph.send(Mark("root \(index)")) }
        let slow = graph.run(Slow())
        graph.send(Mark("tail"), after: slow)
        let run = store.dispatch(graph)

        let report = try await withDeadline(30, "the run of \(roots) roots") { await run.wait() }

        #expect(report.count(of: .succeeded) == roots + 2)
        #expect(store.state.filter { $0.hasPrefix("root ") } == (0..<roots).map { "root \($0)" })
        #expect(store.state.last == "tail" || store.state.last?.hasPrefix("echo") == true)
        withExtendedLifetime(subscription) {}
    }

    @Test(
        "a failed node's fallback after a batch of ready roots is applied and the run ends",
        arguments: [1, 127, 128, 129, 256], Observer.allCases)
    func fallbackAfterManyRoots(_ roots: Int, _ observer: Observer) async throws {
        let (store, subscription) = Self.store(observer, echoing: "could not load")
        var graph = ActionGraph<[String]>()
        for index in 0..<roots { graph.send(Mark("root \(index)")) }
        let broken = graph.run(Broken())
        graph.setFallback(for: broken) { _ in Mark("could not load") }
        let slow = graph.run(Slow())
        graph.send(Mark("tail"), after: slow)
        let run = store.dispatch(graph)

        let report = try await withDeadline(30, "the run") { await run.wait() }

        #expect(report.count(of: .failed) == 1)
        #expect(report.count(of: .succeeded) == roots + 2)
        #expect(store.state.contains("could not load"))
        #expect(store.state.contains("tail"))
        withExtendedLifetime(subscription) {}
    }

    // MARK: Other threads meanwhile

    @Test(
        "runs and plain dispatches from other threads meanwhile: every run finishes, nothing is lost",
        arguments: Observer.allCases)
    func otherThreadsMeanwhile(_ observer: Observer) async throws {
        let (store, subscription) = Self.store(observer, echoing: "plain 3")
        let reports = try await withDeadline(60, "40 concurrent runs") {
            await withTaskGroup(of: Int.self) { group in
                for runIndex in 0..<40 {
                    group.addTask {
                        var graph = ActionGraph<[String]>()
                        var previous: Node<Void>?
                        for index in 0..<(runIndex % 7 + 1) {
                            let slow = graph.run(Slow(), after: previous.map { [$0] } ?? [])
                            previous = graph.send(Mark("run \(runIndex) node \(index)"), after: slow)
                        }
                        return await store.dispatch(graph).wait().count(of: .succeeded)
                    }
                    group.addTask {
                        for index in 0..<5 { store.dispatch(Mark("plain \(index)")) }
                        return 0
                    }
                }
                var succeeded = 0
                for await count in group { succeeded += count }
                return succeeded
            }
        }
        let expectedNodes = (0..<40).reduce(0) { $0 + 2 * ($1 % 7 + 1) }
        #expect(reports == expectedNodes)
        #expect(store.state.filter { $0.hasPrefix("plain") }.count == 200)
        withExtendedLifetime(subscription) {}
    }
}
