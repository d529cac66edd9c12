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

    /// Queues `event` and returns once it was delivered to every observer (at once when the store is
    /// closed). Called from a task, outside the pipeline.
    func deliver(_ event: StoreEvent) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = ParkedWaiter(continuation, parkingOn: "waiting for an event's delivery")
            events.enqueue([.event(event), .resume([waiter])])
            deliverEvents()
            waiter.park()
        }
    }
}
