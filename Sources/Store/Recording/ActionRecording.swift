import Foundation

/// A recorded sequence of actions: replay it through a reducer to see every state, step through it
/// (time travel), or save it as JSON and load it back.
///
/// Get one from ``ActionRecorder/recording``, from ``init(jsonData:using:)``, or build one by hand.
/// Step `k` (from 1) is the `k`-th action; "the state after 0 steps" is the initial state.
public struct ActionRecording: Sendable, RandomAccessCollection {
    /// The recorded actions, oldest first.
    public var actions: [RecordedAction]

    /// Creates a record of `actions`, oldest first.
    public init(_ actions: [RecordedAction] = []) {
        self.actions = actions
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of actions.
    public var endIndex: Int { actions.count }
    /// The action at `position` (0 is the first step).
    public subscript(position: Int) -> RecordedAction { actions[position] }

    // MARK: Replay

    /// Applies every action in order to `initialState` with `reducer` and returns the state after
    /// each one: element `k` is the state after step `k + 1`, so the result has one state per action
    /// and its last element is the final state (an empty record gives `[]`).
    ///
    /// With the reducer the store used, and a recorder installed last, these are exactly the states
    /// the store committed, because reducers are pure.
    public func replay<State>(from initialState: State, reducer: Reducer<State>) -> [State] {
        var state = initialState
        var states: [State] = []
        states.reserveCapacity(actions.count)
        for entry in actions {
            reducer(&state, entry.action)
            states.append(state)
        }
        return states
    }

    /// Time travel: the state after the first `steps` actions (0 gives `initialState`, `count` the
    /// final state), without keeping the states in between.
    /// - Precondition: `0 <= steps <= count`.
    public func state<State>(afterSteps steps: Int, from initialState: State, reducer: Reducer<State>) -> State {
        precondition(
            steps >= 0 && steps <= actions.count,
            "OresRedux: asked for the state after \(steps) steps of a record of \(actions.count)")
        var state = initialState
        for entry in actions[..<steps] { reducer(&state, entry.action) }
        return state
    }

    // MARK: JSON

    /// The record as JSON, with each action encoded under the name `registry` gives its type:
    ///
    /// ```json
    /// {"actions": [{"type": "Increment", "payload": {"amount": 2}, "time": 1250000}]}
    /// ```
    /// `time` is whole nanoseconds since recording began. Keys are sorted and the text is indented,
    /// so two exports of the same record on one platform are byte-for-byte equal and diff well.
    /// Apple's Foundation may sort keys in another order than Linux's: an export made on a Mac and
    /// one made on Linux can differ in key order, and read back the same.
    /// - Throws: ``ActionCodingError/unregisteredType(_:)`` for an action whose type is not in
    ///   `registry`; ``ActionCodingError/encodingFailed(type:description:)`` if an action's own
    ///   encoding throws.
    public func jsonData(using registry: ActionCodingRegistry) throws(ActionCodingError) -> Data {
        let document = RecordingDocument(actions: actions)
        let encoder = JSONEncoder()
        // portability: the key order of .sortedKeys may differ on Apple's Foundation (see above).
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[ActionCodingRegistry.userInfoKey] = registry
        do {
            return try encoder.encode(document)
        } catch let error as ActionCodingError {
            throw error
        } catch {
            throw .encodingFailed(type: "ActionRecording", description: String(describing: error))
        }
    }

    /// Reads a record written by ``jsonData(using:)``, building each action from its type name
    /// with `registry`.
    /// - Throws: ``ActionCodingError/unknownType(_:registered:)`` for a type name `registry` does not
    ///   know; ``ActionCodingError/invalidPayload(type:description:)`` when a payload does not decode
    ///   as its type; ``ActionCodingError/invalidDocument(_:)`` when the data is not such a record.
    public init(jsonData: Data, using registry: ActionCodingRegistry) throws(ActionCodingError) {
        let decoder = JSONDecoder()
        decoder.userInfo[ActionCodingRegistry.userInfoKey] = registry
        do {
            self.init(try decoder.decode(RecordingDocument.self, from: jsonData).actions)
        } catch let error as ActionCodingError {
            throw error
        } catch {
            throw .invalidDocument(String(describing: error))
        }
    }
}

/// The JSON shape of a record: `{"actions": [...]}`.
private struct RecordingDocument: Codable {
    let actions: [RecordedAction]
}

extension RecordedAction: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, payload, time
    }

    /// Decodes `{"type", "payload", "time"}` with the registry found in the decoder's user info.
    public init(from decoder: any Decoder) throws {
        let registry = try ActionCodingRegistry.from(decoder.userInfo)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .type)
        let nanoseconds = try container.decode(Int64.self, forKey: .time)
        let action = try registry.decode(name, from: container.superDecoder(forKey: .payload))
        self.init(action: action, time: .nanoseconds(nanoseconds))
    }

    /// Encodes `{"type", "payload", "time"}` with the registry found in the encoder's user info.
    public func encode(to encoder: any Encoder) throws {
        let registry = try ActionCodingRegistry.from(encoder.userInfo)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(registry.name(of: action), forKey: .type)
        try container.encode(time.wholeNanoseconds, forKey: .time)
        try registry.encode(action, to: container.superEncoder(forKey: .payload))
    }
}
