import Foundation

/// Records what a store does, for the inspector page: every action that reached the reducer with
/// the state change it made, and every graph run and async action with its nodes, attempts, times,
/// outcomes, responses and errors. ``recording`` is what was recorded so far;
/// ``writeHTML(to:title:)`` writes it as one self-contained page that opens offline in any browser.
///
/// Install its ``middleware`` **last** (it records what reaches the reducer, after other middleware
/// dropped or replaced actions) and its events with ``storeOptions(_:)`` (or
/// `store.observeEvents(inspector.onEvent)`):
///
/// ```swift
/// let inspector = InspectorRecorder<AppState>()
/// let store = Store(initialState: AppState(), reducer: appReducer,
///                   middleware: [inspector.middleware], options: inspector.storeOptions())
/// // ... use the app ...
/// try inspector.writeHTML(to: URL(fileURLWithPath: "recording.html"))
/// ```
///
/// Recording is opt-in: a store without it pays nothing. With it, each action costs a walk over the
/// parts of the state that changed (an `Equatable` part that is equal is skipped whole) and the
/// recorder keeps one patch per step, not a state per step. It is bounded by
/// ``InspectorOptions/maximumSteps`` and ``InspectorOptions/maximumRuns``: past them the oldest are
/// dropped, and the page says how many. Values are redacted as the options say before they are
/// recorded. Redaction closures and `Mirror` run outside the recorder's lock.
///
/// One recorder can record several stores one after the other (as the Example does, a store per
/// scenario): call ``storeOptions(_:)`` for each new store, and the page marks where each begins
/// with a step named `store #2`, whose diff is the new store's initial state.
public final class InspectorRecorder<State: Sendable>: Sendable {
    let storage: LockedValue<InspectorStorage<State>>
    private let options: InspectorOptions<State>
    private let origin: ContinuousClock.Instant

    /// The middleware to install, last in the store's list. It passes each action on unchanged,
    /// then records it with the state it produced.
    public let middleware: Middleware<State>

    /// The event observer to install, as ``StoreOptions/onEvent`` or with `Store.observeEvents(_:)`:
    /// it records graph runs and async actions.
    public let onEvent: @Sendable (StoreEvent) -> Void

    /// Creates a recorder; recorded times count from this moment.
    /// - Parameter options: what to redact, and the bounds.
    public init(options: InspectorOptions<State> = InspectorOptions()) {
        let storage = LockedValue(InspectorStorage<State>(options: options))
        let origin = ContinuousClock.now
        let describer = Describer(options: options.limits)
        self.storage = storage
        self.options = options
        self.origin = origin
        self.middleware = Middleware { action, context, next in
            let (isFirst, storeChanged) = storage.withLock { ($0.previous == nil, $0.storeChanged) }
            if isFirst {
                let initial = options.redacted(context.state)
                let tree = describer.describe(initial, depth: 0)
                storage.withLock { $0.start(initial, tree) }
            } else if storeChanged {
                // Another store: a step from the last store's state to this one's.
                let time = origin.duration(to: .now)
                let initial = options.redacted(context.state)
                if let previous = storage.withLock({ $0.previous }) {
                    let patch = PatchBuilder(describer: describer).patch(from: previous, to: initial)
                    storage.withLock { storage in
                        let step = InspectorStep(
                            number: 0, time: time, actionType: "store #\(storage.store)",
                            action: .structure(type: "store #\(storage.store)", fields: []), patch: patch, origin: nil,
                            store: max(storage.store, 1), startsStore: true)
                        storage.append(step, state: initial)
                    }
                }
            }
            next(action)
            let time = origin.duration(to: .now)
            let from = SyncOrigin.current
            let recorded = options.actionRedaction?(action) ?? action
            let actionTree = describer.describe(recorded, depth: 0)
            let state = options.redacted(context.state)
            guard let previous = storage.withLock({ $0.previous }) else { return }
            let patch = PatchBuilder(describer: describer).patch(from: previous, to: state)
            storage.withLock { storage in
                let step = InspectorStep(
                    number: 0, time: time, actionType: String(describing: type(of: recorded)), action: actionTree,
                    patch: patch, origin: from, store: max(storage.store, 1), startsStore: false)
                storage.append(step, state: state)
            }
        }
        self.onEvent = { event in
            let time = origin.duration(to: .now)
            let record = InspectorEventRecord(event, time: time, describer: describer)
            storage.withLock { $0.record(record) }
        }
    }

