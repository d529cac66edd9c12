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
    /// The waiters the run held until the pipeline's exit (see `RunHost.resumeAtPipelineExit(_:)`),
    /// and whether the run is observed (then they resume behind its events). Called by the store
    /// as the pipeline is left, with the state lock (which guards the pipeline) held.
    func takeWaitersHeldForPipelineExit() -> (waiters: [ParkedWaiter], isObserved: Bool)
}
