/// One thing to do after an event of a run, as ``RunStateMachine`` decided it.
///
/// The machine returns an event's steps as ``RunSteps``, in the order they must be done; the run's
/// observers (the durable journal, the run-event recorder) see every step under the run's lock,
/// and the shell (``GraphRun``) performs them after releasing it, with one `switch`.
enum RunStep: Equatable {
    /// The app cancelled the run (`byStoreRelease`: the store's release did), and the cancel
    /// counted: the run had not finished. A cancel that did not count has no step.
    case runCancelled(byStoreRelease: Bool)
    /// An attempt of a node starts (a sync node has one).
    case attemptStarted(AttemptStart)
    /// A node became terminal (listed only for an observed run).
    case nodeEnded(Int)
    /// Every node is terminal and every fallback was applied.
    case runFinished
    /// Wait until no reducer of the store is in progress: once a cancel's steps are done, none of
    /// the run's fallbacks is being reduced, and none can start.
    case awaitReducerInProgress
    /// Start a task for this async, delay or join node.
    case startTask(Int)
    /// Cancel the tasks of the nodes the cancel ended in flight (``RunSteps/cancelWorkers``).
    case cancelTasks
    /// The task that ran the node that just ended runs this node next.
    case handOn(Int)
    /// Deliver the events the observers queued.
    case deliverEvents
    /// Put the run in the store's pipeline: it has ready sync work.
    case schedule
    /// Ask the store to hand back the waiters the run holds once the pipeline is left.
    case holdWaitersUntilPipelineExit
    /// Resume these waiters now.
    case resume([RunStateMachine.Waiter])
    /// Resume these waiters behind the events queued so far (an observed run's).
    case resumeBehindEvents([RunStateMachine.Waiter])
    /// Resume the waiter whose wait was the event: it need not wait (behind the events queued so
    /// far when the run is observed).
    case resumeCaller(behindEvents: Bool)
    /// Leave the store's registry of runs.
    case leaveRegistry
    /// Apply this sync item through the pipeline now (the pipeline's applier thread).
    case apply(RunStateMachine.SyncItem)
    /// Go back in line behind the work the store has queued (the run stays scheduled).
    case yieldToQueuedWork

    /// A step without its payload (``RunSteps`` keeps the payloads): the order of the cases is the
    /// order in which an event's steps are done. `resume` stands for both kinds of resume.
    enum Kind: Int {
        case runCancelled, attemptStarted, nodeEnded, runFinished, awaitReducerInProgress, startTask
        case cancelTasks, handOn, deliverEvents, schedule, holdWaitersUntilPipelineExit, resume
        case resumeCaller, leaveRegistry, apply, yieldToQueuedWork
    }
}

/// An attempt as it starts: its number, which counts every attempt of the node, those of a
/// durable run's earlier launches included, and its number in this launch (what the retry
/// policy's backoff counts).
struct AttemptStart: Equatable, Sendable {
    let node: Int
    let attempt: Int
    let inLaunch: Int
}

/// What a durable run brings from its earlier launches into its machine's start.
struct EarlierLaunches: Sendable {
    /// The nodes that ended before this launch, in graph order.
    var endedBefore: [RunStateMachine.EndedBefore] = []
    /// Per async node, the attempts journaled before: its next attempt continues their numbers.
    var attemptsMade: [Int: Int] = [:]
    /// Per async node, the attempts that failed before: they count towards its retry policy.
    var attemptsFailed: [Int: Int] = [:]
}

/// The events a run's shell feeds its machine, one at a time, under the run's lock.
enum RunEvent {
    case start(now: Duration, earlier: EarlierLaunches)
    case cancel(now: Duration, byStoreRelease: Bool)
    /// The pipeline reached the run's token.
    case takeSyncItem(now: Duration)
    case syncItemApplied(RunStateMachine.SyncItem, now: Duration, queuedWork: Bool)
    /// An async node's task is about to make an attempt.
    case attemptStarting(node: Int, now: Duration)
    case asyncFinished(node: Int, Result<ResponseSlot, any Error>, now: Duration, handsOn: Bool)
    case awaitNode(Int, RunStateMachine.Waiter)
    case awaitFinish(RunStateMachine.Waiter)
}

/// An event's steps, in the order they must be done.
///
/// Kept as fields rather than a list, so that an event allocates nothing unless it names nodes or
/// waiters and copies nothing to be walked: ``kinds`` lists the kinds of step present, in the one
/// order the machine decides (what observers record first, then the tasks, the events' delivery,
/// the pipeline, the waiters behind the events and the sync work they wait for, the registry, and
/// the pipeline's next item), and the fields hold their nodes and waiters. Iterating yields the
/// same steps as ``RunStep``s, one per node or waiter list.
struct RunSteps: Sequence {
    /// The kinds of step that carry no payload, as they are set; ``kinds`` adds those of the fields.
    private var flags = Kinds()
    /// Whether the store's release caused the cancel, when one counted (see ``cancelledByStoreRelease``).
    private var byStoreRelease = false
    var attemptStarted: AttemptStart? = nil
    /// Nodes that just became terminal, in the order they did; filled only when the run is
    /// observed (``RunStateMachine/isObserved``).
    var ended: [Int] = []
    /// Async, delay and join nodes that just started: run each on a task.
    var startAsync: [Int] = []
    /// Async nodes in flight that were cancelled: cancel their tasks.
    var cancelWorkers: [Int] = []
    /// An async node that just started, for the task whose node's end started it to run next
    /// (see ``RunStateMachine/asyncFinished(_:_:now:handsOn:)``); not in `startAsync`.
    var handedOn: Int? = nil
    /// Waiters whose node (or the whole run) is terminal now.
    var resume: [RunStateMachine.Waiter] = []
    /// What the pipeline does next, after a sync item was taken or applied; `nil` for other events.
    var syncStep: RunStateMachine.SyncStep? = nil

