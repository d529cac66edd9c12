import Foundation
import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/SeeingWhatHappened/Recording.md, with the types they need.

enum RecordingGuide {
    struct Counter: Equatable, Sendable { var count = 0 }
    struct Add: Action, Codable { let amount: Int }
    struct Reset: Action, Codable {}
    static let counterReducer = Reducer<Counter>.combine(
        .on(Add.self) { $0.count += $1.amount },
        .on(Reset.self) { state, _ in state.count = 0 }
    )
    /// Drops an `Add` of a negative amount: the recorder, after it, never sees those.
    static let dropNegative = Middleware<Counter> { action, _, next in
        if let add = action as? Add, add.amount < 0 { return }
        next(action)
    }
}

@Suite("Guide: Recording and Replaying Actions")
struct RecordingGuideTests {
    typealias Counter = RecordingGuide.Counter
    typealias Add = RecordingGuide.Add
    typealias Reset = RecordingGuide.Reset
    let counterReducer = RecordingGuide.counterReducer
    let dropNegative = RecordingGuide.dropNegative

    @Test("Recording guide: record what reaches the reducer, replay it, save it, and test the session")
    func recordReplaySave() throws {
        let recorder = ActionRecorder<Counter>()
        let store = Store(
            initialState: Counter(), reducer: counterReducer,
            middleware: [dropNegative, recorder.middleware])  // last

        store.dispatch(Add(amount: 2))
        store.dispatch(Add(amount: -5))  // dropped by the middleware before it: not recorded
        store.dispatch(Add(amount: 1))

        #expect(recorder.count == 2)  // 2

        let recording = recorder.recording
        #expect(recording.replay(from: Counter(), reducer: counterReducer).map(\.count) == [2, 3])
        #expect(recording.state(afterSteps: 1, from: Counter(), reducer: counterReducer) == Counter(count: 2))

        let registry = ActionCodingRegistry(Add.self, Reset.self)
        let data = try recording.jsonData(using: registry)  // attach it to the bug report

        // Later, in a test: load the user's session and check the state it leads to.
        let session = try ActionRecording(jsonData: data, using: registry)
        let final = session.state(afterSteps: session.count, from: Counter(), reducer: counterReducer)
        #expect(final.count == 3)
        #expect(final == store.state)
    }

    @Test("Recording guide: an unregistered action type fails the encoding with its name")
    func unregisteredType() {
        let recorder = ActionRecorder<Counter>()
        let store = Store(initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware])
        store.dispatch(Reset())
        #expect(throws: ActionCodingError.self) {
            try recorder.recording.jsonData(using: ActionCodingRegistry(Add.self))
        }
    }
}
