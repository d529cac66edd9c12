import OresRedux
import OresReduxTesting
import Testing

/// Issue 14: async actions get their services from the store (`context.dependencies`) and sleep on
/// the store's clock (`context.clock`), so they carry only data, and a test swaps both.
@Suite("Dependencies: services and the clock come from the store")
struct DependenciesTests {
    typealias Recorder = CoreStore.Recorder

    // MARK: A small app with one service

    struct Profile: Equatable, Sendable { var name: String }

    struct State: Equatable, Sendable {
        var profile: Profile?
        var status = "idle"
    }

    struct ProfileLoaded: Action { let profile: Profile }
    struct SetStatus: Action { let status: String }

    static let reducer = Reducer<State>.combine(
        .on(ProfileLoaded.self) { state, action in state.profile = action.profile },
        .on(SetStatus.self) { state, action in state.status = action.status }
    )

    /// The app's backend.
    protocol ProfileAPI: Sendable {
        func profile(token: String) async throws -> Profile
    }

    struct NotSet: Error, Equatable { let dependency: String }

    /// The default: fails every call, so a dependency a store forgot to set shows at once.
    struct UnimplementedAPI: ProfileAPI {
        func profile(token: String) async throws -> Profile { throw NotSet(dependency: "api") }
    }

    /// A fake that answers with a fixed profile and remembers the tokens it was called with.
    struct FakeAPI: ProfileAPI {
        let name: String
        let tokens = Recorder<String>()
        func profile(token: String) async throws -> Profile {
            tokens.record(token)
            return Profile(name: name)
        }
    }

    enum APIKey: DependencyKey {
        static let defaultValue: any ProfileAPI = UnimplementedAPI()
    }

    enum GreetingKey: DependencyKey {
        static let defaultValue = "hello"
    }

    /// A second key with the same value type as ``GreetingKey``: the key, not the type, names a value.
    enum FarewellKey: DependencyKey {
        static let defaultValue = "goodbye"
    }

    enum OptionalLimitKey: DependencyKey {
        static let defaultValue: Int? = 10
    }

    /// Where middleware sends what it sees.
    enum AnalyticsKey: DependencyKey {
        static let defaultValue = Recorder<String>()
    }

    /// An async action that carries only its data: no API client field, so `Equatable` is synthesized.
    struct FetchProfile: AsyncAction, Equatable {
        let token: String
        func run(_ context: ActionContext<State>) async throws -> Profile {
            try await context.dependencies.api.profile(token: token)
        }
    }

    /// Waits on the store's clock, then answers.
    struct WaitThenAnswer: AsyncAction {
        let delay: Duration
        let woke: Recorder<String>
        func run(_ context: ActionContext<State>) async throws -> String {
            try await context.clock.sleep(for: delay)
            woke.record("woke")
            return "done after \(delay)"
        }
    }

    /// The error `task` failed with, if it is a ``NotSet``; `nil` if it succeeded or failed otherwise.
    static func error(of task: ActionTask<Profile>) async throws -> NotSet? {
        try await withDeadline(10, "the task") {
            do {
                _ = try await task.value
                return nil
            } catch {
                return error as? NotSet
            }
        }
    }

    // MARK: The container

    @Test("A key never set reads its default value")
    func defaultWhenNotSet() {
        let dependencies = Dependencies()

        #expect(dependencies.greeting == "hello")
        #expect(dependencies[FarewellKey.self] == "goodbye")
        #expect(dependencies.api is UnimplementedAPI)
    }

    @Test("A value set for one key replaces that key's default only, even among keys of the same type")
    func valueSetReplacesOnlyItsKey() {
        var dependencies = Dependencies()
        dependencies.greeting = "bonjour"

        #expect(dependencies.greeting == "bonjour")
        #expect(dependencies[FarewellKey.self] == "goodbye")

        dependencies[FarewellKey.self] = "au revoir"
        dependencies.greeting = "salut"
        #expect(dependencies.greeting == "salut")
        #expect(dependencies[FarewellKey.self] == "au revoir")
    }

