import Foundation
import Testing

@testable import OresRedux

/// A recorder installed last sees what reaches the reducer; its record replays to the same states,
/// and survives a trip through JSON.
@Suite struct ActionRecorderTests {
    struct Counter: Equatable, Sendable, Codable {
        var value = 0
        var name = ""
    }
    struct Increment: Action, Codable, Equatable { var amount = 1 }
    struct Rename: Action, Codable, Equatable { let name: String }
    struct Secret: Action {}

    static let reducer = Reducer<Counter>.combine(
        .on(Increment.self) { $0.value += $1.amount },
        .on(Rename.self) { $0.name = $1.name }
    )

    /// Drops negative increments and doubles every rename into an extra increment.
    static let earlier = Middleware<Counter> { action, context, next in
        if let increment = action as? Increment, increment.amount < 0 { return }
        next(action)
        if action is Rename { context.dispatch(Increment(amount: 10)) }
    }

    func recordSession() -> (ActionRecorder<Counter>, Store<Counter>, [Counter]) {
        let recorder = ActionRecorder<Counter>()
        let store = Store(
            initialState: Counter(), reducer: Self.reducer,
            middleware: [Self.earlier, recorder.middleware])
        let committed = LockedValue<[Counter]>([])
        let subscription = store.subscribe { state in committed.withLock { $0.append(state) } }
        store.dispatch(Increment(amount: 2))
        store.dispatch(Increment(amount: -5))  // dropped by the earlier middleware
        store.dispatch(Rename(name: "ada"))  // plus an Increment(10) the middleware adds
        store.dispatch(Increment(amount: 3))
        subscription.cancel()
        return (recorder, store, Array(committed.withLock { $0 }.dropFirst()))
    }

    @Test func recordsExactlyWhatReachesTheReducerInOrder() {
        let (recorder, _, _) = recordSession()
        let actions = recorder.entries.map(\.action)
        #expect(actions.count == 4)
        #expect(actions[0] as? Increment == Increment(amount: 2))
        #expect(actions[1] as? Rename == Rename(name: "ada"))
        #expect(actions[2] as? Increment == Increment(amount: 10))
        #expect(actions[3] as? Increment == Increment(amount: 3))
        #expect(recorder.count == 4)
    }

    @Test func timesNeverGoBackwards() {
        let (recorder, _, _) = recordSession()
        let times = recorder.entries.map(\.time)
        #expect(times == times.sorted())
        #expect(times.allSatisfy { $0 >= .zero })
    }

    @Test func replayRebuildsEveryCommittedState() {
        let (recorder, store, committed) = recordSession()
        let replayed = recorder.replay(from: Counter(), reducer: Self.reducer)
        #expect(replayed == committed)
        #expect(replayed.last == store.state)
        #expect(replayed.last == Counter(value: 15, name: "ada"))
    }

    @Test func timeTravelGivesTheStateAfterAnyStep() {
        let (recorder, _, committed) = recordSession()
        let recording = recorder.recording
        #expect(recording.state(afterSteps: 0, from: Counter(), reducer: Self.reducer) == Counter())
        for steps in 1...recording.count {
            #expect(recording.state(afterSteps: steps, from: Counter(), reducer: Self.reducer) == committed[steps - 1])
        }
    }

    @Test func clearForgetsTheRecord() {
        let (recorder, store, _) = recordSession()
        recorder.clear()
        #expect(recorder.entries.isEmpty)
        store.dispatch(Increment(amount: 1))
        #expect(recorder.count == 1)
    }

    @Test func graphSyncNodesAreRecordedToo() async throws {
        let recorder = ActionRecorder<Counter>()
        let store = Store(initialState: Counter(), reducer: Self.reducer, middleware: [recorder.middleware])
        var graph = ActionGraph<Counter>()
        let first = graph.send(Increment(amount: 1))
        graph.send(Rename(name: "graph"), after: first)
        _ = try await withDeadline { [graph] in await store.dispatch(graph).wait() }
        #expect(recorder.entries.map { String(describing: type(of: $0.action)) } == ["Increment", "Rename"])
    }

