import Foundation
import Observation
import Testing

@testable import OresRedux

@Suite("Observation bridge and main-actor delivery")
struct ObservationTests {
    struct Screen: Sendable, Equatable {
        var title = "Home"
        var unread = 0
        var log: [Int] = []
    }
    struct Rename: Action { var title: String }
    struct Receive: Action { var count = 1 }
    struct Append: Action { var value: Int }

    static let reducer = Reducer<Screen>.combine(
        .on(Rename.self) { state, action in state.title = action.title },
        .on(Receive.self) { state, action in state.unread += action.count },
        .on(Append.self) { state, action in state.log.append(action.value) }
    )

    final class Fired: Sendable {
        let count = LockedValue(0)
        func fire() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test("A view that read only the title is not invalidated by a new unread count, but is by a new title")
    @MainActor
    func perPropertyTracking() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let model = ObservedStore(store)
        let fired = Fired()

        withObservationTracking {
            _ = model.title
        } onChange: {
            fired.fire()
        }
        model.dispatch(Receive(count: 3))
        await model.waitUntil { $0.unread == 3 }
        #expect(fired.value == 0, "a change to an unread member must not invalidate the reader")
        #expect(model.unread == 3)

        model.dispatch(Rename(title: "Inbox"))
        await model.waitUntil { $0.title == "Inbox" }
        #expect(fired.value == 1)
        #expect(model.title == "Inbox")
    }

    @Test("waitUntil returns when the waiting task is cancelled, the predicate never met, and the mirror is released")
    @MainActor
    func waitUntilEndsWithItsTask() async throws {
        weak var released: ObservedStore<Screen, Screen>?
        do {
            let store = Store(initialState: Screen(), reducer: Self.reducer)
            let model = ObservedStore(store)
            released = model
            let waiting = Task { await model.waitUntil { $0.unread == 99 } }
            model.dispatch(Receive(count: 1))
            await model.waitUntil { $0.unread == 1 }  // an update went by, the other waiter stays
            waiting.cancel()
            try await withDeadline(10, "the cancelled wait") { await waiting.value }
            let late = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                await model.waitUntil { $0.unread == 99 }  // cancelled before it waits: returns at once
            }
            try await withDeadline(10, "a wait that starts cancelled") { await late.value }
        }
        #expect(released == nil, "no waiter keeps the mirror alive")
    }

    @Test("A mirror of a selected part tracks only that part")
    @MainActor
    func selectedPart() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let unread = ObservedStore(store, select: { $0.unread })
        let fired = Fired()
        withObservationTracking {
            _ = unread.value
        } onChange: {
            fired.fire()
        }
        store.dispatch(Receive())
        await unread.waitUntil { $0 == 1 }
        #expect(fired.value == 1)
        #expect(unread.value == 1)
    }

    @Test("A reader of a selected Equatable part is not invalidated when another part changes")
    @MainActor
    func unchangedSelectedPartInvalidatesNobody() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let title = ObservedStore(store, select: { $0.title })
        let everything = ObservedStore(store)
        let fired = Fired()
        withObservationTracking {
            _ = title.value
        } onChange: {
            fired.fire()
        }
        store.dispatch(Receive())
        // The title's mirror is sent nothing for this commit (its selected value did not change), so
        // no wait on it is possible; the whole state's mirror has seen the commit.
        await everything.waitUntil { $0.unread == 1 }
        #expect(fired.value == 0)
        store.dispatch(Rename(title: "Inbox"))
        await title.waitUntil { $0 == "Inbox" }
        #expect(fired.value == 1)
    }

    @Test("Releasing the mirror ends its subscription")
    @MainActor
    func releasingTheMirrorEndsItsSubscription() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        weak var released: ObservedStore<Screen, Screen>?
        do {
            let model = ObservedStore(store)
            released = model
            #expect(store.core.subscriberCount == 1)
        }
        #expect(released == nil)
        #expect(store.core.subscriberCount == 0)
    }

    // The dispatching loops run on plain threads: in tasks they would hold the cooperative pool's
    // threads for their whole length under ThreadSanitizer (see `onThreads`).
    @Test("Main-actor delivery keeps commit order for dispatches from many threads")
    func mainActorDeliveryInCommitOrder() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let seen = LockedValue<[Int]>([])
        let total = 2_000
        let done = AsyncStream<Void>.makeStream()
        let subscription = store.subscribeOnMainActor({ $0.log.count }) { count in
            seen.withLock { $0.append(count) }
            if count == total { done.continuation.yield() }
        }
        await onThreads(4) { worker in
            for index in 0..<(total / 4) { store.dispatch(Append(value: worker * 10_000 + index)) }
        }
        var iterator = done.stream.makeAsyncIterator()
        _ = await iterator.next()
        subscription.cancel()

        let counts = seen.withLock { $0 }
        #expect(counts == Array(0...total), "every committed count, once, in order")
    }

    @Test("Coalescing delivers the newest state and skips superseded ones")
    func coalescing() async {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let last = AsyncStream<Int>.makeStream()
        let subscription = store.subscribeOnMainActor(coalescing: true) { state in
            last.continuation.yield(state.unread)
        }
        for _ in 0..<500 { store.dispatch(Receive()) }
        for await unread in last.stream where unread == 500 { break }
        subscription.cancel()
    }

    @Test("After cancel on the main actor, the observer is not called again")
    @MainActor
    func cancelOnMainActorStopsDelivery() async throws {
        let store = Store(initialState: Screen(), reducer: Self.reducer)
        let calls = Fired()
        let model = ObservedStore(store)
        let seen = AsyncStream<Int>.makeStream()
        let subscription = store.subscribeOnMainActor { state in
            calls.fire()
            seen.continuation.yield(state.unread)
        }
        store.dispatch(Receive())
        // Its own calls, awaited: two subscriptions' deliveries are each in commit order, but not
        // ordered with each other.
        try await withDeadline(10, "the subscriber to see the first commit") {
            for await unread in seen.stream where unread == 1 { return }
        }
        let before = calls.value
        subscription.cancel()
        store.dispatch(Receive())
        try await withDeadline(10, "the mirror to see the second commit") { await model.waitUntil { $0.unread == 2 } }
        #expect(before == 2, "the current state, then the first commit")
        #expect(calls.value == before)
    }
}
