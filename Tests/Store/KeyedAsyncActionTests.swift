import OresRedux
import Testing

extension CoreStore {
    /// A `KeyedAsyncAction` shares one call among every dispatch with the same key while it is in flight.
    @Suite struct KeyedAsyncActions {
        /// What the calls of `Fetch` did, shared by every dispatch of a test.
        final class Server: Sendable {
            let started = Latch()
            let release = Latch()
            let cancelled = Latch()
            private let calls = Locked<[String]>([])

            var callCount: Int { calls.current.count }
            var answered: [String] { calls.current }

            func call(_ answer: String) async throws -> String {
                calls.withLock { $0.append(answer) }
                started.open()
                do {
                    try await release.wait()
                } catch {
                    cancelled.open()
                    throw error
                }
                return answer
            }
        }

        /// One request per `id` at a time; answers with `answer` once the server is released.
        struct Fetch: KeyedAsyncAction {
            let id: Int
            let answer: String
            let server: Server
            var key: Int { id }
            func run(_ context: ActionContext<Int>) async throws -> String {
                try await server.call(answer)
            }
        }

        /// Same key type and value as `Fetch`, but another action type.
        struct OtherFetch: KeyedAsyncAction {
            let id: Int
            let server: Server
            var key: Int { id }
            func run(_ context: ActionContext<Int>) async throws -> String {
                try await server.call("other")
            }
        }

        /// Not keyed itself, but its subclass is: a node or a dispatch typed as this class shares
        /// the calls of its keyed values.
        // Why this is safe to share: every stored property is a `let` of a `Sendable` type.
        class PlainFetch: AsyncAction, @unchecked Sendable {
            let id: Int
            let answer: String
            let server: Server

            init(id: Int, answer: String, server: Server) {
                self.id = id
                self.answer = answer
                self.server = server
            }

            func run(_ context: ActionContext<Int>) async throws -> String {
                try await server.call(answer)
            }
        }

        // Why this is safe to share: it adds no stored property to `PlainFetch`.
        final class KeyedFetch: PlainFetch, KeyedAsyncAction, @unchecked Sendable {
            var key: Int { id }
        }

        /// Like `Fetch`, and stores `value` through its context once the server answered, even when
        /// its call was cancelled (it ignores the cancellation); `done` opens after that dispatch.
        struct FetchAndStore: KeyedAsyncAction {
            let id: Int
            let value: Int
            let server: Server
            let done: Latch
            var key: Int { id }
            func run(_ context: ActionContext<Int>) async throws -> String {
                let answer = try? await server.call("\(value)")
                context.dispatch(SetValue(value: value))
                done.open()
                return answer ?? "cancelled"
            }
        }

        static func store() -> Store<Int> {
            Store(initialState: 0, reducer: CoreStore.counterReducer())
        }

