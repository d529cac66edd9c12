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
/// Recording is opt-in: a store without it pays nothing. With it, **the dispatching thread pays for
/// keeping the state value and a small constant**: the middleware keeps the action, the state after
/// it (a copy on write: the store's next change to a part the recording still holds copies that
/// part) and the time, in a queue. Redaction, `Mirror` and the diff run later, off that thread: on
/// a background worker that starts a millisecond after a step is queued and never blocks a
/// dispatch, or on the thread that reads ``recording`` or calls ``writeHTML(to:title:)``, which
/// first describe every step queued before the call, so both return everything recorded before
/// they were called. The diff walks the parts of the state that changed (an `Equatable` part that
/// is equal is skipped whole) and the recorder keeps one patch per step, not a state per step.
///
/// It is bounded by ``InspectorOptions/maximumSteps`` and ``InspectorOptions/maximumRuns``: past
/// them the oldest are dropped, and the page says how many. The queue holds at most
/// ``InspectorOptions/maximumQueuedSteps`` states (1,024 by default; they share what did not
/// change): when describing falls behind dispatching (a state that changes in many places on every
/// action, a busy machine), the dispatching thread past that bound describes the waiting steps
/// itself before it returns, so memory stays bounded and the app slows instead. Values are
/// redacted as the options say before they are recorded; the store's state is never changed.
/// Redaction closures and `Mirror` run outside the recorder's lock, and must not read the recorder.
///
/// One recorder can record several stores one after the other (as the Example does, a store per
/// scenario): call ``storeOptions(_:)`` for each new store, and the page marks where each begins
/// with a step named `store #2`, whose diff is the new store's initial state.
public final class InspectorRecorder<State: Sendable>: Sendable {
    let storage: InspectorQueue<State>
    private let options: InspectorOptions<State>
    private let origin: ContinuousClock.Instant

    /// The middleware to install, last in the store's list. It passes each action on unchanged,
    /// then queues it with the state it produced, to be described off the dispatching thread.
    public let middleware: Middleware<State>

    /// The event observer to install, as ``StoreOptions/onEvent`` or with `Store.observeEvents(_:)`:
    /// it records graph runs and async actions.
    public let onEvent: @Sendable (StoreEvent) -> Void

    /// Creates a recorder; recorded times count from this moment.
    /// - Parameter options: what to redact, and the bounds.
    public convenience init(options: InspectorOptions<State> = InspectorOptions()) {
        self.init(options: options, processInBackground: true)
    }

