import OresRedux
import Testing

extension CoreStore {
    /// Semantics 9 under load: any thread may dispatch; actions are applied one at a time, none is
    /// lost, and each subscriber sees states in commit order, never two calls at once.
    ///
    /// The loops run on plain threads (``onThreads(_:_:)``), not in tasks: thousands of dispatches
    /// are long under ThreadSanitizer, and tasks would hold the cooperative pool's few threads that
    /// long, starving every test that runs beside these.
    @Suite struct Threads {
        /// Watches one subscriber: its calls must never overlap and its values must strictly increase.
        final class OrderWatch: Sendable {
            let overlap = OverlapDetector()
            private let last = LockedValue(Int.min)
            private let disorders = LockedValue(0)

            func see(_ value: Int) {
                overlap.during {
                    let previous = last.withLock { last in
                        defer { last = value }
                        return last
                    }
                    if previous >= value {
                        disorders.withLock { $0 += 1 }
                    }
                }
            }

            var disorderCount: Int { disorders.withLock { $0 } }
        }

        /// Sums what many watches found.
        final class Tally: Sendable {
            let overlaps = LockedValue(0)
            let disorders = LockedValue(0)
            let subscriptions = LockedValue(0)

            func add(_ watch: OrderWatch) {
                let (overlapCount, disorderCount) = (watch.overlap.overlapCount, watch.disorderCount)
                overlaps.withLock { $0 += overlapCount }
                disorders.withLock { $0 += disorderCount }
                subscriptions.withLock { $0 += 1 }
            }
        }

        @Test func eightThreadsDispatchingConcurrentlyLoseNoActionAndALateSubscriberSeesEveryCommitInOrder()
            async throws
        {
            let threads = 8
            let perThread = 10_000
            let total = threads * perThread
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let seen = Recorder<Int>()
            let overlap = OverlapDetector()
            let lateSubscription = Locked<Subscription?>(nil)

            await onThreads(threads) { thread in
                for n in 0..<perThread {
                    store.dispatch(Increment())
                    if thread == 0, n == perThread / 10 {
                        // Attach while this thread (and likely others) still has thousands to go.
                        let subscription = store.subscribe { state in
                            overlap.during { seen.record(state) }
                        }
                        lateSubscription.withLock { $0 = subscription }
                    }
                }
            }

            #expect(store.state == total)
            let values = seen.values
            let first = try #require(values.first)
            #expect(first <= total - (perThread - perThread / 10 - 1), "attached while thread 0 still had work left")
            #expect(values.last == total)
            let breaks = CoreStore.breaks(in: values)
            let everyCommitInOrder = breaks.isEmpty
            #expect(everyCommitInOrder, "not a run of consecutive commits; first breaks: \(breaks.prefix(5))")
            #expect(overlap.overlapCount == 0, "the subscriber ran concurrently with itself")
            withExtendedLifetime(lateSubscription) {}
        }

        @Test func subscribingAndCancellingWhileOtherThreadsDispatchBreaksNoSubscriber() async {
            let dispatchers = 4
            let perDispatcher = 5_000
            let total = dispatchers * perDispatcher
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let witnessed = Recorder<Int>()
            let witness = store.subscribe { witnessed.record($0) }
            let tally = Tally()

            await onThreads(dispatchers + 4) { thread in
                guard thread >= dispatchers else {
                    for _ in 0..<perDispatcher { store.dispatch(Increment()) }
                    return
                }
                let churner = thread - dispatchers
                // Keep a few alive and end them out of order, so the O(1) removal keeps
                // moving subscribers around while commits run on other threads.
                var alive: [(Subscription, OrderWatch)] = []
                for round in 0..<400 {
                    let watch = OrderWatch()
                    alive.append((store.subscribe { watch.see($0) }, watch))
                    if alive.count > 3 {
                        let (subscription, ended) = alive.remove(at: (round + churner) % alive.count)
                        if round % 2 == 0 {
                            subscription.cancel()
                        }  // else: released at the end of this scope
                        tally.add(ended)
                    }
                }
                for (subscription, watch) in alive {
                    subscription.cancel()
                    tally.add(watch)
                }
            }

            #expect(store.state == total)
            #expect(tally.subscriptions.withLock { $0 } == 4 * 400)
            #expect(tally.overlaps.withLock { $0 } == 0)
            #expect(tally.disorders.withLock { $0 } == 0)
            let values = witnessed.values
            #expect(values.first == 0)
            #expect(values.last == total)
            let breaks = CoreStore.breaks(in: values)
            let everyCommitInOrder = breaks.isEmpty
            #expect(everyCommitInOrder, "the subscriber that stayed missed or reordered commits: \(breaks.prefix(5))")
            withExtendedLifetime(witness) {}
        }

        @Test func readingTheStateFromOtherThreadsDuringDispatchesSeesOnlyCommittedValues() async {
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let disorders = LockedValue(0)

            await onThreads(2) { thread in
                guard thread == 1 else {
                    for _ in 0..<20_000 { store.dispatch(Increment()) }
                    return
                }
                var last = 0
                var outOfOrder = 0
                for _ in 0..<20_000 {
                    let now = store.state
                    if now < last || now > 20_000 { outOfOrder += 1 }
                    last = now
                }
                disorders.withLock { $0 += outOfOrder }
            }

            #expect(disorders.withLock { $0 } == 0)
            #expect(store.state == 20_000)
        }
    }
}
