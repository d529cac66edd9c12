extension Store {
    /// Calls `observer` on the main actor with the current state, then with every committed state,
    /// in commit order.
    ///
    /// Where each way of observing runs:
    /// - `subscribe(_:)` and `subscribe(_:_:)`: synchronously, on the thread that applied the action
    ///   (the dispatching thread, or for a graph node the thread that finished its last prerequisite).
    /// - `states()`: wherever the consuming task runs.
    /// - `subscribeOnMainActor`: on the main actor, asynchronously, in commit order.
    ///
    /// - Parameters:
    ///   - coalescing: `false` (the default) delivers every state; `true` delivers only the newest
    ///     state whenever the main actor gets to it, skipping those it superseded.
    ///   - observer: runs on the main actor; it may dispatch.
    /// - Returns: the subscription; once it is cancelled on the main actor, no further call is made.
    public func subscribeOnMainActor(
        coalescing: Bool = false,
        _ observer: @escaping @MainActor @Sendable (State) -> Void
    ) -> Subscription {
        deliverOnMainActor(coalescing: coalescing, filter: { _ in true }, transform: { $0 }, observer)
    }

    /// Calls `observer` on the main actor with the selected value, then whenever a committed action
    /// changes it (`!=`), in commit order.
    /// - Parameters:
    ///   - select: picks the value; runs on the thread that applied the action.
    ///   - coalescing: `true` to deliver only the newest value when several are waiting.
    ///   - observer: runs on the main actor.
    public func subscribeOnMainActor<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        coalescing: Bool = false,
        _ observer: @escaping @MainActor @Sendable (Value) -> Void
    ) -> Subscription {
        let last = SelectedValue<Value>()
        return deliverOnMainActor(
            coalescing: coalescing, filter: { last.update(select($0)) },
            transform: select, observer)
    }

    private func deliverOnMainActor<Value: Sendable>(
        coalescing: Bool,
        filter: @escaping @Sendable (State) -> Bool,
        transform: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @MainActor @Sendable (Value) -> Void
    ) -> Subscription {
        let (stream, continuation) = AsyncStream<Value>.makeStream(
            bufferingPolicy: coalescing ? .bufferingNewest(1) : .unbounded)
        let source = core.subscribe(
            receive: { state in
                if filter(state) { continuation.yield(transform(state)) }
            }, onStoreClosed: { continuation.finish() })
        let ended = LockedValue(false)
        // One task consumes the stream, so deliveries keep the order in which states were committed.
        let delivery = Task { @MainActor in
            for await value in stream {
                if ended.withLock({ $0 }) { break }
                observer(value)
            }
        }
        return Subscription {
            ended.withLock { $0 = true }
            source.cancel()
            continuation.finish()
            delivery.cancel()
        }
    }
}