    /// - Parameter processInBackground: whether a worker describes queued steps as they come
    ///   (`false`: only when the recording is read, so tests can see the queue's bound at work and
    ///   the Benchmarks can time the dispatching thread with no worker beside it).
    package init(options: InspectorOptions<State>, processInBackground: Bool) {
        let origin = ContinuousClock.now
        let describer = Describer(options: options.limits)
        let storage = InspectorQueue<State>(options: options, background: processInBackground)
        self.storage = storage
        self.options = options
        self.origin = origin
        self.middleware = Middleware { action, context, next in
            let before = context.state
            next(action)
            let time = origin.duration(to: .now)
            let from = SyncOrigin.current
            let after = context.state
            storage.enqueue(action: action, before: before, after: after, time: time, origin: from)
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

    /// What was recorded so far: every step queued before this call is described first (on this
    /// thread, or by the worker if it is already at it), so none is missing.
    public var recording: InspectorRecording {
        storage.drainQueued()
        return storage.withLock { $0.snapshot() }
    }

    /// Writes ``recording`` as one self-contained HTML page (see ``InspectorRecording/html(title:)``):
    /// every step queued before the call is in it.
    /// - Parameters:
    ///   - url: the file to write; replaced if it exists.
    ///   - title: the page's title.
    public func writeHTML(to url: URL, title: String = "OresRedux recording") throws {
        try recording.writeHTML(to: url, title: title)
    }

    /// Forgets everything recorded (and queued); the next action starts a new recording from the
    /// state then.
    public func clear() {
        storage.withLock {
            $0 = InspectorStorage(options: options, epoch: $0.epoch &+ 1, stepObserver: $0.stepObserver)
        }
    }
}

/// A step as the dispatching thread leaves it: the values kept, nothing described.
struct PendingStep<State: Sendable>: Sendable {
    let number: Int
    let time: Duration
    /// `nil` for the step that marks where another store begins.
    let action: (any Action)?
    /// The state after the action (or the new store's initial state), not redacted.
    let state: State
    let origin: SyncOrigin?
    let store: Int
}

/// The recorder's storage behind a pthread lock, with a condition to wait for the one thread that
/// describes queued steps at a time (the worker, or a reader of the recording).
// Why this is safe to share: `value` is read and written only under `lock` (in `withLock`, and in
// `drain`, which releases the lock around the work it took out of `value` and owns meanwhile);
// `lock` and `condition` are made to be used from several threads.
final class InspectorQueue<State: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private let condition = Condition()
    private var value: InspectorStorage<State>
    private let options: InspectorOptions<State>
    private let describer: Describer
    private let background: Bool
    private let maximumQueued: Int

    init(options: InspectorOptions<State>, background: Bool) {
        value = InspectorStorage(options: options)
        self.options = options
        describer = Describer(options: options.limits)
        self.background = background
        maximumQueued = max(1, min(options.maximumQueuedSteps, options.maximumSteps))
    }

    func withLock<T>(_ body: (inout InspectorStorage<State>) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// On the dispatching thread: queues the step (and the initial state or a new store's step
    /// before it, when due); starts the worker if none is on its way. Constant time, unless more
    /// than `maximumQueuedSteps` wait: then this thread describes them (or waits for the worker
    /// that is at it), so the queue's memory stays bounded.
    func enqueue(action: any Action, before: State, after: State, time: Duration, origin: SyncOrigin?) {
        lock.lock()
        value.enqueue(action: action, before: before, after: after, time: time, origin: origin)
        let start = background && !value.workerScheduled
        if start { value.workerScheduled = true }
        let full = value.queued > maximumQueued
        lock.unlock()
        if start {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
                drain(.worker)
            }
        }
        if full { drain(.overflow) }
    }

    /// Describes every step queued before this call (waiting for the worker if it is at it).
    func drainQueued() {
        let target = withLock { $0.enqueued }
        drain(.through(target))
    }

    enum Until {
        /// Until step `number` is described: a reader.
        case through(Int)
        /// Until the queue is empty: the worker.
        case worker
        /// Until no more than `maximumQueuedSteps` wait: a dispatching thread, past the bound.
        case overflow
    }

    /// Describes queued steps, one batch at a time, until `until` holds. One thread describes at a
    /// time; the others wait.
    private func drain(_ until: Until) {
        lock.lock()
        while true {
            if value.draining {
                condition.wait(releasing: lock)
                continue
            }
            switch until {
            case .through(let target) where value.stepCount >= target: break
            case .overflow where value.queued <= maximumQueued: break
            default:
                guard var round = value.beginRound() else {
                    if case .worker = until { value.workerScheduled = false }
                    lock.unlock()
                    return
                }
                lock.unlock()
                round.process(options: options, describer: describer)
                lock.lock()
                value.land(round)
                condition.broadcast()
                continue
            }
            break
        }
        lock.unlock()
    }
}

/// What the recorder keeps, behind its lock.
struct InspectorStorage<State: Sendable>: Sendable {
    let maximumSteps: Int
    let maximumRuns: Int
    /// Changes on `clear()`: a batch described before it is not landed after it.
    var epoch = 0
    /// The last described state, redacted: the next step's patch starts from it.
    var previous: State?
    /// The state before the first step kept.
    var base: InspectorValue = .none(type: String(describing: State.self))
    var steps: [InspectorStep] = []
    var firstKept = 0
    /// The number of the last step described (the steps queued after it are in `pending`).
    var stepCount = 0
    var runs: [UInt64: InspectorRun] = [:]
    var asyncActions: [UInt64: InspectorAsyncAction] = [:]
    var droppedRuns = 0
    var droppedAsyncActions = 0
    /// The store being recorded, from 1, and the one of the last step.
    var store = 0
    var lastStepStore = 0
    /// Events recorded so far: the sequence number of the last one. Events reach the recorder in the
    /// order the store recorded them, but possibly after later steps (see `StoreEvent`), so this
    /// orders events among themselves exactly, where `at` (the step count) is only an upper bound.
    var eventCount = 0
    /// Told each step's number as it is appended (as its described batch lands), under the
    /// recorder's lock (see `InspectorRecorder.observeSteps`): it must only note it and return.
    var stepObserver: (@Sendable (_ number: Int, _ startsStore: Bool) -> Void)?