    @Test("An optional dependency set to nil reads nil, not its default")
    func optionalSetToNil() {
        var dependencies = Dependencies()
        dependencies[OptionalLimitKey.self] = nil

        #expect(dependencies[OptionalLimitKey.self] == nil)
        #expect(Dependencies()[OptionalLimitKey.self] == 10)
    }

    @Test("Dependencies are a value: a copy changed later does not change the store's")
    func copiesAreIndependent() async throws {
        var dependencies = Dependencies()
        dependencies.api = FakeAPI(name: "Ada")
        let store = Store(
            initialState: State(), reducer: Self.reducer, options: StoreOptions(dependencies: dependencies))

        dependencies.api = FakeAPI(name: "Grace")

        let profile = try await withDeadline(10, "FetchProfile") {
            try await store.dispatch(FetchProfile(token: "t")).value
        }
        #expect(profile == Profile(name: "Ada"))
        #expect(dependencies.api is FakeAPI)
    }

    // MARK: The store gives them to `run` and middleware

    @Test("A store with no dependencies set gives run the default, which fails loudly")
    func storeWithoutDependenciesGivesDefaults() async throws {
        let store = Store(initialState: State(), reducer: Self.reducer)

        let task = store.dispatch(FetchProfile(token: "t"))

        #expect(try await Self.error(of: task) == NotSet(dependency: "api"))
    }

    @Test("The API client set on the store reaches the action's run")
    func storesValueReachesRun() async throws {
        let api = FakeAPI(name: "Ada")
        var dependencies = Dependencies()
        dependencies.api = api
        let store = Store(
            initialState: State(), reducer: Self.reducer, options: StoreOptions(dependencies: dependencies))

        var graph = ActionGraph<State>()
        let profile = graph.run(FetchProfile(token: "token-1"))
        graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
        let run = store.dispatch(graph)
        let report = try await withDeadline(10, "the profile graph") { await run.wait() }

        #expect(report[profile].outcome == .succeeded)
        #expect(store.state.profile == Profile(name: "Ada"))
        #expect(api.tokens.values == ["token-1"])
    }

    @Test("Middleware sees the dependencies set on the store")
    func storesValueReachesMiddleware() {
        let analytics = Recorder<String>()
        var dependencies = Dependencies()
        dependencies[AnalyticsKey.self] = analytics
        let track = Middleware<State> { action, context, next in
            context.dependencies[AnalyticsKey.self].record("\(type(of: action))")
            next(action)
        }
        let store = Store(
            initialState: State(), reducer: Self.reducer, middleware: [track],
            options: StoreOptions(dependencies: dependencies))

        store.dispatch(SetStatus(status: "ready"))
        store.dispatch(ProfileLoaded(profile: Profile(name: "Ada")))

        #expect(analytics.values == ["SetStatus", "ProfileLoaded"])
        #expect(AnalyticsKey.defaultValue.values.isEmpty, "the middleware wrote to the default, not the store's")
        #expect(store.state.status == "ready")
    }

    // MARK: A test store overrides them

    @Test("A TestStore's fake reaches the action's real run")
    func testStoreOverrideReachesRealRun() async throws {
        let api = FakeAPI(name: "Ada")
        var dependencies = Dependencies()
        dependencies.api = api
        let store = TestStore(initialState: State(), reducer: Self.reducer, dependencies: dependencies)
        store.runForReal(FetchProfile.self)

        var graph = ActionGraph<State>()
        let profile = graph.run(FetchProfile(token: "token-1"))
        graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
        store.dispatch(graph)

        try await store.receive(ProfileLoaded.self) { $0.profile = Profile(name: "Ada") }
        try await store.finish()
        #expect(api.tokens.values == ["token-1"])
        #expect(store.calls(to: FetchProfile.self) == [FetchProfile(token: "token-1")])
    }

    @Test("A TestStore's stub and middleware read the same dependencies as a real run")
    func testStoreOverrideReachesStubsAndMiddleware() async throws {
        let analytics = Recorder<String>()
        var dependencies = Dependencies()
        dependencies.greeting = "bonjour"
        dependencies[AnalyticsKey.self] = analytics
        let track = Middleware<State> { action, context, next in
            context.dependencies[AnalyticsKey.self].record("\(type(of: action))")
            next(action)
        }
        let store = TestStore(
            initialState: State(), reducer: Self.reducer, middleware: [track], dependencies: dependencies)
        store.stub(FetchProfile.self) { action, context in Profile(name: context.dependencies.greeting) }

        var graph = ActionGraph<State>()
        let profile = graph.run(FetchProfile(token: "t"))
        graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
        store.dispatch(graph)

        try await store.receive(ProfileLoaded.self) { $0.profile = Profile(name: "bonjour") }
        try await store.finish()
        #expect(analytics.values == ["ProfileLoaded"])
    }