    /// `base` with ``onEvent`` added to its event observer (the one already there is still called,
    /// first), for a new store: from now on, recorded actions and events are this store's.
    public func storeOptions(_ base: StoreOptions = StoreOptions()) -> StoreOptions {
        storage.withLock { $0.newStore() }
        var options = base
        let earlier = base.onEvent
        let onEvent = self.onEvent
        options.onEvent =
            if let earlier {
                { event in
                    earlier(event)
                    onEvent(event)
                }
            } else {
                onEvent
            }
        return options
    }

    /// What was recorded so far.
    public var recording: InspectorRecording {
        storage.withLock { $0.snapshot() }
    }

    /// Writes ``recording`` as one self-contained HTML page (see ``InspectorRecording/html(title:)``).
    /// - Parameters:
    ///   - url: the file to write; replaced if it exists.
    ///   - title: the page's title.
    public func writeHTML(to url: URL, title: String = "OresRedux recording") throws {
        try recording.writeHTML(to: url, title: title)
    }

    /// Forgets everything recorded; the next action starts a new recording from the state then.
    public func clear() {
        storage.withLock { $0 = InspectorStorage(options: options, stepObserver: $0.stepObserver) }
    }
}

/// What the recorder keeps, behind its lock.
struct InspectorStorage<State: Sendable>: Sendable {
    let maximumSteps: Int
    let maximumRuns: Int
    /// The last recorded state, redacted: the next step's patch starts from it.
    var previous: State?
    /// The state before the first step kept.
    var base: InspectorValue = .none(type: String(describing: State.self))
    var steps: [InspectorStep] = []
    var firstKept = 0
    var stepCount = 0
    var runs: [UInt64: InspectorRun] = [:]
    var asyncActions: [UInt64: InspectorAsyncAction] = [:]
    var droppedRuns = 0
    var droppedAsyncActions = 0
    /// Events recorded so far: the sequence number of the last one. Events reach the recorder in the
    /// order the store recorded them, but possibly after later steps (see `StoreEvent`), so this
    /// orders events among themselves exactly, where `at` (the step count) is only an upper bound.
    var eventCount = 0
    /// The store being recorded, from 1, and the one of the last step.
    var store = 0
    var lastStepStore = 0
    /// Told each step's number as it is appended, under the recorder's lock (see
    /// `InspectorRecorder.observeSteps`): it must only note it and return.
    var stepObserver: (@Sendable (_ number: Int, _ startsStore: Bool) -> Void)?

    /// The next action comes from another store than the last step.
    var storeChanged: Bool { store != lastStepStore && stepCount > 0 }

    mutating func newStore() {
        store += 1
    }

    /// Runs and async actions are numbered per store: the key tells stores apart.
    private var storeKey: UInt64 { UInt64(max(store, 1)) << 40 }

    init(
        options: InspectorOptions<State>,
        stepObserver: (@Sendable (_ number: Int, _ startsStore: Bool) -> Void)? = nil
    ) {
        maximumSteps = max(1, options.maximumSteps)
        maximumRuns = max(1, options.maximumRuns)
        self.stepObserver = stepObserver
    }

    mutating func start(_ state: State, _ tree: InspectorValue) {
        guard previous == nil else { return }
        previous = state
        base = tree
    }