    // The queue: steps the dispatching threads left, not described yet.
    /// The number of the last step queued (described or not).
    var enqueued = 0
    var pending: [PendingStep<State>?] = []
    var pendingHead = 0
    /// The state (not redacted) before `pending[pendingHead]` and its step's number, when the steps
    /// before it are gone (the first action: the initial state; or all dropped past the bound):
    /// the next batch starts from it, and everything described before it is dropped.
    var pendingBase: (number: Int, state: State)?
    /// How many steps the batch being described adds to the kept ones when it lands: its steps,
    /// less the kept steps it drops.
    var inFlight = 0
    /// The oldest kept steps to drop when the batch being described lands.
    var dropDescribed = 0
    var draining = false
    var workerScheduled = false

    /// The next action comes from another store than the last step.
    var storeChanged: Bool { store != lastStepStore && enqueued > 0 }

    mutating func newStore() {
        store += 1
    }

    /// Runs and async actions are numbered per store: the key tells stores apart.
    private var storeKey: UInt64 { UInt64(max(store, 1)) << 40 }

    init(
        options: InspectorOptions<State>, epoch: Int = 0,
        stepObserver: (@Sendable (_ number: Int, _ startsStore: Bool) -> Void)? = nil
    ) {
        maximumSteps = max(1, options.maximumSteps)
        maximumRuns = max(1, options.maximumRuns)
        self.epoch = epoch
        self.stepObserver = stepObserver
    }

    /// Steps queued and not taken out yet.
    var queued: Int { pending.count - pendingHead }

    mutating func enqueue(action: any Action, before: State, after: State, time: Duration, origin: SyncOrigin?) {
        if enqueued == 0 && pendingBase == nil && previous == nil {
            pendingBase = (0, before)
        } else if storeChanged {
            // Another store: a step from the last store's state to this one's.
            push(time: time, action: nil, state: before, origin: nil)
        }
        push(time: time, action: action, state: after, origin: origin)
    }

    private mutating func push(time: Duration, action: (any Action)?, state: State, origin: SyncOrigin?) {
        enqueued += 1
        lastStepStore = store
        pending.append(
            PendingStep(
                number: enqueued, time: time, action: action, state: state, origin: origin, store: max(store, 1)))
        // Past the bound, the oldest step goes: a described one (when its batch lands), or else the
        // oldest queued one, whose state becomes the one the rest start from.
        let described = pendingBase == nil ? steps.count - firstKept + inFlight - dropDescribed : 0
        guard described + queued > maximumSteps else { return }
        if described > 0 {
            dropDescribed += 1
        } else if let oldest = pending[pendingHead] {
            pendingBase = (oldest.number, oldest.state)
            pending[pendingHead] = nil
            pendingHead += 1
            if pendingHead >= 1_024 && pendingHead * 2 >= pending.count {
                pending.removeFirst(pendingHead)
                pendingHead = 0
            }
        }
    }

    /// The most steps one round describes: a thread that waits for the round (a reader, or a
    /// dispatching thread past `maximumQueuedSteps`) waits for no more than this many, whatever
    /// the priority of the thread describing them.
    static var batchLimit: Int { 256 }

    /// Takes the oldest queued steps out to be described, or `nil` when there are none.
    mutating func beginRound() -> InspectorRound<State>? {
        guard queued > 0 || pendingBase != nil else { return nil }
        let end = min(pending.count, pendingHead + Self.batchLimit)
        let batch = pending[pendingHead..<end].compactMap { $0 }
        if end == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        } else {
            for index in pendingHead..<end { pending[index] = nil }
            pendingHead = end
        }
        let start = pendingBase
        pendingBase = nil
        // Dropped steps' patches move the base on; those dropped from this batch are applied to it
        // as it is described.
        let drops = start == nil ? dropDescribed : 0
        dropDescribed = 0
        let fromKept = min(drops, steps.count - firstKept)
        let round = InspectorRound(
            epoch: epoch, batch: batch, start: start, previous: previous, through: stepCount, base: base,
            dropping: Array(steps[firstKept..<(firstKept + fromKept)]), dropsFromBatch: drops - fromKept)
        base = .redacted  // the round owns it until it lands
        inFlight = batch.count - drops
        draining = true
        return round
    }

