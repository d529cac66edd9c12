import OresRedux
import Testing

extension CoreStore {
    @Suite struct DispatchAndSubscribe {
        struct Screen: Equatable, Sendable {
            var count = 0
            var title = "home"
        }

        struct Rename: Action { let title: String }

        static func screenReducer() -> Reducer<Screen> {
            .combine(
                .scope(\.count, CoreStore.counterReducer()),
                .on(Rename.self) { screen, action in screen.title = action.title }
            )
        }

        @Test func dispatchAppliesTheActionBeforeItReturns() {
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())

            store.dispatch(Increment(by: 2))
            #expect(store.state == 2)

            store.dispatch(SetValue(value: 40))
            #expect(store.state == 40)
        }

        @Test func dispatchFromAnotherTaskAlsoReturnsAfterTheActionAndItsSubscribersRan() async {
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let seen = Recorder<Int>()
            let subscription = store.subscribe { seen.record($0) }

            let (stateAfter, seenAfter) = await Task.detached {
                store.dispatch(Increment(by: 5))
                return (store.state, seen.values)
            }.value

            #expect(stateAfter == 5)
            #expect(seenAfter == [0, 5])
            withExtendedLifetime(subscription) {}
        }

        @Test func subscribeCallsAtOnceWithTheCurrentStateThenAfterEveryCommit() {
            let store = Store(initialState: 10, reducer: CoreStore.counterReducer())
            let seen = Recorder<Int>()

            let subscription = store.subscribe { seen.record($0) }
            #expect(seen.values == [10])

            store.dispatch(Increment())
            store.dispatch(Increment(by: 2))
            #expect(seen.values == [10, 11, 13])

            withExtendedLifetime(subscription) {}
        }

        @Test func subscribeIsCalledAfterEveryCommitEvenWhenTheStateDidNotChange() {
            let store = Store(initialState: 1, reducer: CoreStore.counterReducer())
            let seen = Recorder<Int>()
            let subscription = store.subscribe { seen.record($0) }

            store.dispatch(SetValue(value: 1))
            store.dispatch(Unknown())

            #expect(seen.values == [1, 1, 1])
            withExtendedLifetime(subscription) {}
        }

        @Test func selectSubscriberIsCalledAtOnceThenOnlyWhenTheSelectedValueChanges() {
            let store = Store(initialState: Screen(), reducer: Self.screenReducer())
            let counts = Recorder<Int>()

            let subscription = store.subscribe({ $0.count }) { counts.record($0) }
            #expect(counts.values == [0])

            store.dispatch(Rename(title: "settings"))  // count unchanged: not called
            store.dispatch(Increment())  // 0 -> 1: called
            store.dispatch(SetValue(value: 1))  // 1 -> 1: not called
            store.dispatch(Rename(title: "home"))  // count unchanged: not called
            store.dispatch(Increment(by: 2))  // 1 -> 3: called

            #expect(counts.values == [0, 1, 3])
            #expect(store.state == Screen(count: 3, title: "home"))
            withExtendedLifetime(subscription) {}
        }

        @Test func selectSubscriberComparesWithTheLastValueItWasGivenNotTheFirst() {
            let store = Store(initialState: Screen(), reducer: Self.screenReducer())
            let counts = Recorder<Int>()
            let subscription = store.subscribe({ $0.count }) { counts.record($0) }

            store.dispatch(SetValue(value: 5))
            store.dispatch(SetValue(value: 0))  // back to the first value: a change from 5
            store.dispatch(SetValue(value: 0))

            #expect(counts.values == [0, 5, 0])
            withExtendedLifetime(subscription) {}
        }

        @Test func statesYieldsTheCurrentStateFirstThenEachChangeInOrder() async {
            let store = Store(initialState: 100, reducer: CoreStore.counterReducer())
            store.dispatch(Increment())  // before the stream: not part of it

            var states = store.states().makeAsyncIterator()
            store.dispatch(Increment())
            store.dispatch(SetValue(value: 7))
            store.dispatch(Increment(by: 3))

            #expect(await states.next() == 101)
            #expect(await states.next() == 102)
            #expect(await states.next() == 7)
            #expect(await states.next() == 10)
            withExtendedLifetime(store) {}
        }

        @Test func statesFinishesWhenTheStoreIsReleased() async throws {
            let stream: AsyncStream<Int>
            do {
                let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
                stream = store.states()
                store.dispatch(Increment())
                store.dispatch(Increment())
            }  // the last reference to the store goes here

            let received = try await withDeadline(10, "the stream to finish") {
                var received: [Int] = []
                for await state in stream { received.append(state) }  // ends only if the stream finished
                return received
            }

            #expect(received == [0, 1, 2])
        }

        @Test func everyStatesStreamOfAReleasedStoreEndsAfterTheStatesItBuffered() async throws {
            let streams: [AsyncStream<Int>]
            do {
                let store = Store(initialState: 1, reducer: CoreStore.counterReducer())
                streams = [store.states(), store.states()]
                store.dispatch(SetValue(value: 2))
            }

            for stream in streams {
                let received = try await withDeadline(10, "the stream to finish") {
                    var received: [Int] = []
                    for await state in stream { received.append(state) }
                    return received
                }
                #expect(received == [1, 2])
            }
        }
    }
}
