/// What an ``InspectorRecorder`` records and keeps out: redaction first, then its bounds.
///
/// Redaction happens before anything is recorded: a redacted value never reaches the recording, its
/// file or its exports.
///
/// ```swift
/// var options = InspectorOptions<AppState>()
/// options.redact(\.session, with: nil)             // a part of the state, by key path
/// options.redactFields("password", "token")        // any field so named, in actions, states, responses
/// options.redactActions { action in                // any action, by a closure
///     (action as? LogIn).map { LogIn(user: $0.user, password: "•••") } ?? action
/// }
/// let inspector = InspectorRecorder(options: options)
/// ```
public struct InspectorOptions<State: Sendable>: Sendable {
    /// The most steps (actions that reached the reducer) kept; past it, the oldest are dropped and
    /// the recording says how many. 10,000 by default.
    public var maximumSteps = 10_000
    /// The most graph runs and async actions kept, each; past it, the oldest are dropped. 1,000 by
    /// default.
    public var maximumRuns = 1_000
    /// The most steps waiting to be described, each holding its state: past it, the thread that
    /// dispatches describes the waiting steps itself before it returns, so that memory stays
    /// bounded when describing falls behind dispatching (a state that changes in many places on
    /// every action, a busy machine). 1,024 by default; at most ``maximumSteps``.
    public var maximumQueuedSteps = 1_024
    /// Strings longer than this many characters are cut, and marked as cut. 1,048,576 by default.
    public var maximumStringLength = 1 << 20
    /// Values nested deeper than this are shown as `Type(…)`: a bound for cycles of references. 64
    /// by default.
    public var maximumDepth = 64

    var redactedFields: Set<String> = []
    var stateRedactions: [@Sendable (inout State) -> Void] = []
    var actionRedaction: (@Sendable (any Action) -> any Action)?

    /// Options that record everything, with the default bounds.
    public init() {}

    /// Replaces the part of every recorded state at `keyPath` with `replacement` before it is
    /// recorded (the store's state is not touched).
    /// - Parameters:
    ///   - keyPath: the part to hide, such as `\.session.token`.
    ///   - replacement: what the recording shows instead, such as `"<redacted>"` or `nil`.
    public mutating func redact<Value: Sendable>(
        _ keyPath: WritableKeyPath<State, Value> & Sendable, with replacement: Value
    ) {
        stateRedactions.append { state in state[keyPath: keyPath] = replacement }
    }

    /// Changes every recorded state with `body` before it is recorded (the store's state is not
    /// touched): for what a key path cannot name, such as every element of a collection.
    public mutating func redactState(_ body: @escaping @Sendable (inout State) -> Void) {
        stateRedactions.append(body)
    }

    /// Records what `body` returns in place of each sync action: return the action with its secrets
    /// replaced, or the action itself. Applied before ``redactFields(_:)``.
    public mutating func redactActions(_ body: @escaping @Sendable (any Action) -> any Action) {
        actionRedaction = body
    }

    /// Shows every field with one of these names as `<redacted>`, wherever it is: in states, sync
    /// and async actions, responses and errors.
    public mutating func redactFields(_ names: String...) {
        redactedFields.formUnion(names)
    }

    var limits: InspectorLimits {
        InspectorLimits(
            maximumStringLength: maximumStringLength, maximumDepth: maximumDepth, redactedFields: redactedFields)
    }

    /// `state` as it may be recorded.
    func redacted(_ state: State) -> State {
        guard !stateRedactions.isEmpty else { return state }
        var copy = state
        for redaction in stateRedactions { redaction(&copy) }
        return copy
    }
}

/// The parts of the options that describing a value needs, without the state's type.
struct InspectorLimits: Sendable {
    var maximumStringLength = 1 << 20
    var maximumDepth = 64
    var redactedFields: Set<String> = []
}
