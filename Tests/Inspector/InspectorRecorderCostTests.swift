import Foundation
import OresRedux
import Testing

@testable import OresRedux

/// What recording costs the thread that dispatches: keeping the state and a constant. Redaction,
/// `Mirror` and the diff run elsewhere, and reading the recording still returns every step.
@Suite("Inspector recorder cost")
struct InspectorRecorderCostTests {
    /// Counts the calls made on a thread marked as dispatching (a mark in its thread dictionary).
    final class Probe: Sendable {
        let calls = LockedValue(0)
        static let key = "InspectorRecorderCostTests.dispatching"

        /// Counts one call, if the calling thread is dispatching for this probe.
        static func called() {
            (Thread.current.threadDictionary[key] as? Probe)?.calls.withLock { $0 += 1 }
        }

        /// Runs `body` with this thread marked as dispatching for `self`.
        func dispatching(_ body: () -> Void) {
            Thread.current.threadDictionary[Self.key] = self
            body()
            Thread.current.threadDictionary[Self.key] = nil
        }
    }

    /// An item whose `Mirror` and `==` count the calls made on a dispatching thread.
    struct Item: Sendable, CustomReflectable, Equatable {
        var id: Int
        var value: Int
        var customMirror: Mirror {
            Probe.called()
            return Mirror(self, children: ["id": id, "value": value])
        }
        static func == (a: Item, b: Item) -> Bool {
            Probe.called()
            return a.id == b.id && a.value == b.value
        }
    }

    struct Catalog: Sendable, Equatable {
        var items: [Item]
        var tags: [String: Int] = [:]
    }
    struct Bump: Action { let index: Int }
    struct Retag: Action { let round: Int }

    static let reducer = Reducer<Catalog>.combine(
        .on(Bump.self) { state, action in state.items[action.index].value += 1 },
        .on(Retag.self) { state, action in
            for key in state.tags.keys { state.tags[key] = action.round }
        }
    )

    static func catalog(items: Int = 100, tags: Int = 0) -> Catalog {
        Catalog(
            items: (0..<items).map { Item(id: $0, value: 0) },
            tags: Dictionary(uniqueKeysWithValues: (0..<tags).map { ("tag \($0)", 0) }))
    }

    static func store(_ inspector: InspectorRecorder<Catalog>, _ initial: Catalog) -> Store<Catalog> {
        Store(
            initialState: initial, reducer: reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
    }

    @Test("the dispatching thread runs no redaction, no Mirror and no diff")
    func noDescribingOnTheDispatchingThread() async {
        let probe = Probe()
        var options = InspectorOptions<Catalog>()
        options.redactState { _ in Probe.called() }
        let inspector = InspectorRecorder(options: options)
        let store = Self.store(inspector, Self.catalog())
        let final = await onThread {
            probe.dispatching {
                for step in 0..<200 { store.dispatch(Bump(index: step % 100)) }
                store.dispatch(Retag(round: 1))
            }
            return store.state
        }
        #expect(probe.calls.withLock { $0 } == 0, "redaction, Mirror or == ran on the dispatching thread")
        let recording = inspector.recording
        #expect(recording.stepCount == 201)
        #expect(recording.states.last == InspectorValue(describing: final))
    }

    @Test("the recording returns every step dispatched before it was read, described and in order")
    func everythingBeforeTheCall() async {
        let inspector = InspectorRecorder<Catalog>()
        let store = Self.store(inspector, Self.catalog(tags: 50))
        for round in 1...3 {
            let final = await onThread {
                for step in 0..<300 { store.dispatch(Bump(index: step % 100)) }
                store.dispatch(Retag(round: round))
                return store.state
            }
            let recording = inspector.recording
            #expect(recording.stepCount == 301 * round)
            #expect(recording.steps.map(\.number) == Array(1...(301 * round)))
            #expect(recording.states.last == InspectorValue(describing: final))
            #expect(recording.actionTypes.last == "Retag")
        }
    }

    @Test("the queue is bounded: past maximumSteps the oldest go, counted, and the states stay right")
    func boundedQueue() async {
        var options = InspectorOptions<Catalog>()
        options.maximumSteps = 5
        let inspector = InspectorRecorder(options: options, processInBackground: false)
        let store = Self.store(inspector, Self.catalog(items: 10))
        var states: [Catalog] = [store.state]
        for step in 0..<50 {
            store.dispatch(Bump(index: step % 10))
            states.append(store.state)
            #expect(inspector.storage.withLock { $0.queued } <= 5, "never more queued than the bound")
        }
        let recording = inspector.recording
        #expect(recording.stepCount == 5)
        #expect(recording.droppedSteps == 45)
        #expect(recording.steps.map(\.number) == [46, 47, 48, 49, 50])
        #expect(recording.states == states[45...].map { InspectorValue(describing: $0) })

        // Then described steps are dropped as new ones come, in both orders of reading.
        for step in 0..<7 {
            store.dispatch(Bump(index: step))
            states.append(store.state)
            if step == 3 { _ = inspector.recording }
        }
        let later = inspector.recording
        #expect(later.steps.map(\.number) == [53, 54, 55, 56, 57])
        #expect(later.droppedSteps == 52)
        #expect(later.states == states[52...].map { InspectorValue(describing: $0) })
        #expect(later.html().contains(#""droppedSteps":52"#))
    }

    @Test("past maximumQueuedSteps waiting, the dispatching thread describes them: memory stays bounded")
    func backPressure() async {
        let probe = Probe()
        var options = InspectorOptions<Catalog>()
        options.maximumQueuedSteps = 10
        options.redactState { _ in Probe.called() }
        let inspector = InspectorRecorder(options: options, processInBackground: false)
        let store = Self.store(inspector, Self.catalog(items: 10))
        let queued = await onThread {
            var most = 0
            probe.dispatching {
                for step in 0..<25 {
                    store.dispatch(Bump(index: step % 10))
                    most = max(most, inspector.storage.withLock { $0.queued })
                }
            }
            return most
        }
        #expect(queued <= 10, "never more than the bound waits")
        #expect(probe.calls.withLock { $0 } > 0, "the dispatching thread described the overflow")
        let recording = inspector.recording
        #expect(recording.stepCount == 25 && recording.droppedSteps == 0)
        #expect(recording.states.last == InspectorValue(describing: store.state))
    }

    @Test("a background worker describes the queue without a reader, and clear() forgets it")
    func workerAndClear() async throws {
        // The redaction sees each state as it is described: the last one says the worker got there.
        let (described, seen) = AsyncStream<Void>.makeStream()
        var options = InspectorOptions<Catalog>()
        options.redactState { state in
            if state.items.reduce(0, { $0 + $1.value }) == 100 { seen.yield() }
        }
        let inspector = InspectorRecorder(options: options)
        let store = Self.store(inspector, Self.catalog())
        for step in 0..<100 { store.dispatch(Bump(index: step)) }
        try await withDeadline(20, "the worker describes 100 queued steps with no reader") {
            for await _ in described { return }
        }
        inspector.clear()
        store.dispatch(Bump(index: 0))
        let recording = inspector.recording
        #expect(recording.stepCount == 1 && recording.droppedSteps == 0)
        #expect(recording.states.last == InspectorValue(describing: store.state))
    }
}