        @Test func aSecondDispatchWithTheSameKeyJoinsTheCallInFlight() async throws {
            let store = Self.store()
            let server = Server()
            let first = store.dispatch(Fetch(id: 1, answer: "first", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }

            let second = store.dispatch(Fetch(id: 1, answer: "second", server: server))
            server.release.open()

            #expect(try await withDeadline(10, "the first dispatch") { try await first.value } == "first")
            // The joined call's answer, not its own
            #expect(try await withDeadline(10, "the second dispatch") { try await second.value } == "first")
            #expect(server.callCount == 1)
            withExtendedLifetime(store) {}
        }

        @Test func aKeyedSubclassValueSharesItsCallWhenTypedAsItsPlainBaseClass() async throws {
            let store = Self.store()
            let server = Server()
            var graph = ActionGraph<Int>()
            let node = graph.run(KeyedFetch(id: 1, answer: "node", server: server) as PlainFetch)
            let run = store.dispatch(graph)
            try await withDeadline(10, "the call to start") { try await server.started.wait() }

            let joined = store.dispatch(KeyedFetch(id: 1, answer: "dispatch", server: server) as PlainFetch)
            server.release.open()

            #expect(try await withDeadline(10, "the value of node") { try await run.value(of: node) } == "node")
            // It joined the node's call
            #expect(try await withDeadline(10, "the joined dispatch") { try await joined.value } == "node")
            #expect(server.callCount == 1)
            withExtendedLifetime(store) {}
        }

        @Test func dispatchesWithDifferentKeysRunSeparately() async throws {
            let store = Self.store()
            let server = Server()

            let one = store.dispatch(Fetch(id: 1, answer: "one", server: server))
            let two = store.dispatch(Fetch(id: 2, answer: "two", server: server))
            server.release.open()

            #expect(try await withDeadline(10, "dispatch one") { try await one.value } == "one")
            #expect(try await withDeadline(10, "dispatch two") { try await two.value } == "two")
            #expect(server.answered.sorted() == ["one", "two"])
            withExtendedLifetime(store) {}
        }

        @Test func equalKeysOfDifferentActionTypesDoNotShareACall() async throws {
            let store = Self.store()
            let server = Server()

            let fetch = store.dispatch(Fetch(id: 1, answer: "fetch", server: server))
            let other = store.dispatch(OtherFetch(id: 1, server: server))
            server.release.open()

            #expect(try await withDeadline(10, "the Fetch dispatch") { try await fetch.value } == "fetch")
            #expect(try await withDeadline(10, "the other dispatch") { try await other.value } == "other")
            #expect(server.callCount == 2)
            withExtendedLifetime(store) {}
        }

        @Test func onceTheCallHasFinishedTheSameKeyRunsAgain() async throws {
            let store = Self.store()
            let server = Server()
            server.release.open()

            #expect(
                try await withDeadline(10, "the first Fetch") {
                    try await store.dispatch(Fetch(id: 1, answer: "first", server: server)).value
                } == "first")
            #expect(
                try await withDeadline(10, "the second Fetch") {
                    try await store.dispatch(Fetch(id: 1, answer: "second", server: server)).value
                } == "second")

            #expect(server.answered == ["first", "second"])
            withExtendedLifetime(store) {}
        }

