import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/RunningWork/FailureAndCancellation.md.

extension GuideApp {
    @Suite("Guide: Failure and Cancellation")
    struct FailureAndCancellationGuide {
        @Test(
            "FailureAndCancellation guide: a failed node skips its dependents, sends its fallback, other branches go on"
        )
        func failedAndSkipped() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer)

            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
            let trending = graph.run(FetchTrending())
            graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
            let home = graph.send(after: profile, trending) { profile, posts in ShowHome(profile: profile, feed: posts)
            }
            graph.setFallback(for: trending) { error in ShowBanner(message: "could not load trending posts") }

            let run = store.dispatch(graph)
            let report = await run.wait()

            #expect(report[trending].outcome == .failed)
            #expect(report[trending].error as? Offline == Offline())
            #expect(report[home].outcome == .skipped)
            #expect(store.state.profile == Profile(name: "Ada"))
            #expect(store.state.banner == "could not load trending posts")

            switch await run.outcome(of: home) {
            case .succeeded: print("home shown")
            case .failed(let error): print("home failed:", error)
            case .skipped: print("home skipped: a prerequisite did not succeed")
            case .cancelled: print("home cancelled")
            }

            do {
                _ = try await run.value(of: trending)
            } catch {
                print(error)  // Offline(): the node's own error
            }

            #expect(printed.all == ["home skipped: a prerequisite did not succeed", "Offline()"])
            await #expect(throws: GraphError.skipped) { try await withDeadline { try await run.value(of: home) } }
        }

        @Test("FailureAndCancellation guide: cancel ends what has not finished; committed state stays")
        func cancelKeepsCommittedState() async throws {
            // A TestStore holds LogIn, so the run is surely cancelled while LogIn is in flight.
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            let logIns = store.hold(LogIn.self)

            var graph = ActionGraph<AppState>()
            let loading = graph.send(StartLoading())
            let session = graph.run(LogIn(user: "ada", password: "secret"), after: loading)
            graph.send(after: session) { session in SignedIn(session: session) }

            let run = store.dispatch(graph)
            // ... the user leaves the screen while LogIn is in flight
            _ = try await logIns.nextCall()
            run.cancel()
            let report = await run.wait()

            #expect(report[loading].outcome == .succeeded)
            #expect(store.state.isLoading == true)
            #expect(report[session].outcome == .cancelled)
            #expect(report.count(of: .cancelled) == 2)
            try await store.receive(StartLoading.self) { $0.isLoading = true }
            try await store.finish()  // SignedIn never reached the reducer
            #expect(store.state.session == nil)
        }

        struct StopLoading: Action {}
        static let loadingReducer = Reducer<AppState>.combine(
            appReducer,
            .on(StopLoading.self) { state, _ in state.isLoading = false })

        @Test("FailureAndCancellation guide: the cancel action stops the spinner, once, before wait returns")
        func cancelActionStopsTheSpinner() async throws {
            // A TestStore holds LogIn, so the run is surely cancelled while LogIn is in flight.
            let store = TestStore(initialState: AppState(), reducer: Self.loadingReducer)
            let logIns = store.hold(LogIn.self)

            var graph = ActionGraph<AppState>()
            let loading = graph.send(StartLoading())
            let session = graph.run(LogIn(user: "ada", password: "secret"), after: loading)
            graph.send(after: session) { session in SignedIn(session: session) }
            graph.setCancelAction(StopLoading())

            let run = store.dispatch(graph)
            // ... the user leaves the screen while LogIn is in flight
            _ = try await logIns.nextCall()
            run.cancel()
            await run.wait()
            // store.state.isLoading == false: StopLoading reached the reducer, once

            #expect(store.state.isLoading == false)
            try await store.receive(StartLoading.self) { $0.isLoading = true }
            try await store.receive(StopLoading.self) { $0.isLoading = false }
            run.cancel()  // after the run finished: nothing more
            try await store.finish()
        }

        @Test("FailureAndCancellation guide: a node of another graph is reported and fails, never hangs")
        func foreignNode() async {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer)

            var login = ActionGraph<AppState>()
            let session = login.run(LogIn(user: "ada", password: "secret"))

            var other = ActionGraph<AppState>()
            let profile = other.run(FetchProfile(token: "t"), after: session)  // a node of another graph
            print(other.problems)  // [node #0 belongs to another graph; ...]

            let report = await store.dispatch(other).wait()
            // report[profile].outcome == .failed, with GraphError.foreignNode(index: 0)

            #expect(other.problems == [.foreignNode(index: 0)])
            #expect(printed.all.first?.hasPrefix("[node #0 belongs to another graph;") == true)
            #expect(report[profile].outcome == .failed)
            #expect(report[profile].error as? GraphError == .foreignNode(index: 0))
        }

        @Test("FailureAndCancellation guide: a wrong password fails LogIn and skips the whole home graph")
        func failedRootSkipsEverything() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)
            let home = homeGraph(password: "wrong")
            let report = try await withDeadline { await store.dispatch(home.graph).wait() }

            #expect(report[home.session].error as? WrongPassword == WrongPassword())
            #expect(report.count(of: .skipped) == 4)
            #expect(store.state == AppState())  // the feed's fallback is not sent: it was skipped, not failed
        }
    }
}