    @Test func recordsFromManyThreadsWithoutLosingAny() async {
        let recorder = ActionRecorder<Counter>()
        let store = Store(initialState: Counter(), reducer: Self.reducer, middleware: [recorder.middleware])
        // Plain threads, as the test's name says; tasks would hold the cooperative pool's threads.
        await onThreads(4) { _ in
            for _ in 0..<250 { store.dispatch(Increment()) }
        }
        #expect(recorder.count == 1000)
        #expect(recorder.replay(from: Counter(), reducer: Self.reducer).last == store.state)
    }

    // MARK: JSON

    func registry() -> ActionCodingRegistry {
        var registry = ActionCodingRegistry()
        registry.register(Increment.self)
        registry.register(Rename.self)
        return registry
    }

    @Test func jsonRoundTripKeepsActionsAndTimes() throws {
        let (recorder, _, committed) = recordSession()
        let data = try recorder.recording.jsonData(using: registry())
        let loaded = try ActionRecording(jsonData: data, using: registry())
        #expect(loaded.count == 4)
        #expect(loaded.map(\.time) == recorder.entries.map(\.time))
        #expect(loaded.replay(from: Counter(), reducer: Self.reducer) == committed)
        #expect(try loaded.jsonData(using: registry()) == data)
    }

    @Test func jsonNamesEachActionTypeAndNestsItsPayload() throws {
        let recording = ActionRecording([
            RecordedAction(action: Increment(amount: 2), time: .milliseconds(5)),
            RecordedAction(action: Rename(name: "ada"), time: .milliseconds(7)),
        ])
        let data = try recording.jsonData(using: registry())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let actions = try #require(object["actions"] as? [[String: Any]])
        #expect(actions[0]["type"] as? String == "Increment")
        #expect((actions[0]["payload"] as? [String: Any])?["amount"] as? Int == 2)
        #expect(actions[0]["time"] as? Int == 5_000_000)
        #expect(actions[1]["type"] as? String == "Rename")
        #expect((actions[1]["payload"] as? [String: Any])?["name"] as? String == "ada")
    }

    @Test func customNamesAreUsedBothWays() throws {
        var registry = ActionCodingRegistry()
        registry.register(Increment.self, as: "counter/increment")
        let data = try ActionRecording([RecordedAction(action: Increment(amount: 4), time: .zero)]).jsonData(
            using: registry)
        #expect(String(decoding: data, as: UTF8.self).contains("\"counter/increment\""))
        let loaded = try ActionRecording(jsonData: data, using: registry)
        #expect(loaded.first?.action as? Increment == Increment(amount: 4))
    }

    @Test func variadicRegistryRegistersEachType() {
        let registry = ActionCodingRegistry(Increment.self, Rename.self)
        #expect(registry.registeredNames == ["Increment", "Rename"])
    }

    @Test func unknownTypeOnImportIsAClearError() throws {
        let json = #"{"actions": [{"type": "Explode", "payload": {}, "time": 0}]}"#
        #expect(throws: ActionCodingError.unknownType("Explode", registered: ["Increment", "Rename"])) {
            try ActionRecording(jsonData: Data(json.utf8), using: registry())
        }
        let error = ActionCodingError.unknownType("Explode", registered: ["Increment", "Rename"])
        #expect(
            error.description
                == #"the record contains an action of type "Explode", which is not registered (registered: Increment, Rename)"#
        )
    }

    @Test func unregisteredTypeOnExportIsAClearError() {
        let recording = ActionRecording([RecordedAction(action: Secret(), time: .zero)])
        #expect(throws: ActionCodingError.unregisteredType("Secret")) {
            try recording.jsonData(using: registry())
        }
    }

    @Test func badPayloadAndBadDocumentAreClearErrors() {
        let badPayload = #"{"actions": [{"type": "Increment", "payload": {"amount": "two"}, "time": 0}]}"#
        do {
            _ = try ActionRecording(jsonData: Data(badPayload.utf8), using: registry())
            Issue.record("a bad payload decoded")
        } catch {
            guard case .invalidPayload(type: "Increment", _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
        do {
            _ = try ActionRecording(jsonData: Data("not json".utf8), using: registry())
            Issue.record("garbage decoded")
        } catch {
            guard case .invalidDocument = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }
}