    /// Keeps what a round described.
    mutating func land(_ round: InspectorRound<State>) {
        guard round.epoch == epoch else { return }  // cleared meanwhile
        draining = false
        inFlight = 0
        if round.start != nil {
            steps = []
            firstKept = 0
        }
        firstKept += round.dropping.count
        base = round.base
        previous = round.previous
        for step in round.described { append(step) }
        stepCount = round.through
        if firstKept >= 1_024 && firstKept * 2 >= steps.count {
            // Drop the dropped steps' storage now and then, not on every step.
            steps.removeFirst(firstKept)
            firstKept = 0
        }
    }

    mutating func append(_ step: InspectorStep) {
        steps.append(step)
        stepObserver?(step.number, step.startsStore)
    }

    mutating func record(_ record: InspectorEventRecord) {
        let at = enqueued
        let store = max(self.store, 1)
        eventCount += 1
        let seq = eventCount
        switch record {
        case .runStarted(let id, var run):
            run.start.place(in: store, at: at, seq: seq)
            Self.keep(run, as: id | storeKey, in: &runs, maximum: maximumRuns, dropped: &droppedRuns)
        case .actionStarted(let id, var action):
            action.start.place(in: store, at: at, seq: seq)
            Self.keep(action, as: id | storeKey, in: &asyncActions, maximum: maximumRuns, dropped: &droppedAsyncActions)
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
        case .actionFinished(let id, var end, let time):
            let id = id | storeKey
            end.at = at
            end.seq = seq
            asyncActions[id]?.end = end
            asyncActions[id]?.endTime = time
        }
    }

    /// Keeps `value` as `key`, dropping the oldest kept (the lowest key) past `maximum`.
    private static func keep<Value>(
        _ value: Value, as key: UInt64, in kept: inout [UInt64: Value], maximum: Int, dropped: inout Int
    ) {
        kept[key] = value
        if kept.count > maximum, let oldest = kept.keys.min() {
            kept[oldest] = nil
            dropped += 1
        }
    }

    func snapshot() -> InspectorRecording {
        InspectorRecording(
            stateType: String(describing: State.self), base: base, steps: Array(steps[firstKept...]),
            droppedSteps: stepCount - (steps.count - firstKept), maximumSteps: maximumSteps,
            runs: runs.values.sorted { InspectorStart.isOrdered($0.start, before: $1.start) },
            asyncActions: asyncActions.values.sorted { InspectorStart.isOrdered($0.start, before: $1.start) },
            droppedRuns: droppedRuns, droppedAsyncActions: droppedAsyncActions)
    }
}

/// One batch of queued steps, described outside the lock by the one thread that took it.
struct InspectorRound<State: Sendable> {
    let epoch: Int
    let batch: [PendingStep<State>]
    let start: (number: Int, state: State)?
    /// The redacted state before the batch, then after it.
    var previous: State?
    /// The number of the last step described, then of the batch's last.
    var through: Int
    /// The state before the first step kept, then after the drops.
    var base: InspectorValue
    /// Kept steps dropped now: their patches move the base on.
    let dropping: [InspectorStep]
    /// How many of the batch's first steps are dropped as soon as they are described.
    var dropsFromBatch: Int
    var described: [InspectorStep] = []

    init(
        epoch: Int, batch: [PendingStep<State>], start: (number: Int, state: State)?, previous: State?,
        through: Int, base: InspectorValue, dropping: [InspectorStep], dropsFromBatch: Int
    ) {
        self.epoch = epoch
        self.batch = batch
        self.start = start
        self.previous = previous
        self.through = through
        self.base = base
        self.dropping = dropping
        self.dropsFromBatch = dropsFromBatch
    }

