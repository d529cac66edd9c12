import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/Essentials/DependenciesAndTheClock.md (not Dependencies.md: an article
// named like a symbol is dropped by DocC).

extension GuideApp {
    /// The guide's own app: the same state and sync actions, async actions that read their API from
    /// the store. Nested so that `FetchProfile` and `API` do not clash with the other guides'.
    enum WithDependencies {
        // MARK: The problem (the guide's "before" snippet, compiled)

        struct FetchProfileCarryingItsClient: AsyncAction {
            let api: any API  // the client travels with every action...
            let token: String  // ...and `Equatable` can no longer be synthesized
            func run(_ context: ActionContext<AppState>) async throws -> Profile {
                try await api.profile(token: token)
            }
        }

        // MARK: Declaring a dependency

        protocol API: Sendable {
            func profile(token: String) async throws -> Profile
            func isPublished(postID: Int) async throws -> Bool
        }

        struct Unimplemented: Error, CustomStringConvertible {
            let call: String
            var description: String { "\(call) was called, but no API was set in the store's dependencies" }
        }

        /// Fails every call: a store that forgot to set its API says so in its first test.
        struct UnimplementedAPI: API {
            func profile(token: String) async throws -> Profile { throw Unimplemented(call: "profile") }
            func isPublished(postID: Int) async throws -> Bool { throw Unimplemented(call: "isPublished") }
        }

        enum APIKey: DependencyKey {
            static let defaultValue: any API = UnimplementedAPI()
        }

        // MARK: Reading it in `run`

        struct FetchProfile: AsyncAction, Equatable {
            let token: String
            func run(_ context: ActionContext<AppState>) async throws -> Profile {
                try await context.dependencies.api.profile(token: token)
            }
        }

        // MARK: The clock

        struct WaitUntilPublished: AsyncAction, Equatable {
            let postID: Int
            func run(_ context: ActionContext<AppState>) async throws {
                while try await !context.dependencies.api.isPublished(postID: postID) {
                    try await context.clock.sleep(for: .seconds(2))
                }
            }
        }

        // MARK: Stand-ins (not in the guide): no network in tests

        /// The app's live client, as far as a test can go: the guide shows how it is registered.
        struct LiveAPI: API {
            let baseURL: URL
            func profile(token: String) async throws -> Profile { Profile(name: "Ada from \(baseURL.host ?? "?")") }
            func isPublished(postID: Int) async throws -> Bool { true }
        }

        /// The test's fake: a fixed profile, and a post published at its `publishedAtCheck`-th check.
        struct FakeAPI: API {
            var profile = Profile(name: "Ada")
            var publishedAtCheck = 1
            let checks = CheckCount()

            func profile(token: String) async throws -> Profile { profile }
            func isPublished(postID: Int) async throws -> Bool { checks.next() >= publishedAtCheck }
        }

        /// How many times `isPublished` was called.
        final class CheckCount: @unchecked Sendable {
            // @unchecked: `count` is read and written only under `lock` (NSLock, which ThreadSanitizer sees).
            private let lock = NSLock()
            private var count = 0

            var value: Int { lock.withLock { count } }

            /// Counts one more check and returns the new count.
            func next() -> Int {
                lock.withLock {
                    count += 1
                    return count
                }
            }
        }
    }
}

extension Dependencies {
    /// The guide's API client.
    fileprivate var api: any GuideApp.WithDependencies.API {
        get { self[GuideApp.WithDependencies.APIKey.self] }
        set { self[GuideApp.WithDependencies.APIKey.self] = newValue }
    }
}

extension GuideApp.WithDependencies {
    typealias AppState = GuideApp.AppState
    typealias Profile = GuideApp.Profile
    typealias ProfileLoaded = GuideApp.ProfileLoaded

    @Suite("Guide: Dependencies")
    struct DependenciesGuide {
        @Test("Dependencies guide: an action carrying its client works, but every caller must have one")
        func theProblem() async throws {
            let store = Store(initialState: AppState(), reducer: GuideApp.appReducer)
            let api = FakeAPI()
            let profile = try await withDeadline(10, "FetchProfileCarryingItsClient") {
                try await store.dispatch(FetchProfileCarryingItsClient(api: api, token: "t1")).value
            }
            #expect(profile == Profile(name: "Ada"))
        }

        @Test("Dependencies guide: a key never set reads its default, which fails loudly")
        func defaultFailsLoudly() async throws {
            let store = Store(initialState: AppState(), reducer: GuideApp.appReducer)
            let task = store.dispatch(FetchProfile(token: "t1"))
            let message = try await withDeadline(10, "FetchProfile") { () async -> String in
                do {
                    _ = try await task.value
                    return "no error"
                } catch {
                    return "\(error)"
                }
            }
            #expect(message == "profile was called, but no API was set in the store's dependencies")
        }

        @Test("Dependencies guide: the app registers its live client in the store's options")
        func appRegistersLiveClient() async throws {
            var dependencies = Dependencies()
            dependencies.api = LiveAPI(baseURL: URL(string: "https://api.example.com")!)
            let store = Store(
                initialState: AppState(), reducer: GuideApp.appReducer,
                options: StoreOptions(dependencies: dependencies))

            var graph = ActionGraph<AppState>()
            let profile = graph.run(FetchProfile(token: "t1"))
            graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
            let run = store.dispatch(graph)
            _ = try await withDeadline(10, "the profile graph") { await run.wait() }

            #expect(store.state.profile == Profile(name: "Ada from api.example.com"))
        }

        @Test("Dependencies guide: middleware reads the same dependencies")
        func middlewareReadsThem() {
            let seen = GuideApp.Lines()
            var dependencies = Dependencies()
            dependencies.api = FakeAPI()
            let audit = Middleware<AppState> { action, context, next in
                seen.append("\(type(of: action)) with \(type(of: context.dependencies.api))")
                next(action)
            }
            let store = Store(
                initialState: AppState(), reducer: GuideApp.appReducer, middleware: [audit],
                options: StoreOptions(dependencies: dependencies))

            store.dispatch(GuideApp.StartLoading())

            #expect(seen.all == ["StartLoading with FakeAPI"])
        }

        @Test("Dependencies guide: a test registers its fake, and the action's own run calls it")
        func profileLoadsWithTheFake() async throws {
            var dependencies = Dependencies()
            dependencies.api = FakeAPI(profile: Profile(name: "Ada"))
            let store = TestStore(initialState: AppState(), reducer: GuideApp.appReducer, dependencies: dependencies)
            store.runForReal(FetchProfile.self)  // its own run, against the fake

            var graph = ActionGraph<AppState>()
            let profile = graph.run(FetchProfile(token: "t1"))
            graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
            store.dispatch(graph)

            try await store.receive(ProfileLoaded.self) { $0.profile = Profile(name: "Ada") }
            try await store.finish()
        }

        @Test("Dependencies guide: a poll on context.clock moves with the test store's VirtualClock")
        func pollOnTheStoresClock() async throws {
            let api = FakeAPI(publishedAtCheck: 2)
            var dependencies = Dependencies()
            dependencies.api = api
            let store = TestStore(initialState: AppState(), reducer: GuideApp.appReducer, dependencies: dependencies)
            store.runForReal(WaitUntilPublished.self)

            let published = store.dispatch(WaitUntilPublished(postID: 7))
            try await store.clock.waitForSleepers(1)  // the first check said no: it sleeps 2 s
            #expect(api.checks.value == 1)
            await store.clock.advance(by: .seconds(2))  // the second check says yes
            try await store.finish()

            try await withDeadline(10, "WaitUntilPublished") { try await published.value }
            #expect(api.checks.value == 2)
            #expect(store.clock.now == VirtualClock.Instant(offset: .seconds(2)))
        }

        /// Diagnostics collected from any thread (the guide's "a locked array").
        final class Diagnostics: @unchecked Sendable {
            // @unchecked: `diagnostics` is read and written only under `lock`.
            private let lock = NSLock()
            private var diagnostics: [StoreDiagnostic] = []
            func append(_ diagnostic: StoreDiagnostic) { lock.withLock { diagnostics.append(diagnostic) } }
            var all: [StoreDiagnostic] { lock.withLock { diagnostics } }
        }

        @Test("Dependencies guide: a plain Store with its clock, its fake and its diagnostics collected")
        func aPlainStoreWithItsClockFakeAndDiagnostics() async throws {
            let clock = VirtualClock()
            var dependencies = Dependencies()
            dependencies.api = FakeAPI(publishedAtCheck: 2)
            let diagnostics = Diagnostics()  // a locked array
            let store = Store(
                initialState: AppState(), reducer: GuideApp.appReducer,
                options: StoreOptions(
                    clock: clock, dependencies: dependencies,
                    onDiagnostic: { diagnostics.append($0) }))

            let published = store.dispatch(WaitUntilPublished(postID: 7))
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(2))
            try await withDeadline(10, "WaitUntilPublished") { try await published.value }

            var graph = ActionGraph<AppState>()
            let profile = graph.run(FetchProfile(token: "t1"))
            graph.send(after: profile) { profile in
                store.dispatch(GuideApp.StartLoading())  // a mistake: `make` must be pure
                return ProfileLoaded(profile: profile)
            }
            let run = store.dispatch(graph)
            _ = try await withDeadline(10, "the profile graph") { await run.wait() }

            #expect(diagnostics.all.map(\.kind) == [.dispatchFromReducer])
            #expect(store.state.profile == Profile(name: "Ada"))  // the store went on
            #expect(store.state.isLoading == false)
            #expect(
                diagnostics.all.first?.message.hasPrefix(
                    "StartLoading was dispatched from a graph node's make closure; it was dropped.") == true)
        }

        @Test("Dependencies guide: a plain Store on a VirtualClock gives it to run as context.clock")
        func plainStoreOnAVirtualClock() async throws {
            let clock = VirtualClock()
            var dependencies = Dependencies()
            dependencies.api = FakeAPI(publishedAtCheck: 3)
            let store = Store(
                initialState: AppState(), reducer: GuideApp.appReducer,
                options: StoreOptions(clock: clock, dependencies: dependencies))

            let published = store.dispatch(WaitUntilPublished(postID: 7))
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(4))  // two sleeps of 2 s, one after the other

            try await withDeadline(10, "WaitUntilPublished") { try await published.value }
            #expect(clock.now == VirtualClock.Instant(offset: .seconds(4)))
        }
    }
}
