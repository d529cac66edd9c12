import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/Essentials/TheActionGraph.md.

extension GuideApp {
    @Suite("Guide: The Action Graph")
    struct ActionGraphGuide {
        @Test("ActionGraph guide: log in, then profile and feed in parallel, then one update with both")
        func typedChain() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)

            var graph = ActionGraph<AppState>()
            let session = graph.run(LogIn(user: "ada", password: "secret"))
            graph.send(after: session) { session in SignedIn(session: session) }
            let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
            let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
            let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

            let run = store.dispatch(graph)
            let report = await run.wait()  // every node has ended
            let name = try await run.value(of: profile).name  // "Ada", typed

            #expect(name == "Ada")
            #expect(report.count(of: .succeeded) == 5)
            #expect(report[home].outcome == .succeeded)
            #expect(report[feed].prerequisites == [session.index])
            #expect(try await withDeadline { try await run.value(of: feed) } == [Post(id: 1), Post(id: 2)])
            #expect(store.state.session == Session(token: "token-ada"))
            #expect(store.state.profile == Profile(name: "Ada"))
            #expect(store.state.feed == [Post(id: 1), Post(id: 2)])
        }

        @Test("ActionGraph guide: GraphRun and Outcome are generic, their types written out")
        func typesWrittenOut() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer)
            let home = homeGraph()
            let graph = home.graph
            let profile = home.profile

            let run: GraphRun<AppState> = store.dispatch(graph)  // generic over the store's state
            let outcome: Outcome<Profile> = await run.outcome(of: profile)  // over the node's response
            if case .succeeded(let loaded) = outcome {
                print(loaded.name)  // a Profile: no cast
            }

            _ = try await withDeadline { await run.wait() }
            #expect(printed.all == ["Ada"])
        }

        @Test("ActionGraph guide: ordering-only prerequisites and the deterministic order of ready sync nodes")
        func orderingOnly() async throws {
            let reached = Lines()
            let recordOrder = Middleware<AppState> { action, _, next in
                reached.append("\(action)")
                next(action)
            }
            let store = Store(initialState: AppState(), reducer: appReducer, middleware: [recordOrder])

            var graph = ActionGraph<AppState>()
            let loading = graph.send(StartLoading())
            graph.run(LogIn(user: "ada", password: "secret"), after: loading)  // waits, takes nothing

            var reads: [any GraphNode] = []
            for id in [1, 2, 3] {
                reads.append(graph.send(MarkRead(id: id)))
            }
            graph.send(ShowBanner(message: "all read"), after: reads)

            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }
            #expect(report.count(of: .succeeded) == 6)
            #expect(
                reached.all == [
                    "StartLoading()", "MarkRead(id: 1)", "MarkRead(id: 2)", "MarkRead(id: 3)",
                    #"ShowBanner(message: "all read")"#,
                ])
            #expect(store.state.isLoading)
            #expect(store.state.read == [1, 2, 3])
            #expect(store.state.banner == "all read")
        }

        @Test("ActionGraph guide: a delay node waits on the store's clock")
        func delayNode() async throws {
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: appReducer, options: StoreOptions(clock: clock))

            var graph = ActionGraph<AppState>()
            let shown = graph.send(ShowBanner(message: "Saved"))
            let pause = graph.delay(.seconds(3), after: shown)
            graph.send(HideBanner(), after: pause)

            let run = store.dispatch(graph)
            try await clock.waitForSleepers(1)
            #expect(store.state.banner == "Saved")
            await clock.advance(by: .seconds(3))
            let report = await run.wait()

            #expect(store.state.banner == nil)
            #expect(report[pause].kind == .delay)
            #expect(report.count(of: .succeeded) == 3)
        }

        @Test("ActionGraph guide: a graph joins a log-in already in flight and uses its session")
        func joinActionTask() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)

            let logIn = store.dispatch(LogIn(user: "ada", password: "secret"))  // started by the log-in screen

            var graph = ActionGraph<AppState>()
            let session = graph.join(logIn)  // waits for it; does not log in twice
            let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
            let run = store.dispatch(graph)

            #expect(try await withDeadline { try await run.value(of: session) } == Session(token: "token-ada"))
            #expect(try await withDeadline { try await run.value(of: profile) } == Profile(name: "Ada"))
            #expect(try await withDeadline { await run.wait() }[session].kind == .join)
        }

        @Test("ActionGraph guide: a graph joins a node of another run")
        func joinNodeOfAnotherRun() async throws {
            let store = Store(initialState: AppState(), reducer: appReducer)
            let home = homeGraph()
            let homeRun = store.dispatch(home.graph)

            var settings = ActionGraph<AppState>()
            let session = settings.join(home.session, of: homeRun)
            settings.send(after: session) { session in ShowBanner(message: "signed in with \(session.token)") }
            _ = try await withDeadline { [settings] in await store.dispatch(settings).wait() }

            #expect(store.state.banner == "signed in with token-ada")
        }

        @Test("ActionGraph guide: a KeyedAsyncAction dispatched twice while in flight makes one call")
        func keyedAsyncActionJoins() async throws {
            // A TestStore holds the call, so the second dispatch surely happens while the first is in flight.
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            let avatars = store.hold(FetchAvatar.self)

            let first = store.dispatch(FetchAvatar(userID: 7))
            let second = store.dispatch(FetchAvatar(userID: 7))  // joins the first call while it runs

            _ = try await avatars.nextCall()
            avatars.respond(with: "avatar-7.png")
            #expect(try await withDeadline(10, "the first avatar") { try await first.value } == "avatar-7.png")
            #expect(try await withDeadline(10, "the second avatar") { try await second.value } == "avatar-7.png")
            #expect(avatars.calls.count == 1)
            try await store.finish()
        }
    }
}