    /// Redacts, describes and diffs the batch: user code (redaction, `Mirror`, `==`) runs here.
    mutating func process(options: InspectorOptions<State>, describer: Describer) {
        if let start {
            let state = options.redacted(start.state)
            base = describer.describe(state, depth: 0)
            previous = state
            through = start.number
        }
        for step in dropping { step.patch.apply(to: &base) }
        let builder = PatchBuilder(describer: describer)
        described.reserveCapacity(batch.count)
        for pending in batch {
            let state = options.redacted(pending.state)
            let patch = previous.map { builder.patch(from: $0, to: state) } ?? InspectorPatch(edits: [])
            let step: InspectorStep
            if let action = pending.action {
                let recorded = options.actionRedaction?(action) ?? action
                step = InspectorStep(
                    number: pending.number, time: pending.time, actionType: String(describing: type(of: recorded)),
                    action: describer.describe(recorded, depth: 0), patch: patch, origin: pending.origin,
                    store: pending.store, startsStore: false, isInspectors: action is any InspectorSessionAction)
            } else {
                let name = "store #\(pending.store)"
                step = InspectorStep(
                    number: pending.number, time: pending.time, actionType: name,
                    action: .structure(type: name, fields: []), patch: patch, origin: nil, store: pending.store,
                    startsStore: true)
            }
            previous = state
            through = pending.number
            if dropsFromBatch > 0 {
                patch.apply(to: &base)
                dropsFromBatch -= 1
            } else {
                described.append(step)
            }
        }
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
    var origin: SyncOrigin?
    /// The store it was recorded in, from 1.
    var store = 1
    /// It marks where another store's recording begins (no action reached a reducer).
    var startsStore = false
    /// Its action is an inspector's, not the app's (``InspectorSessionAction``): a generated test
    /// starts after the last such step.
    var isInspectors = false
}

/// An action that an inspector dispatches into the app it inspects, not the app's own: a jump to a
/// recorded state, the resumption of a paused recording. A test cannot replay it, so a generated test
/// starts after the last one, from the state it left.
package protocol InspectorSessionAction: Action {}

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

/// Where a graph run or an async action dispatched on its own starts in a recording.
struct InspectorStart: Sendable {
    /// Its number in its store (numbers start again in each store).
    let id: UInt64
    /// The store it ran in, from 1.
    var store = 1
    /// When its start was recorded, since the recorder was made.
    let time: Duration
    /// Steps recorded when its start was delivered.
    var at = 0
    /// Its place among the recorded events (see `InspectorStorage.eventCount`).
    var seq = 0

    /// Places it in `store`, after `at` steps, as the `seq`th recorded event.
    mutating func place(in store: Int, at: Int, seq: Int) {
        self.store = store
        self.at = at
        self.seq = seq
    }

    /// Store first, then number: the order the page and the generated test list them in.
    static func isOrdered(_ first: InspectorStart, before second: InspectorStart) -> Bool {
        (first.store, first.id) < (second.store, second.id)
    }
}

struct InspectorRun: Sendable {
    var start: InspectorStart
    var nodes: [InspectorNode]
    /// The name of the owner the run was dispatched under, if any.
    var owner: String?
    /// The place of its finish among the recorded events.
    var finishSeq: Int?
    var finishAt: Int?
    var summary: String?
    var chromeTrace: String?
    var duration: Duration?
}

struct InspectorAsyncAction: Sendable {
    var start: InspectorStart
    let name: String
    let action: InspectorValue
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
            self = .runStarted(
                info.id.rawValue,
                InspectorRun(
                    start: InspectorStart(id: info.id.rawValue, time: time), nodes: nodes, owner: info.owner))
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
                    summary: report.summary,
                    // Its errors as the recording shows them: redacted, never their own description.
                    chromeTrace: report.chromeTrace(describingErrors: { describer.describe($0, depth: 0).summary }),
                    duration: report.duration,
                    times: report.map { (start: $0.start, end: $0.end) }))
        case .actionStarted(let info):
            self = .actionStarted(
                info.id.rawValue,
                InspectorAsyncAction(
                    start: InspectorStart(id: info.id.rawValue, time: time), name: info.name,
                    action: describer.describe(info.action, depth: 0)))
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
