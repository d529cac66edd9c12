import Foundation
import OresRedux

/// The live inspector's state for one recorder: which store is watched, what each of the newest
/// steps' action and state were (to jump back and dispatch again), and whether recording is paused.
final class LiveSession<State: Sendable>: LiveBackend {
    let recorder: InspectorRecorder<State>
    let registry: ActionCodingRegistry
    let title: String
    let waker: LiveWaker
    let kept: LockedValue<Kept<State>>
    /// Commands of the page are applied here, never on the server's thread or the app's.
    private let commands = DispatchQueue(label: "OresReduxLive commands")
    /// Jumps and dispatches queued on `commands` and not applied yet.
    private let waitingCommands = LockedValue(0)
    /// Past this many waiting, a jump or a dispatch is answered `429 Too Many Requests`: a client
    /// that sends them faster than the store applies and the recorder describes them is slowed
    /// down, and the queue stays bounded.
    let maximumWaitingCommands = 64

    init(
        recorder: InspectorRecorder<State>, registry: ActionCodingRegistry, options: LiveInspectorOptions,
        waker: LiveWaker
    ) {
        self.recorder = recorder
        self.registry = registry
        self.title = options.title
        self.waker = waker
        let kept = LockedValue(Kept<State>(maximum: max(1, options.maximumKeptSteps)))
        self.kept = kept
        // Under the recorder's lock, as each described step lands: wake the server, return.
        recorder.observeSteps { _, _ in waker.changed() }
    }

    /// Installed last in each store: records through the recorder unless paused, and keeps each
    /// recorded action with the state it produced, under the number the recorder gave its step when
    /// it queued it. The recorder describes steps later, in batches, and may drop queued ones past
    /// its bound: pairing by number, not by arrival, keeps each step with its own action and state.
    var middleware: Middleware<State> {
        let kept = self.kept
        let recorder = self.recorder
        let recording = recorder.middleware
        return Middleware { action, context, next in
            let paused = kept.withLock { kept in
                if kept.paused { kept.unrecorded += 1 }
                return kept.paused
            }
            if paused { return next(action) }
            var recorded: (action: any Action, state: State)?
            recording.run(action, context) { forwarded in
                next(forwarded)
                recorded = (forwarded, context.state)
            }
            guard let recorded else { return }
            // The store applies one action at a time, so the newest queued step is this one.
            let number = recorder.newestQueuedStepNumber
            guard number > 0 else { return }
            kept.withLock { $0.keep(number, recorded.action, recorded.state) }
        }
    }

    // MARK: Commands, from Swift or from the page

    /// Pauses or resumes; on resume after unrecorded actions, the store to send ``RecordingResumed``.
    func setPaused(_ paused: Bool) -> (Store<State>, RecordingResumed)? {
        let (unrecorded, store) = kept.withLock { kept in
            defer { kept.unrecorded = 0 }
            kept.paused = paused
            return (paused ? 0 : kept.unrecorded, kept.store)
        }
        waker.changed()
        guard unrecorded > 0, let store else { return nil }
        return (store, RecordingResumed(unrecordedActions: unrecorded))
    }

    /// The store to jump, and the action that jumps it to the state after `step`.
    func jump(toStep step: Int) throws(LiveInspectorError) -> (Store<State>, JumpedToStep) {
        let (store, state, oldest) = kept.withLock { kept in
            (kept.store, step == 0 ? kept.initial : kept.entries[step]?.state, kept.oldest)
        }
        guard let store else { throw .noStore }
        guard let state else { throw .notKept(step: step, oldestKept: oldest) }
        return (store, JumpedToStep(step: step, state: state))
    }

    /// The store, and the action of `step` after a round trip through the registry's JSON.
    func redispatch(step: Int) throws(LiveInspectorError) -> (Store<State>, any Action) {
        let (store, action, oldest) = kept.withLock { kept in (kept.store, kept.entries[step]?.action, kept.oldest) }
        guard let store else { throw .noStore }
        guard let action else { throw .notKept(step: step, oldestKept: oldest) }
        if action is JumpedToStep || action is RecordingResumed {
            throw .notAnAppAction(String(describing: type(of: action)))
        }
        do {
            let data = try ActionRecording([RecordedAction(action: action, time: .zero)]).jsonData(using: registry)
            let decoded = try ActionRecording(jsonData: data, using: registry)
            guard let first = decoded.actions.first else { throw ActionCodingError.invalidDocument("no action") }
            return (store, first.action)
        } catch let error as ActionCodingError {
            throw .coding(error)
        } catch {
            throw .coding(.invalidDocument(String(describing: error)))
        }
    }

