/// A middleware that records every sync action reaching the reducer, with its time, so a session
/// can be replayed, inspected step by step, or saved with a bug report.
///
/// Put ``middleware`` **last** in the store's middleware list: middleware runs in order, so only the
/// last one sees exactly what reaches the reducer (after earlier middleware dropped, replaced or
/// added actions). Then replaying the record through the same reducer rebuilds every state the
/// store committed.
///
/// ```swift
/// let recorder = ActionRecorder<AppState>()
/// let store = Store(initialState: AppState(), reducer: appReducer,
///                   middleware: [analytics, recorder.middleware])   // last
/// // ... use the app ...
/// let states = recorder.recording.replay(from: AppState(), reducer: appReducer)
/// ```
///
/// The record grows without bound until ``clear()``; it holds the actions themselves (no copies of
/// the state). Recording takes a lock for a moment per action and never calls out while holding it.
/// Sync nodes of graphs and fallback actions go through middleware too, so they are recorded;
/// async actions never reach the reducer and are not.
public final class ActionRecorder<State: Sendable>: Sendable {
    private let storage: LockedValue<[RecordedAction]>
    private let origin: ContinuousClock.Instant

    /// The middleware to install, last in the store's list. It records each action, then passes it on
    /// unchanged. Installing it in two stores records both into this one record.
    public let middleware: Middleware<State>

    /// Creates an empty recorder; recorded times count from this moment.
    public init() {
        let storage = LockedValue<[RecordedAction]>([])
        let origin = ContinuousClock.now
        self.storage = storage
        self.origin = origin
        self.middleware = Middleware { action, _, next in
            let time = origin.duration(to: .now)
            storage.withLock { $0.append(RecordedAction(action: action, time: time)) }
            next(action)
        }
    }

    /// The actions recorded so far, oldest first, each with its time since the recorder was made.
    public var entries: [RecordedAction] { storage.withLock { $0 } }

    /// The actions recorded so far, as a value to replay, inspect or encode.
    public var recording: ActionRecording { ActionRecording(entries) }

    /// How many actions were recorded so far.
    public var count: Int { storage.withLock { $0.count } }

    /// Forgets every recorded action. Times of later actions still count from the recorder's creation.
    public func clear() {
        storage.withLock { $0.removeAll() }
    }

    /// The state after each recorded action, rebuilt by applying them one by one to `initialState`
    /// (see ``ActionRecording/replay(from:reducer:)``).
    public func replay(from initialState: State, reducer: Reducer<State>) -> [State] {
        recording.replay(from: initialState, reducer: reducer)
    }
}

/// One action that reached the reducer, and when.
public struct RecordedAction: Sendable {
    /// The action, as the reducer received it.
    public let action: any Action
    /// When it was recorded: time since its recorder was made (on a clock that never jumps).
    public let time: Duration

    /// Creates an entry, for building a record by hand (tests, tools).
    public init(action: any Action, time: Duration) {
        self.action = action
        self.time = time
    }
}
