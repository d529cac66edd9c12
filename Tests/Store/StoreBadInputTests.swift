import OresRedux
import Testing

extension CoreStore {
    /// Semantics 8: misuse gets a clear error, never a hang or a crash of the store.
    @Suite struct BadInput {
        /// Waits for cancellation (the store's release), then tries to dispatch through its context
        /// and answers with what it found.
        struct DispatchAfterRelease: AsyncAction {
            let started: Latch
            let cancelled: Latch
            func run(_ context: ActionContext<Int>) async throws -> String {
                started.open()
                try? await CoreStore.untilCancelled()
                cancelled.open()
                context.dispatch(Increment(by: 100))
                return "released: \(context.isStoreReleased), last state: \(context.state)"
            }
        }

        /// Gives a reducer a way to reach the store it belongs to, which it must never use.
        final class StoreRef: Sendable {
            private let store = Locked<Store<Int>?>(nil)
            func set(_ store: Store<Int>) { self.store.withLock { $0 = store } }
            var current: Store<Int>? { store.current }
        }

        @Test func aDispatchThroughAContextAfterTheStoreIsGoneIsDroppedAndReported() async throws {
            let diagnostics = Recorder<StoreDiagnostic>()
            let started = Latch(), cancelled = Latch()
            let task: ActionTask<String>
            do {
                let store = Store(
                    initialState: 0, reducer: CoreStore.counterReducer(), middleware: [],
                    options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
                store.dispatch(Increment(by: 2))
                task = store.dispatch(DispatchAfterRelease(started: started, cancelled: cancelled))
                try await withDeadline(10, "the action to start") { try await started.wait() }
                #expect(diagnostics.values.isEmpty)
            }  // the last reference to the store goes here; the action is cancelled and dispatches

            try await withDeadline(10, "the action to see its cancellation") { try await cancelled.wait() }
            // The Increment was dropped
            #expect(
                try await withDeadline(10, "the action") { try await task.value } == "released: true, last state: 2")
            let diagnostic = try #require(diagnostics.values.first)
            #expect(diagnostics.values.count == 1)
            #expect(diagnostic.kind == .dispatchAfterRelease)
            #expect(diagnostic.message.contains("Increment"))
        }

        @Test func aDispatchThroughAKeptMiddlewareContextAfterTheStoreIsGoneIsDroppedAndReported() {
            let diagnostics = Recorder<StoreDiagnostic>()
            let kept = Locked<ActionContext<Int>?>(nil)
            let keepContext = Middleware<Int> { action, context, next in
                kept.withLock { $0 = context }
                next(action)
            }
            do {
                let store = Store(
                    initialState: 0, reducer: CoreStore.counterReducer(), middleware: [keepContext],
                    options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
                store.dispatch(Increment())
            }
            let context = kept.current

            context?.dispatch(SetValue(value: 50))

            #expect(context?.state == 1)
            #expect(context?.isStoreReleased == true)
            #expect(diagnostics.values.map(\.kind) == [.dispatchAfterRelease])
            #expect(diagnostics.values.first?.message.contains("SetValue") == true)
        }

        @Test func anAsyncActionDispatchedAfterTheStoreIsGoneFailsWithStoreReleased() async {
            let kept = Locked<ActionContext<Int>?>(nil)
            let keepContext = Middleware<Int> { action, context, next in
                kept.withLock { $0 = context }
                next(action)
            }
            do {
                let store = Store(initialState: 0, reducer: CoreStore.counterReducer(), middleware: [keepContext])
                store.dispatch(Increment())
            }
            struct Answer: AsyncAction {
                func run(_ context: ActionContext<Int>) async throws -> Int {
                    Issue.record("run was called although the store had been released")
                    return 42
                }
            }

            let task = kept.current?.dispatch(Answer())

            await #expect {
                _ = try await withDeadline(10, "the action") { try await task?.value }
            } throws: { error in
                guard let storeError = error as? StoreError, case .storeReleased = storeError else { return false }
                return true
            }
        }

        @Test(arguments: [false, true])
        func aReducerThatDispatchesHasTheDispatchDroppedAndReportedAndTheStoreGoesOn(withSubscriber: Bool) {
            let diagnostics = Recorder<StoreDiagnostic>()
            let ref = CoreStore.BadInput.StoreRef()
            let store = Store(
                initialState: 0,
                reducer: Reducer { count, action in
                    if let increment = action as? CoreStore.Increment { count += increment.by }
                    if let set = action as? CoreStore.SetValue { count = set.value }
                    if action is CoreStore.Increment {
                        ref.current?.dispatch(CoreStore.SetValue(value: 100))
                    }
                }, options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
            ref.set(store)
            let seen = Recorder<Int>()
            let subscription = withSubscriber ? store.subscribe { seen.record($0) } : nil

            store.dispatch(CoreStore.Increment())
            store.dispatch(CoreStore.Increment(by: 2))

            #expect(store.state == 3, "the dispatches from the reducer were dropped, the store went on")
            #expect(diagnostics.values.map(\.kind) == [.dispatchFromReducer, .dispatchFromReducer])
            #expect(diagnostics.values.first?.message.contains("SetValue was dispatched from a reducer") == true)
            if withSubscriber { #expect(seen.values == [0, 1, 3]) }
            withExtendedLifetime(subscription) {}
        }
    }
}
