import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/SeeingWhatHappened/RunEvents.md.

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

            _ = try await withDeadline { await store.dispatch(Self.trendingGraph()).wait() }
            #expect(analytics.all == ["run #1: FetchTrending failed: Offline()"])
            #expect(printed.all.isEmpty, "a fast run is not printed")

            var slow = ActionGraph<AppState>()
            slow.delay(.seconds(3))
            let run = store.dispatch(slow)
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(3))
            _ = try await withDeadline { await run.wait() }
            #expect(printed.all.count == 1)
            #expect(printed.all.first?.contains("delay 3.0 seconds") == true)

            let task = store.dispatch(FetchTrending())
            await #expect(throws: Offline.self) { try await withDeadline(10, "FetchTrending") { try await task.value } }
            #expect(analytics.all.count == 1, "an async action on its own is not a node")
            failures.cancel()
            slowRuns.cancel()
        }

        @Test("RunEvents guide: what each event carries, and how runs and async actions are numbered")
        func whatEachEventCarries() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer)
            // Nobody observes: it takes no number
            _ = try await withDeadline { await store.dispatch(Self.trendingGraph()).wait() }
            let graph = Self.trendingGraph()

            let story = store.observeEvents { event in
                switch event {
                case .runStarted(let run):  // StoreEvent.RunInfo
                    print("run \(run.id) started: \(run.nodeCount) nodes")
                case .nodeStarted(let run, let node):  // StoreEvent.RunInfo, StoreEvent.NodeStartInfo
                    print("run \(run.id) node \(node.index) \(node.label) started, attempt \(node.attempt)")
                case .nodeFinished(let run, let node):  // StoreEvent.RunInfo, StoreEvent.NodeInfo
                    print("run \(run.id) node \(node.index) \(node.label) (\(node.kind)) \(node.outcome.kind)")
                    if case .succeeded(let response) = node.outcome, let session = response as? Session {
                        print("signed in with \(session.token)")  // Outcome<any Sendable>: cast the response
                    }
                case .runFinished(let run, let report):  // the report wait() returns
                    print("run \(run.id) finished: \(report.count(of: .succeeded)) of \(run.nodeCount) succeeded")
                case .actionStarted(let action):  // StoreEvent.AsyncActionInfo
                    print("async \(action.id) started: \(action.name)")
                case .actionFinished(let action, let outcome):  // Outcome<any Sendable>
                    print("async \(action.id) \(outcome.kind)")
                }
            }

            await store.dispatch(graph).wait()  // run #1
            _ = try await store.dispatch(FetchProfile(token: "t1")).value  // async #2
            story.cancel()

            #expect(
                printed.all == [
                    "run #1 started: 3 nodes",
                    "run #1 node 0 LogIn started, attempt 1",
                    "run #1 node 0 LogIn (async) succeeded",
                    "signed in with token-ada",
                    "run #1 node 1 FetchTrending started, attempt 1",
                    "run #1 node 1 FetchTrending (async) failed",
                    "run #1 node 2 ShowHome (sync) skipped",
                    "run #1 finished: 1 of 3 succeeded",
                    "async #2 started: FetchProfile",
                    "async #2 succeeded",
                ])
        }

        @Test("RunEvents guide: GraphRun and Outcome are generic, an event's id is a StoreEvent.ID")
        func typesSpelledOut() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)
            let ids = IDs()
            let subscription = store.observeEvents { event in
                if case .runStarted(let run) = event { ids.append(run.id) }
                if case .actionStarted(let action) = event { ids.append(action.id) }
            }
            let home = homeGraph()
            let run: GraphRun<AppState> = store.dispatch(home.graph)
            let profile: Outcome<Profile> = try await withDeadline { await run.outcome(of: home.profile) }
            #expect(profile.value == Profile(name: "Ada"))
            _ = try await withDeadline { await run.wait() }
            _ = try await store.dispatch(FetchProfile(token: "t1")).value
            await store.dispatch(home.graph).wait()
            subscription.cancel()
            #expect(ids.all.map(\.rawValue) == [1, 2, 3])
            #expect(ids.all == ids.all.sorted())
            #expect(ids.all.first == StoreEvent.ID(rawValue: 1))
        }

        final class IDs: @unchecked Sendable {
            // @unchecked: `ids` is read and written only under `lock`.
            private let lock = NSLock()
            private var ids: [StoreEvent.ID] = []
            func append(_ id: StoreEvent.ID) { lock.withLock { ids.append(id) } }
            var all: [StoreEvent.ID] { lock.withLock { ids } }
        }
    }
}
