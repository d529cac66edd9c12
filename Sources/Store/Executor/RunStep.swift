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
    /// The owner the run was dispatched under ended; each node's policy, for the nodes that set one.
    case ownerEnded(now: Duration, policies: [Int: OwnerEndPolicy])
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
/// Kept as fields rather than an array, so that an event allocates nothing unless it lists
/// nodes or waiters; iterating yields them as ``RunStep``s in the one order the machine decides:
/// what observers record first, then the tasks, the events' delivery, the pipeline, the waiters
/// (behind the events and the sync work they wait for), the registry, and the pipeline's next item.
struct RunSteps: Sequence {
    /// The cancel counted, and whether the store's release was its cause (see
    /// ``RunStep/runCancelled(byStoreRelease:)``); `nil` for other events.
    var cancelledByStoreRelease: Bool? = nil
    var attemptStarted: AttemptStart? = nil
    /// Nodes that just became terminal, in the order they did; filled only when the run is
    /// observed (``RunStateMachine/isObserved``).
    var ended: [Int] = []
    /// The run just finished.
    var finished = false
    /// A cancel: wait for a reducer call in progress before anything else.
    var awaitsReducer = false
    /// Async, delay and join nodes that just started: run each on a task.
    var startAsync: [Int] = []
    /// Async nodes in flight that were cancelled: cancel their tasks.
    var cancelWorkers: [Int] = []
    /// An async node that just started, for the task whose node's end started it to run next
    /// (see ``RunStateMachine/asyncFinished(_:_:now:handsOn:)``); not in `startAsync`.
    var handedOn: Int? = nil
    /// The run is observed: deliver the events its observers queued, and resume waiters behind them.
    var observed = false
    /// Sync work became ready while the run was not scheduled: put the run in the store's pipeline.
    var schedule = false
    /// The event came from a thread applying actions in the store's pipeline, and the run now
    /// holds its waiters until that thread leaves it (see ``RunStateMachine/holdWaiters(insidePipeline:_:)``).
    var holdsWaiters = false
    /// Waiters whose node (or the whole run) is terminal now.
    var resume: [RunStateMachine.Waiter] = []
    /// The waiter whose wait was the event resumes now.
    var resumesCaller = false
    /// What the pipeline does next, after a sync item was taken or applied; `nil` for other events.
    var syncStep: RunStateMachine.SyncStep? = nil

    func makeIterator() -> Iterator { Iterator(steps: self) }

    struct Iterator: IteratorProtocol {
        let steps: RunSteps
        /// Which group of steps comes next, and the position in that group's list.
        private var group = 0
        private var index = 0

        init(steps: RunSteps) { self.steps = steps }

        mutating func next() -> RunStep? {
            while true {
                defer { index += 1 }
                let at = index
                switch group {
                case 0:
                    if let byStoreRelease = steps.cancelledByStoreRelease, at == 0 {
                        return .runCancelled(byStoreRelease: byStoreRelease)
                    }
                case 1:
                    if let started = steps.attemptStarted, at == 0 { return .attemptStarted(started) }
                case 2:
                    if at < steps.ended.count { return .nodeEnded(steps.ended[at]) }
                case 3:
                    if steps.finished, at == 0 { return .runFinished }
                case 4:
                    if steps.awaitsReducer, at == 0 { return .awaitReducerInProgress }
                case 5:
                    if at < steps.startAsync.count { return .startTask(steps.startAsync[at]) }
                case 6:
                    if !steps.cancelWorkers.isEmpty, at == 0 { return .cancelTasks }
                case 7:
                    if let next = steps.handedOn, at == 0 { return .handOn(next) }
                case 8:
                    if steps.observed, at == 0 { return .deliverEvents }
                case 9:
                    if steps.schedule, at == 0 { return .schedule }
                case 10:
                    if steps.holdsWaiters, at == 0 { return .holdWaitersUntilPipelineExit }
                case 11:
                    if !steps.resume.isEmpty, at == 0 {
                        return steps.observed ? .resumeBehindEvents(steps.resume) : .resume(steps.resume)
                    }
                case 12:
                    if steps.resumesCaller, at == 0 { return .resumeCaller(behindEvents: steps.observed) }
                case 13:
                    if steps.finished, at == 0 { return .leaveRegistry }
                case 14:
                    switch steps.syncStep {
                    case .apply(let item) where at == 0: return .apply(item)
                    case .yield where at == 0: return .yieldToQueuedWork
                    default: break
                    }
                default:
                    return nil
                }
                group += 1
                index = -1
            }
        }
    }
}
