import OresRedux
import Testing

extension CoreStore {
    @Suite struct Subscriptions {
        /// Lets an observer reach its own subscription, which exists only after `subscribe` returns.
        final class Handle: Sendable {
            private let subscription = Locked<Subscription?>(nil)
            func hold(_ subscription: Subscription) { self.subscription.withLock { $0 = subscription } }
            func cancel() { subscription.current?.cancel() }
        }

        static func counterStore() -> Store<Int> {
            Store(initialState: 0, reducer: CoreStore.counterReducer())
        }

        @Test func cancelStopsTheCalls() {
            let store = Self.counterStore()
            let seen = Recorder<Int>()
            let subscription = store.subscribe { seen.record($0) }
            store.dispatch(Increment())

            subscription.cancel()
            store.dispatch(Increment())
            store.dispatch(Increment())

            #expect(seen.values == [0, 1])
            #expect(subscription.isCancelled)
        }

        @Test func cancellingTwiceIsHarmless() {
            let store = Self.counterStore()
            let seen = Recorder<Int>()
            let other = Recorder<Int>()
            let subscription = store.subscribe { seen.record($0) }
            let otherSubscription = store.subscribe { other.record($0) }

            subscription.cancel()
            subscription.cancel()
            store.dispatch(Increment())

            #expect(seen.values == [0])
            #expect(other.values == [0, 1])  // the second cancel removed no one else
            withExtendedLifetime(otherSubscription) {}
        }

        @Test func anObserverMayCancelItsOwnSubscriptionAndIsNotCalledAgain() {
            let store = Self.counterStore()
            let seen = Recorder<Int>()
            let later = Recorder<Int>()
            let handle = Handle()
            handle.hold(
                store.subscribe { state in
                    seen.record(state)
                    if state == 2 { handle.cancel() }
                })
            let laterSubscription = store.subscribe { later.record($0) }

            store.dispatch(Increment())
            store.dispatch(Increment())  // the observer cancels itself while seeing 2
            store.dispatch(Increment())
            store.dispatch(Increment())

            #expect(seen.values == [0, 1, 2])
            #expect(later.values == [0, 1, 2, 3, 4])  // and took its place without missing a call
            withExtendedLifetime(laterSubscription) {}
        }

        @Test func anObserverCancelledByAnEarlierOneDuringACommitIsNotCalledForIt() {
            let store = Self.counterStore()
            let second = Recorder<Int>()
            let secondHandle = Handle()
            let first = store.subscribe { state in
                if state == 1 { secondHandle.cancel() }
            }
            secondHandle.hold(store.subscribe { second.record($0) })

            store.dispatch(Increment())

            #expect(second.values == [0])
            withExtendedLifetime(first) {}
        }

        @Test func releasingTheSubscriptionEndsIt() {
            let store = Self.counterStore()
            let seen = Recorder<Int>()
            var subscription: Subscription? = store.subscribe { seen.record($0) }
            store.dispatch(Increment())
            #expect(subscription?.isCancelled == false)

            subscription = nil
            store.dispatch(Increment())

            #expect(seen.values == [0, 1])
        }

        @Test func aSubscriptionThatIsNotKeptEndsAtOnce() {
            let store = Self.counterStore()
            let seen = Recorder<Int>()

            _ = store.subscribe { seen.record($0) }
            store.dispatch(Increment())

            #expect(seen.values == [0])
        }

        @Test func cancellingSomeOfSeveralSubscribersLeavesEveryOtherOneWorking() {
            // Unsubscribing moves the last subscriber into the freed slot; every later cancel must
            // still remove the right one, and no survivor may miss a call.
            let store = Self.counterStore()
            let a = Recorder<Int>(), b = Recorder<Int>(), c = Recorder<Int>()
            let d = Recorder<Int>(), e = Recorder<Int>()
            let subA = store.subscribe { a.record($0) }
            let subB = store.subscribe { b.record($0) }
            let subC = store.subscribe { c.record($0) }
            let subD = store.subscribe { d.record($0) }
            store.dispatch(Increment())  // 1: a b c d

            subB.cancel()  // d moves into b's place
            store.dispatch(Increment())  // 2: a c d

            subD.cancel()  // the moved one goes
            store.dispatch(Increment())  // 3: a c

            let subE = store.subscribe { e.record($0) }  // 3 at once
            subA.cancel()  // e moves into a's place
            store.dispatch(Increment())  // 4: c e

            subE.cancel()
            store.dispatch(Increment())  // 5: c

            #expect(a.values == [0, 1, 2, 3])
            #expect(b.values == [0, 1])
            #expect(c.values == [0, 1, 2, 3, 4, 5])
            #expect(d.values == [0, 1, 2])
            #expect(e.values == [3, 4])
            withExtendedLifetime(subC) {}
        }

        @Test func cancellingASubscriptionAfterItsStoreWasReleasedIsHarmless() {
            let seen = Recorder<Int>()
            let subscription: Subscription
            do {
                let store = Self.counterStore()
                subscription = store.subscribe { seen.record($0) }
                store.dispatch(Increment())
            }

            subscription.cancel()

            #expect(seen.values == [0, 1])
        }
    }
}