        @Test func cancellingOneOfTwoJoinedTasksLeavesTheOtherItsValue() async throws {
            let store = Self.store()
            let server = Server()
            let staying = store.dispatch(Fetch(id: 1, answer: "shared", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            let leaving = store.dispatch(Fetch(id: 1, answer: "unused", server: server))

            leaving.cancel()
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the leaving dispatch") { try await leaving.value }
            }
            #expect(!server.cancelled.isOpen)  // the call goes on for the one still waiting

            server.release.open()
            #expect(try await withDeadline(10, "the staying dispatch") { try await staying.value } == "shared")
            #expect(server.callCount == 1)
            withExtendedLifetime(store) {}
        }

        @Test func aWithdrawnTicketThrowsEvenWhenReadAfterTheCallEnded() async throws {
            let store = Self.store()
            let server = Server()
            let staying = store.dispatch(Fetch(id: 1, answer: "shared", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            let leaving = store.dispatch(Fetch(id: 1, answer: "unused", server: server))
            leaving.cancel()

            server.release.open()
            #expect(try await withDeadline(10, "the staying dispatch") { try await staying.value } == "shared")
            // Read only now, after the call has ended: it withdrew, so it still throws.
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the leaving dispatch") { try await leaving.value }
            }
            withExtendedLifetime(store) {}
        }

        @Test func cancellingTheFirstOfTwoJoinedTasksAlsoLeavesTheOtherItsValue() async throws {
            let store = Self.store()
            let server = Server()
            let leaving = store.dispatch(Fetch(id: 1, answer: "shared", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            let staying = store.dispatch(Fetch(id: 1, answer: "unused", server: server))

            leaving.cancel()
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the leaving dispatch") { try await leaving.value }
            }

            server.release.open()
            #expect(try await withDeadline(10, "the staying dispatch") { try await staying.value } == "shared")
            #expect(!server.cancelled.isOpen)
            withExtendedLifetime(store) {}
        }

        /// The dispatch that starts a shared call, and how it leaves while another still waits.
        enum FirstJoiner: String, CaseIterable, Sendable {
            case screenThatCloses, graphRunThatIsCancelled
        }

        @Test(arguments: FirstJoiner.allCases)
        func whatTheCallDispatchesIsAppliedWhileAScreenThatJoinedItStays(first: FirstJoiner) async throws {
            let store = Self.store()
            let server = Server()
            let done = Latch()
            let fetch = FetchAndStore(id: 1, value: 7, server: server, done: done)
            let leave: @Sendable () -> Void
            switch first {
            case .screenThatCloses:
                let list = store.makeOwner("list screen")
                list.dispatch(fetch)
                leave = { list.end() }
            case .graphRunThatIsCancelled:
                var graph = ActionGraph<Int>()
                graph.run(fetch)
                let run = store.dispatch(graph)
                leave = { run.cancel() }
            }
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            let detail = store.makeOwner("detail screen")
            let staying = detail.dispatch(FetchAndStore(id: 1, value: 8, server: server, done: done))

            leave()  // the dispatch that started the call goes away
            server.release.open()

            #expect(try await withDeadline(10, "the staying dispatch") { try await staying.value } == "7")
            #expect(store.state == 7, "the call still served a screen: what it dispatched reaches the state")
        }

        @Test func whatTheCallDispatchesIsDroppedOnceEveryScreenThatJoinedItClosed() async throws {
            let store = Self.store()
            let server = Server()
            let done = Latch()
            let (list, detail) = (store.makeOwner("list screen"), store.makeOwner("detail screen"))
            list.dispatch(FetchAndStore(id: 1, value: 7, server: server, done: done))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            detail.dispatch(FetchAndStore(id: 1, value: 8, server: server, done: done))

            list.end()
            detail.end()

            try await withDeadline(10, "the call to dispatch after its cancellation") { try await done.wait() }
            #expect(store.state == 0, "no screen that joined the call is left to apply what it dispatches")
        }

        @Test func cancellingEveryJoinedTaskCancelsTheCallItself() async throws {
            let store = Self.store()
            let server = Server()
            let first = store.dispatch(Fetch(id: 1, answer: "first", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            let second = store.dispatch(Fetch(id: 1, answer: "second", server: server))

            first.cancel()
            second.cancel()

            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the first dispatch") { try await first.value }
            }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the second dispatch") { try await second.value }
            }
            // Returns only once `run` saw the cancellation
            try await withDeadline(10, "the call to see its cancellation") { try await server.cancelled.wait() }
            #expect(server.callCount == 1)
            withExtendedLifetime(store) {}
        }

        @Test func aDispatchAfterTheSharedCallWasCancelledStartsAFreshOne() async throws {
            let store = Self.store()
            let server = Server()
            let abandoned = store.dispatch(Fetch(id: 1, answer: "abandoned", server: server))
            try await withDeadline(10, "the call to start") { try await server.started.wait() }
            abandoned.cancel()
            try await withDeadline(10, "the call to see its cancellation") { try await server.cancelled.wait() }

            let fresh = Server()
            fresh.release.open()
            let retried = store.dispatch(Fetch(id: 1, answer: "fresh", server: fresh))

            #expect(try await withDeadline(10, "the retried dispatch") { try await retried.value } == "fresh")
            #expect(fresh.callCount == 1)
            withExtendedLifetime(store) {}
        }

        @Test func releasingTheStoreCancelsASharedCallInFlight() async throws {
            let server = Server()
            let first: ActionTask<String>, second: ActionTask<String>
            do {
                let store = Self.store()
                first = store.dispatch(Fetch(id: 1, answer: "first", server: server))
                try await withDeadline(10, "the call to start") { try await server.started.wait() }
                second = store.dispatch(Fetch(id: 1, answer: "second", server: server))
            }  // the last reference to the store goes here

            // The release cancelled the one `run`
            try await withDeadline(10, "the call to see its cancellation") { try await server.cancelled.wait() }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the first dispatch") { try await first.value }
            }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the second dispatch") { try await second.value }
            }
        }
    }
}
