import OresRedux
import Testing

extension CoreStore {
    @Suite struct AsyncActions {
        /// Answers with a value computed from its input; touches no state.
        struct Square: AsyncAction {
            let number: Int
            func run(_ context: ActionContext<Int>) async throws -> Int { number * number }
        }

        /// Reads the state, dispatches a sync action built from it, and answers with the state after.
        struct DoubleTheCount: AsyncAction {
            func run(_ context: ActionContext<Int>) async throws -> String {
                let before = context.state
                context.dispatch(SetValue(value: before * 2))
                return "\(before) -> \(context.state)"
            }
        }

        struct Failure: Error, Equatable { let reason: String }

        /// Throws.
        struct Refuse: AsyncAction {
            func run(_ context: ActionContext<Int>) async throws -> Int { throw Failure(reason: "no") }
        }

        /// Says it started, then waits until it is cancelled, says so, and throws `CancellationError`.
        struct WaitForCancellation: AsyncAction {
            let started: Latch
            let cancelled: Latch
            func run(_ context: ActionContext<Int>) async throws -> Int {
                started.open()
                do {
                    try await CoreStore.untilCancelled()
                } catch {
                    cancelled.open()
                    throw error
                }
                return -1
            }
        }

        static func counterStore(_ initial: Int = 0) -> Store<Int> {
            Store(initialState: initial, reducer: CoreStore.counterReducer())
        }

        @Test func awaitingTheTaskValueReturnsTheActionsResponse() async throws {
            let store = Self.counterStore()

            let task = store.dispatch(Square(number: 7))

            #expect(try await withDeadline(10, "the action") { try await task.value } == 49)
            #expect(store.state == 0)  // an async action never reaches the reducer itself
        }

        @Test func anAsyncActionReadsTheStateAndDispatchesSyncActionsThroughItsContext() async throws {
            let store = Self.counterStore(21)
            let seen = Recorder<Int>()
            let subscription = store.subscribe { seen.record($0) }

            let report = try await withDeadline(10, "DoubleTheCount") {
                try await store.dispatch(DoubleTheCount()).value
            }

            #expect(report == "21 -> 42")  // its dispatch was applied before `dispatch` returned
            #expect(store.state == 42)
            #expect(seen.values == [21, 42])
            withExtendedLifetime(subscription) {}
        }

        @Test func anErrorThrownByTheActionIsWhatTheValueThrows() async throws {
            let store = Self.counterStore()

            let task = store.dispatch(Refuse())

            await #expect(throws: Failure(reason: "no")) {
                try await withDeadline(10, "the action") { try await task.value }
            }
            withExtendedLifetime(store) {}
        }

        @Test func cancellingTheTaskCancelsTheActionCooperatively() async throws {
            let store = Self.counterStore()
            let started = Latch(), cancelled = Latch()
            let task = store.dispatch(WaitForCancellation(started: started, cancelled: cancelled))
            try await withDeadline(10, "the action to start") { try await started.wait() }

            task.cancel()

            // `run` itself saw the cancellation
            try await withDeadline(10, "the action to see its cancellation") { try await cancelled.wait() }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the action") { try await task.value }
            }
            withExtendedLifetime(store) {}
        }

        @Test func awaitingTheValueFromACancelledTaskDoesNotCancelTheAction() async throws {
            let store = Self.counterStore()
            let release = Latch()
            struct WaitForRelease: AsyncAction {
                let release: Latch
                func run(_ context: ActionContext<Int>) async throws -> String {
                    try await release.wait()
                    return "done"
                }
            }
            let task = store.dispatch(WaitForRelease(release: release))

            let impatient = Task { try await task.value }
            impatient.cancel()
            release.open()

            #expect(try await withDeadline(10, "the impatient task") { try await impatient.value } == "done")
            #expect(try await withDeadline(10, "the action") { try await task.value } == "done")
            withExtendedLifetime(store) {}
        }

        @Test func releasingTheStoreEndsAnActionTaskStillRunning() async throws {
            let started = Latch(), cancelled = Latch()
            let task: ActionTask<Int>
            do {
                let store = Self.counterStore()
                task = store.dispatch(WaitForCancellation(started: started, cancelled: cancelled))
                try await withDeadline(10, "the action to start") { try await started.wait() }
            }  // the last reference to the store goes here

            // The release cancelled `run`
            try await withDeadline(10, "the action to see its cancellation") { try await cancelled.wait() }
            await #expect(throws: CancellationError.self) {
                try await withDeadline(10, "the action") { try await task.value }
            }
        }

        @Test func manyAsyncActionsDispatchingAtOnceLoseNoAction() async throws {
            struct AddOne: AsyncAction {
                func run(_ context: ActionContext<Int>) async throws {
                    context.dispatch(Increment())
                }
            }
            let store = Self.counterStore()

            let tasks = (0..<1_000).map { _ in store.dispatch(AddOne()) }
            try await withDeadline(10, "1,000 AddOne actions") { for task in tasks { try await task.value } }

            #expect(store.state == 1_000)
        }
    }
}
