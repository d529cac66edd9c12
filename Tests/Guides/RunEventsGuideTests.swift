import Foundation
import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/RunEvents.md.

extension GuideApp {
    @Suite("Guide: Run Events")
    struct RunEventsGuide {
        /// The guide's graph: log in, then trending posts (the server is down), then home.
        static func trendingGraph() -> ActionGraph<AppState> {
            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            let trending = graph.run(after: session) { _ in FetchTrending() }
            graph.send(after: trending) { posts in ShowHome(profile: Profile(name: "Ada"), feed: posts) }
            graph.setFallback(for: trending) { _ in ShowBanner(message: "could not load trending posts") }
            return graph
        }

        @Test("RunEvents guide: middleware alone logs a failed graph as one action, nothing of the failure")
        func middlewareAloneMissesTheFailure() async {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer, middleware: [.logger { print($0) }])

            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            let trending = graph.run(after: session) { _ in FetchTrending() }
            graph.send(after: trending) { posts in ShowHome(profile: Profile(name: "Ada"), feed: posts) }
            graph.setFallback(for: trending) { _ in ShowBanner(message: "could not load trending posts") }

            await store.dispatch(graph).wait()

            #expect(printed.all.count == 2)
            #expect(printed.all.first == #"action: ShowBanner(message: "could not load trending posts")"#)
            #expect(printed.all.last?.hasPrefix("state: AppState(count: 0, ") == true)
            #expect(printed.all.last?.hasSuffix(#"banner: Optional("could not load trending posts"))"#) == true)
        }

        @Test("RunEvents guide: StoreEvent.logger beside Middleware.logger tells the whole story")
        func loggerTellsTheWholeStory() async {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let graph = Self.trendingGraph()

            var options = StoreOptions()
            options.onEvent = StoreEvent.logger { print($0) }  // async actions and graph runs
            let store = Store(
                initialState: AppState(), reducer: appReducer,
                middleware: [.logger { print($0) }],  // sync actions and states, as before
                options: options)

            await store.dispatch(graph).wait()

            let runLines = printed.all.filter { $0.hasPrefix("run ") }
            #expect(
                runLines.dropLast() == [
                    "run #1 started: 3 nodes",
                    "run #1 node 0 LogIn started, attempt 1",
                    "run #1 node 0 LogIn succeeded",
                    "run #1 node 1 FetchTrending started, attempt 1",
                    "run #1 node 1 FetchTrending failed: Offline()",
                    "run #1 node 2 ShowHome skipped",
                ])
            #expect(
                runLines.last?.hasPrefix("run #1 finished: 3 nodes: 1 succeeded, 1 failed, 1 skipped, 0 cancelled in ")
                    == true)
            #expect(printed.all.last == runLines.last, "wait() returned after the last line")
            #expect(printed.all.contains(#"action: ShowBanner(message: "could not load trending posts")"#))
            #expect(printed.all.count == 9)
        }

        @Test("RunEvents guide: observers of failures and slow runs")
        func ownObservers() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            final class Analytics: @unchecked Sendable {
                // @unchecked: `events` is read and written only under `lock`.
                private let lock = NSLock()
                private var events: [String] = []
                func record(_ event: String) { lock.withLock { events.append(event) } }
                var all: [String] { lock.withLock { events } }
            }
            let analytics = Analytics()
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: appReducer, options: StoreOptions(clock: clock))

            let failures = store.observeEvents { event in
                guard case .nodeFinished(let run, let node) = event, case .failed(let error) = node.outcome else {
                    return
                }
                analytics.record("run \(run.id): \(node.label) failed: \(error)")
            }

            let slowRuns = store.observeEvents { event in
                if case .runFinished(_, let report) = event, let duration = report.duration, duration > .seconds(2) {
                    print(report)  // the table: which node was slow
                }
            }

            await store.dispatch(Self.trendingGraph()).wait()
            #expect(analytics.all == ["run #1: FetchTrending failed: Offline()"])
            #expect(printed.all.isEmpty, "a fast run is not printed")

            var slow = ActionGraph<AppState>()
            slow.delay(.seconds(3))
            let run = store.dispatch(slow)
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(3))
            await run.wait()
            #expect(printed.all.count == 1)
            #expect(printed.all.first?.contains("delay 3.0 seconds") == true)

            let task = store.dispatch(FetchTrending())
            await #expect(throws: Offline.self) { try await task.value }
            #expect(analytics.all.count == 1, "an async action on its own is not a node")
            failures.cancel()
            slowRuns.cancel()
        }
    }
}
