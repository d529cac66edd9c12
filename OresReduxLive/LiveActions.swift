import OresRedux

/// The action a ``LiveInspector`` dispatches when the page jumps the app to a recorded state: the
/// store's reducer (wrapped by ``LiveInspector/makeStore(initialState:reducer:middleware:options:)``)
/// replaces the whole state with the state after ``step``, and the recording shows it as a step of
/// its own, named `JumpedToStep`, whose diff goes from the state before the jump to the state after
/// that step.
///
/// It goes through the store's one pipeline like any action: middleware sees it (a middleware that
/// drops actions it does not know drops the jump too), subscribers see the new state. Runs in flight
/// are not cancelled: their later sync actions apply on top of the jumped state.
public struct JumpedToStep: Action, CustomReflectable, CustomStringConvertible, InspectorSessionAction {
    /// The recorded step whose state the app now has.
    public let step: Int
    /// The state, as the store committed it after that step; what the reducer installs.
    let state: any Sendable

    init(step: Int, state: any Sendable) {
        self.step = step
        self.state = state
    }

    /// Only the step: the state itself is the step's diff, not the action.
    public var customMirror: Mirror { Mirror(self, children: ["step": step]) }

    /// `JumpedToStep(step: 12)`.
    public var description: String { "JumpedToStep(step: \(step))" }
}

/// The action a ``LiveInspector`` dispatches when recording resumes after a pause, so that the
/// recording stays true: its step's diff is every change the app made while recording was paused.
/// The reducer (wrapped by ``LiveInspector/makeStore(initialState:reducer:middleware:options:)``)
/// ignores it.
public struct RecordingResumed: Action, CustomStringConvertible, InspectorSessionAction {
    /// How many actions reached the reducer, unrecorded, while recording was paused.
    public let unrecordedActions: Int

    /// `RecordingResumed(unrecordedActions: 3)`.
    public var description: String { "RecordingResumed(unrecordedActions: \(unrecordedActions))" }
}