    mutating func append(_ step: InspectorStep, state: State) {
        stepCount += 1
        lastStepStore = store
        var step = step
        step.number = stepCount
        steps.append(step)
        previous = state
        stepObserver?(stepCount, step.startsStore)
        if steps.count - firstKept > maximumSteps {
            base = steps[firstKept].patch.applied(to: base)
            firstKept += 1
            // Drop the dropped steps' storage now and then, not on every step.
            if firstKept >= 1_024 && firstKept * 2 >= steps.count {
                steps.removeFirst(firstKept)
                firstKept = 0
            }
        }
    }

    mutating func record(_ record: InspectorEventRecord) {
        let at = stepCount
        let store = max(self.store, 1)
        eventCount += 1
        let seq = eventCount
        switch record {
        case .runStarted(let id, let run):
            let id = id | storeKey
            var run = run
            run.startAt = at
            run.startSeq = seq
            run.store = store
            runs[id] = run
            if runs.count > maximumRuns, let oldest = runs.keys.min() {
                runs[oldest] = nil
                droppedRuns += 1
            }
        case .nodeStarted(let id, let node, var attempt):
            let id = id | storeKey
            attempt.at = at
            runs[id]?.nodes[node].attempts.append(attempt)
        case .nodeFinished(let id, let node, var end):
            let id = id | storeKey
            end.at = at
            end.seq = seq
            runs[id]?.nodes[node].end = end
        case .runFinished(let id, let finish):
            let id = id | storeKey
            guard var run = runs[id] else { return }
            run.finishAt = at
            run.finishSeq = seq
            run.summary = finish.summary
            run.chromeTrace = finish.chromeTrace
            run.duration = finish.duration
            for (index, times) in finish.times.enumerated() where index < run.nodes.count {
                run.nodes[index].start = times.start
                run.nodes[index].endTime = times.end
            }
            runs[id] = run
        case .actionStarted(let id, var action):
            let id = id | storeKey
            action.startAt = at
            action.startSeq = seq
            action.store = store
            asyncActions[id] = action
            if asyncActions.count > maximumRuns, let oldest = asyncActions.keys.min() {
                asyncActions[oldest] = nil
                droppedAsyncActions += 1
            }
        case .actionFinished(let id, var end, let time):
            let id = id | storeKey
            end.at = at
            end.seq = seq
            asyncActions[id]?.end = end
            asyncActions[id]?.endTime = time
        }
    }

    func snapshot() -> InspectorRecording {
        InspectorRecording(
            stateType: String(describing: State.self), base: base, steps: Array(steps[firstKept...]),
            droppedSteps: stepCount - (steps.count - firstKept), maximumSteps: maximumSteps,
            runs: runs.values.sorted { ($0.store, $0.id) < ($1.store, $1.id) },
            asyncActions: asyncActions.values.sorted { ($0.store, $0.id) < ($1.store, $1.id) },
            droppedRuns: droppedRuns, droppedAsyncActions: droppedAsyncActions)
    }
}

/// One action that reached the reducer, and the change it made.
struct InspectorStep: Sendable {
    /// From 1, counting the steps dropped before it.
    var number: Int
    /// Since the recorder was made.
    let time: Duration
    let actionType: String
    let action: InspectorValue
    let patch: InspectorPatch
    /// The run and node that applied it, if any.
    let origin: SyncOrigin?
    /// The store it was recorded in, from 1.
    var store = 1
    /// It marks where another store's recording begins (no action reached a reducer).
    var startsStore = false
}

/// A node's end: how, with what, and after which step.
struct InspectorNodeEnd: Sendable {
    let outcome: OutcomeKind
    let error: InspectorValue?
    let response: InspectorValue?
    /// Steps recorded when it was delivered.
    var at = 0
    /// Its place among the recorded events (see `InspectorStorage.eventCount`).
    var seq = 0
}

/// One attempt of a node (a sync node has one).
struct InspectorAttempt: Sendable {
    let number: Int
    /// Since the run started, on the store's clock.
    let time: Duration
    let backoff: Duration
    var at = 0
}