    // MARK: LiveBackend

    func page() -> String {
        recorder.liveHTML(title: title, liveScript: LivePage.script)
    }

    func offlinePage() -> String {
        recorder.recording.html(title: title)
    }

    func update(_ cursor: inout InspectorLiveCursor, limit: Int) -> InspectorLiveUpdate? {
        recorder.liveUpdate(after: &cursor, limit: limit)
    }

    func newestStep() -> Int {
        recorder.newestStepNumber
    }

    func statusJSON() -> String {
        let (paused, unrecorded, hasStore) = kept.withLock { ($0.paused, $0.unrecorded, $0.store != nil) }
        return "{\"paused\":\(paused),\"unrecorded\":\(unrecorded),\"store\":\(hasStore)}"
    }

    func command(_ name: String, step: Int?) -> (status: Int, body: String) {
        switch name {
        case "pause", "resume":
            if let (store, resumed) = setPaused(name == "pause") {
                commands.async { store.dispatch(resumed) }
            }
            return (200, statusJSON())
        case "jump", "dispatch":
            guard let step else { return (400, Self.error("the command needs {\"step\": number}")) }
            do {
                let store: Store<State>
                let action: any Action
                if name == "jump" {
                    let (jumpedStore, jumped) = try jump(toStep: step)
                    (store, action) = (jumpedStore, jumped)
                } else {
                    (store, action) = try redispatch(step: step)
                }
                let admitted = waitingCommands.withLock { waiting in
                    guard waiting < self.maximumWaitingCommands else { return false }
                    waiting += 1
                    return true
                }
                guard admitted else {
                    return (
                        429,
                        Self.error(
                            "\(self.maximumWaitingCommands) commands are waiting to be applied; send this one again later"
                        )
                    )
                }
                let waitingCommands = self.waitingCommands
                commands.async {
                    store.dispatch(action)
                    waitingCommands.withLock { $0 -= 1 }
                }
                return (202, "{\"accepted\":\"\(name)\",\"step\":\(step)}")
            } catch {
                let status =
                    switch error {
                    case .noStore: 410
                    case .notKept: 404
                    case .notAnAppAction, .coding: 422
                    case .cannotListen: 500
                    }
                return (status, Self.error(error.description))
            }
        default:
            return (404, Self.error("no such command"))
        }
    }

    /// `{"error": message}`, with the message escaped as a JSON string (the inspector's one writer).
    static func error(_ message: String) -> String {
        var json = JSONText()
        json.raw("{\"error\":")
        json.string(message)
        json.raw("}")
        return json.text
    }
}

/// What the session keeps, behind its lock.
struct Kept<State: Sendable> {
    let maximum: Int
    /// The newest steps' actions and states, by step number.
    var entries: [Int: (action: any Action, state: State)] = [:]
    /// Their numbers, oldest first, from `orderStart`.
    var order: [Int] = []
    var orderStart = 0
    var lastNumber = 0
    /// The first store's initial state: the state "after step 0".
    var initial: State?
    weak var store: Store<State>?
    var paused = false
    var unrecorded = 0

    init(maximum: Int) {
        self.maximum = maximum
    }

    var oldest: Int? { orderStart < order.count ? order[orderStart] : nil }

    /// Keeps step `number`'s action and state, and forgets the oldest past the bound.
    mutating func keep(_ number: Int, _ action: any Action, _ state: State) {
        if number <= lastNumber {
            // The recorder was cleared: numbers start again.
            entries = [:]
            order = []
            orderStart = 0
        }
        lastNumber = number
        entries[number] = (action, state)
        order.append(number)
        if order.count - orderStart > maximum {
            entries[order[orderStart]] = nil
            orderStart += 1
        }
        compact()
    }

    private mutating func compact() {
        if orderStart > 64 && orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
