extension Store {
    /// Calls `observer` with every ``StoreEvent`` of the async actions and graph runs dispatched from
    /// now on: started, each node's end, finished, with outcomes and errors.
    ///
    /// Events are delivered one at a time, in the order they happened, outside every lock of the
    /// store (see ``StoreEvent`` for exactly what is promised). Work already in flight when this is
    /// called is reported only if the store was observed when it was dispatched. To observe from the
    /// very first dispatch, set ``StoreOptions/onEvent`` instead.
    ///
    /// ```swift
    /// let logging = store.observeEvents(StoreEvent.logger())
    /// ```
    /// - Parameter observer: called with each event; it may dispatch or cancel runs.
    /// - Returns: the subscription; it ends on `cancel()`, when released, or when the store is
    ///   released, and ending it releases `observer`. Cancelled from another thread while an event is
    ///   being delivered, the observer may still receive that event, but none after it.
    public func observeEvents(_ observer: @escaping @Sendable (StoreEvent) -> Void) -> Subscription {
        core.observeEvents(observer)
    }
}

extension StoreCore {
    /// Adds an event observer, counted so that work dispatched from now on records its events.
    func observeEvents(_ observer: @escaping @Sendable (StoreEvent) -> Void) -> Subscription {
        countEventObservers(1)
        return events.add(observer, removed: { [weak self] in self?.countEventObservers(-1) })
    }

    /// Delivers the queued events, or, when this thread is inside the pipeline (applying an action:
    /// a subscriber, a middleware, a graph's sync node), leaves them for the pipeline's exit, so
    /// that no observer runs under the pipeline lock. Called with no other lock of the store held.
    func deliverEvents() {
        // `tryLock` succeeds when no thread holds the pipeline lock, or this one does (it is
        // recursive); `isApplying` then tells which. When it fails, another thread holds it, so this
        // one is outside the pipeline.
        if pipelineLock.tryLock() {
            if isApplying {
                workAwaitsPipelineExit = true
                pipelineLock.unlock()
                return
            }
            pipelineLock.unlock()
        }
        events.deliver()
    }

    /// The pipeline's exit when events were recorded or waiters held inside it: leaves the
    /// pipeline (the lock is held, `isApplying` already false), then delivers the events and
    /// resumes the waiters, those of an observed run behind its events.
    @usableFromInline
    func leavePipeline() {
        workAwaitsPipelineExit = false
        var observedWaiters: [CheckedContinuation<Void, Never>] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        if !runsAwaitingPipelineExit.isEmpty {
            for run in runsAwaitingPipelineExit {
                let held = run.takeWaitersHeldForPipelineExit()
                guard !held.waiters.isEmpty else { continue }
                // The common case, one run's waiters, takes its list as is: no copy.
                if held.isObserved {
                    observedWaiters = observedWaiters.isEmpty ? held.waiters : observedWaiters + held.waiters
                } else {
                    waiters = waiters.isEmpty ? held.waiters : waiters + held.waiters
                }
            }
            runsAwaitingPipelineExit.removeAll(keepingCapacity: true)
        }
        pipelineLock.unlock()
        if !observedWaiters.isEmpty { events.enqueue([.resume(observedWaiters)]) }
        events.deliver()
        for waiter in waiters { waiter.resume() }
    }

    /// Whether this thread is applying actions (a subscriber, a middleware, a graph's sync node).
    /// Called with no other lock of the store held.
    var isInsidePipeline: Bool {
        // `tryLock` succeeds when no thread holds the pipeline lock, or this one does (it is
        // recursive); `isApplying` then tells which. When it fails, another thread holds it.
        guard pipelineLock.tryLock() else { return false }
        defer { pipelineLock.unlock() }
        return isApplying
    }

    /// `run` holds waiters of nodes it finished inside the pipeline: it gives them up when this
    /// thread leaves the pipeline, after everything queued meanwhile (what subscribers and
    /// middleware dispatched in answer to those nodes) is applied. Called inside the pipeline.
    func resumeAtPipelineExit(_ run: any PipelineRun) {
        pipelineLock.lock()
        runsAwaitingPipelineExit.append(run)
        workAwaitsPipelineExit = true
        pipelineLock.unlock()
    }

    /// Queues `event` and returns once it was delivered to every observer (at once when the store is
    /// closed). Called from a task, outside the pipeline.
    func deliver(_ event: StoreEvent) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            events.enqueue([.event(event), .resume([continuation])])
            deliverEvents()
        }
    }
}