    @Test("A TestStore without dependencies gives a real run the defaults")
    func testStoreWithoutOverrideGivesDefaults() async throws {
        let store = TestStore(initialState: State(), reducer: Self.reducer)
        store.runForReal(FetchProfile.self)

        let task = store.dispatch(FetchProfile(token: "t"))

        #expect(try await Self.error(of: task) == NotSet(dependency: "api"))
        try await store.finish()
    }

    // MARK: The clock

    @Test("An async action sleeping on context.clock wakes when the VirtualClock reaches its deadline")
    func sleepOnContextClockFollowsVirtualClock() async throws {
        let clock = VirtualClock()
        let store = Store(initialState: State(), reducer: Self.reducer, options: StoreOptions(clock: clock))
        let woke = Recorder<String>()

        // An hour: if the action slept on real time, the deadline below would fail the test.
        let task = store.dispatch(WaitThenAnswer(delay: .seconds(3600), woke: woke))

        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(3599))
        #expect(woke.values.isEmpty, "woke a second early")
        #expect(clock.sleeperCount == 1)

        await clock.advance(by: .seconds(1))
        let answer = try await withDeadline(10, "WaitThenAnswer") { try await task.value }
        #expect(answer == "done after 3600.0 seconds")
        #expect(woke.values == ["woke"])
        #expect(clock.now == VirtualClock.Instant(offset: .seconds(3600)))
    }

    @Test("An action run for real in a TestStore sleeps on the test store's clock")
    func testStoreRealRunSleepsOnItsClock() async throws {
        let store = TestStore(initialState: State(), reducer: Self.reducer)
        store.runForReal(WaitThenAnswer.self)
        let woke = Recorder<String>()

        var graph = ActionGraph<State>()
        let wait = graph.run(WaitThenAnswer(delay: .seconds(30), woke: woke))
        graph.send(after: wait) { answer in SetStatus(status: answer) }
        store.dispatch(graph)

        try await store.clock.waitForSleepers(1)
        #expect(woke.values.isEmpty)
        await store.clock.advance(by: .seconds(30))

        try await store.receive(SetStatus.self) { $0.status = "done after 30.0 seconds" }
        try await store.finish()
        #expect(woke.values == ["woke"])
    }

    @Test("context.clock is the store's clock: a VirtualClock given in the options, ContinuousClock by default")
    func contextClockIsTheStoresClock() {
        let clock = VirtualClock()
        let clocks = Recorder<String>()
        let inspect = Middleware<State> { action, context, next in
            if let virtual = context.clock as? VirtualClock {
                clocks.record(virtual === clock ? "the store's VirtualClock" : "another VirtualClock")
            } else {
                clocks.record("\(type(of: context.clock))")
            }
            next(action)
        }
        let virtualStore = Store(
            initialState: State(), reducer: Self.reducer, middleware: [inspect], options: StoreOptions(clock: clock))
        let defaultStore = Store(initialState: State(), reducer: Self.reducer, middleware: [inspect])

        virtualStore.dispatch(SetStatus(status: "a"))
        defaultStore.dispatch(SetStatus(status: "b"))

        #expect(clocks.values == ["the store's VirtualClock", "ContinuousClock"])
    }
}

extension Dependencies {
    /// The profile API of ``DependenciesTests``.
    fileprivate var api: any DependenciesTests.ProfileAPI {
        get { self[DependenciesTests.APIKey.self] }
        set { self[DependenciesTests.APIKey.self] = newValue }
    }

    /// A plain value dependency of ``DependenciesTests``.
    fileprivate var greeting: String {
        get { self[DependenciesTests.GreetingKey.self] }
        set { self[DependenciesTests.GreetingKey.self] = newValue }
    }
}