    /// The cancel counted, and whether the store's release was its cause (see
    /// ``RunStep/runCancelled(byStoreRelease:)``); `nil` for other events.
    var cancelledByStoreRelease: Bool? {
        get { flags.contains(.runCancelled) ? byStoreRelease : nil }
        set {
            flags.set(.runCancelled, newValue != nil)
            byStoreRelease = newValue ?? false
        }
    }
    /// The run just finished (it then leaves the store's registry).
    var finished: Bool {
        get { flags.contains(.runFinished) }
        set {
            flags.set(.runFinished, newValue)
            flags.set(.leaveRegistry, newValue)
        }
    }
    /// A cancel: wait for a reducer call in progress before anything else.
    var awaitsReducer: Bool {
        get { flags.contains(.awaitReducerInProgress) }
        set { flags.set(.awaitReducerInProgress, newValue) }
    }
    /// The run is observed: deliver the events its observers queued, and resume waiters behind them.
    var observed: Bool {
        get { flags.contains(.deliverEvents) }
        set { flags.set(.deliverEvents, newValue) }
    }
    /// Sync work became ready while the run was not scheduled: put the run in the store's pipeline.
    var schedule: Bool {
        get { flags.contains(.schedule) }
        set { flags.set(.schedule, newValue) }
    }
    /// The event came from a thread applying actions in the store's pipeline, and the run now
    /// holds its waiters until that thread leaves it (see ``RunStateMachine/holdWaiters(insidePipeline:_:)``).
    var holdsWaiters: Bool {
        get { flags.contains(.holdWaitersUntilPipelineExit) }
        set { flags.set(.holdWaitersUntilPipelineExit, newValue) }
    }
    /// The waiter whose wait was the event resumes now.
    var resumesCaller: Bool {
        get { flags.contains(.resumeCaller) }
        set { flags.set(.resumeCaller, newValue) }
    }

    /// The kinds of step this event lists, in the order they are done.
    var kinds: Kinds {
        var kinds = flags
        if attemptStarted != nil { kinds.set(.attemptStarted, true) }
        if !ended.isEmpty { kinds.set(.nodeEnded, true) }
        if !startAsync.isEmpty { kinds.set(.startTask, true) }
        if !cancelWorkers.isEmpty { kinds.set(.cancelTasks, true) }
        if handedOn != nil { kinds.set(.handOn, true) }
        if !resume.isEmpty { kinds.set(.resume, true) }
        switch syncStep {
        case .apply: kinds.set(.apply, true)
        case .yield: kinds.set(.yieldToQueuedWork, true)
        case .idle, nil: break
        }
        return kinds
    }

    /// A set of step kinds, one bit each, that yields them in the order they are done.
    struct Kinds: Sequence, IteratorProtocol {
        private var bits: UInt16 = 0

        mutating func set(_ kind: RunStep.Kind, _ present: Bool) {
            if present { bits |= 1 << kind.rawValue } else { bits &= ~(1 << kind.rawValue) }
        }

        func contains(_ kind: RunStep.Kind) -> Bool { bits & (1 << kind.rawValue) != 0 }

        mutating func next() -> RunStep.Kind? {
            guard bits != 0 else { return nil }
            let kind = RunStep.Kind(rawValue: bits.trailingZeroBitCount)!
            bits &= bits - 1
            return kind
        }
    }

    /// The step of `kind` with its payload; for the kinds that list nodes, the one at `index`.
    /// `kind` is one of ``kinds``.
    func step(_ kind: RunStep.Kind, at index: Int = 0) -> RunStep {
        switch kind {
        case .runCancelled: .runCancelled(byStoreRelease: cancelledByStoreRelease ?? false)
        case .attemptStarted: .attemptStarted(attemptStarted!)
        case .nodeEnded: .nodeEnded(ended[index])
        case .runFinished: .runFinished
        case .awaitReducerInProgress: .awaitReducerInProgress
        case .startTask: .startTask(startAsync[index])
        case .cancelTasks: .cancelTasks
        case .handOn: .handOn(handedOn!)
        case .deliverEvents: .deliverEvents
        case .schedule: .schedule
        case .holdWaitersUntilPipelineExit: .holdWaitersUntilPipelineExit
        case .resume: observed ? .resumeBehindEvents(resume) : .resume(resume)
        case .resumeCaller: .resumeCaller(behindEvents: observed)
        case .leaveRegistry: .leaveRegistry
        case .apply:
            if case .apply(let item) = syncStep {
                .apply(item)
            } else {
                preconditionFailure("OresRedux: no item to apply")
            }
        case .yieldToQueuedWork: .yieldToQueuedWork
        }
    }

    /// How many steps of `kind` there are: one per node for the kinds that list nodes.
    private func count(of kind: RunStep.Kind) -> Int {
        switch kind {
        case .nodeEnded: ended.count
        case .startTask: startAsync.count
        default: 1
        }
    }

    func makeIterator() -> Iterator { Iterator(steps: self) }

    struct Iterator: IteratorProtocol {
        let steps: RunSteps
        private var kinds: Kinds
        private var current: (kind: RunStep.Kind, index: Int)?

        init(steps: RunSteps) {
            self.steps = steps
            self.kinds = steps.kinds
        }

        mutating func next() -> RunStep? {
            if let (kind, index) = current, index < steps.count(of: kind) {
                current = (kind, index + 1)
                return steps.step(kind, at: index)
            }
            guard let kind = kinds.next() else { return nil }
            current = (kind, 1)
            return steps.step(kind)
        }
    }
}