struct InspectorNode: Sendable {
    let index: Int
    let label: String
    let typeName: String
    let kind: NodeKind
    let prerequisites: [Int]
    var attempts: [InspectorAttempt] = []
    var end: InspectorNodeEnd?
    /// From the run's report, since the run started.
    var start: Duration?
    var endTime: Duration?
}

struct InspectorRun: Sendable {
    let id: UInt64
    /// The store it ran in, from 1 (run numbers start again in each store).
    var store = 1
    /// When the run's start was recorded, since the recorder was made.
    let time: Duration
    var nodes: [InspectorNode]
    var startAt = 0
    /// The places of its start and its finish among the recorded events.
    var startSeq = 0
    var finishSeq: Int?
    var finishAt: Int?
    var summary: String?
    var chromeTrace: String?
    var duration: Duration?
}

struct InspectorAsyncAction: Sendable {
    let id: UInt64
    var store = 1
    let name: String
    let action: InspectorValue
    let time: Duration
    var startAt = 0
    /// The place of its start among the recorded events.
    var startSeq = 0
    var end: InspectorNodeEnd?
    var endTime: Duration?
}

/// A store event, described outside the recorder's lock.
enum InspectorEventRecord: Sendable {
    struct Finish: Sendable {
        let summary: String
        let chromeTrace: String
        let duration: Duration?
        let times: [(start: Duration?, end: Duration?)]
    }

    case runStarted(UInt64, InspectorRun)
    case nodeStarted(UInt64, Int, InspectorAttempt)
    case nodeFinished(UInt64, Int, InspectorNodeEnd)
    case runFinished(UInt64, Finish)
    case actionStarted(UInt64, InspectorAsyncAction)
    case actionFinished(UInt64, InspectorNodeEnd, Duration)

    init(_ event: StoreEvent, time: Duration, describer: Describer) {
        switch event {
        case .runStarted(let info):
            let nodes = (0..<info.nodeCount).map { index in
                InspectorNode(
                    index: index, label: info.shape?.label(index) ?? "node \(index)",
                    typeName: info.shape?.typeName(index) ?? "", kind: info.shape?.kind(index) ?? .async,
                    prerequisites: info.shape?.prerequisites(index) ?? [])
            }
            self = .runStarted(info.id.rawValue, InspectorRun(id: info.id.rawValue, time: time, nodes: nodes))
        case .nodeStarted(let info, let start):
            self = .nodeStarted(
                info.id.rawValue, start.index,
                InspectorAttempt(number: start.attempt, time: start.time, backoff: start.backoff))
        case .nodeFinished(let info, let node):
            self = .nodeFinished(info.id.rawValue, node.index, Self.end(node.outcome, describer))
        case .runFinished(let info, let report):
            self = .runFinished(
                info.id.rawValue,
                Finish(
                    summary: report.summary, chromeTrace: report.chromeTrace, duration: report.duration,
                    times: report.map { (start: $0.start, end: $0.end) }))
        case .actionStarted(let info):
            self = .actionStarted(
                info.id.rawValue,
                InspectorAsyncAction(
                    id: info.id.rawValue, name: info.name, action: describer.describe(info.action, depth: 0), time: time
                ))
        case .actionFinished(let info, let outcome):
            self = .actionFinished(info.id.rawValue, Self.end(outcome, describer), time)
        }
    }

    private static func end(_ outcome: Outcome<any Sendable>, _ describer: Describer) -> InspectorNodeEnd {
        switch outcome {
        case .succeeded(let value):
            let response: InspectorValue? = value is Void ? nil : describer.describe(value, depth: 0)
            return InspectorNodeEnd(outcome: .succeeded, error: nil, response: response)
        case .failed(let error):
            return InspectorNodeEnd(outcome: .failed, error: describer.describe(error, depth: 0), response: nil)
        case .skipped, .cancelled:
            return InspectorNodeEnd(outcome: outcome.kind, error: nil, response: nil)
        }
    }
}
