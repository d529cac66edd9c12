/// What a graph run needs from the store whose pipeline it goes through, whatever the state type of
/// its graph: a scoped store's runs go through its root store's pipeline.
protocol RunHost: AnyObject, Sendable {
    var options: StoreOptions { get }
    /// Taken once by `GraphRun.cancel()` as a barrier (see there).
    var stateLock: Lock { get }
    func register(cancel: @escaping @Sendable () -> Void) -> UInt64?
    /// `register(cancel:)`, also telling whether the store has event observers, under one lock.
    func registerObserved(cancel: @escaping @Sendable () -> Void) -> (id: UInt64, isObserved: Bool)?
    /// Registers a graph run, which closing the store cancels with `cancelForStoreRelease()`.
    func registerObserved(run: any PipelineRun) -> (id: UInt64, isObserved: Bool)?
    /// Whether the store has event observers now.
    var hasEventObservers: Bool { get }
    /// The store's event observers and their queue (see `StoreEvent`).
    var events: EventHub { get }
    /// Delivers queued events, or leaves them for the pipeline's exit when called inside it.
    func deliverEvents()
    func unregister(_ id: UInt64)
    func report(_ kind: StoreDiagnostic.Kind, _ message: String)
    /// How many actions the store has committed so far (a durable run journals it per sync node).
    var commitCount: UInt64 { get }
    /// Middleware, reducer, subscribers; called on the pipeline's applier thread.
    func apply(_ action: any Action, admit: (@Sendable () -> Bool)?)
    var hasFollowUps: Bool { get }
    func schedule(_ run: any PipelineRun)
    func requeue(_ run: any PipelineRun)
    /// Whether this thread is applying actions in the store's pipeline.
    var isInsidePipeline: Bool { get }
    /// Asks `run`, when this thread leaves the pipeline, for the waiters it holds until then.
    func resumeAtPipelineExit(_ run: any PipelineRun)
}

/// A run waiting in a store's pipeline for its turn to apply its ready sync nodes.
@usableFromInline
protocol PipelineRun: AnyObject, Sendable {
    func applySyncItems()
    /// The store is being released: cancel, without sending the graph's cancel action.
    func cancelForStoreRelease()
    /// Takes from the run's machine the waiters it held until the pipeline's exit (see
    /// `RunHost.resumeAtPipelineExit(_:)`). Called by the store as the pipeline is left, with the
    /// state lock (which guards the pipeline) held, so that no later applier adds to them.
    func takeWaitersHeldForPipelineExit() -> ResumedWaiters
    /// The continuations of the waiters `held` names, taken out of the run (an observed run's:
    /// they resume behind its events). Called once the state lock is released.
    func continuations(of held: ResumedWaiters) -> [ParkedWaiter]
    /// Resumes the waiters `held` names. Called once the state lock is released.
    func resume(_ held: ResumedWaiters)
}

/// Waiters a run resumes (at the pipeline's exit, or after an event), by the numbers its machine
/// knows them by.
///
/// The machine hands their numbers out under a lock (the state lock at the exit, so that no later
/// applier adds to them; the run's after an event); their continuations are taken out of the run
/// only as they resume, once that lock is released. The machine hands each number out once, so
/// no one else takes them meanwhile, and a continuation taken alone needs no list (most runs
/// resume one waiter at a time: an allocation each, in a list).
@usableFromInline
struct ResumedWaiters {
    let numbers: SmallList<RunStateMachine.Waiter>
    /// The run is observed: its waiters resume behind its events.
    let isObserved: Bool
}
