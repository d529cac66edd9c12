/// A store's event observers, and the one queue through which its events reach them.
///
/// Whoever records an event appends it to `queue` (a run does so under its own lock, so a run's
/// events are queued in the order its state machine decided them), then asks for delivery once it
/// holds no lock of the store (`StoreCore.deliverEvents`). One thread at a time delivers: the first
/// that asks while nobody is delivering takes the queue, FIFO, until it is empty; the others leave
/// their events to it. So observers are never called concurrently and every observer sees one order.
///
/// The queue also carries continuations to resume (`resume`): a wait that must not return before
/// the events recorded ahead of it were delivered (a run's `wait()` behind its `runFinished`).
/// Those are resumed even once the hub is closed, so no wait is ever lost.
final class EventHub: Sendable {
    enum Item {
        case event(StoreEvent)
        case resume([ParkedWaiter])
    }

    private struct ObserverRegistration {
        let id: UInt64
        let observer: @Sendable (StoreEvent) -> Void
        /// Called once when the entry is removed by its subscription (not when the hub closes).
        var removed: (@Sendable () -> Void)? = nil
        /// Held weakly, so that closing the hub can end it (`isCancelled`) without keeping it alive.
        weak var subscription: Subscription?
    }

    private struct State {
        var entries: [ObserverRegistration] = []
        /// The observers of `entries`, in order: what a delivery takes (one retain, no copy).
        var observers: [@Sendable (StoreEvent) -> Void] = []
        var nextObserver: UInt64 = 0
        var nextWork: UInt64 = 0
        var queue = FIFO<Item>()
        var isDelivering = false
        var isClosed = false
    }

    private let state: LockedValue<State>

    /// - Parameter permanent: an observer for the hub's whole life (``StoreOptions/onEvent``).
    init(permanent: (@Sendable (StoreEvent) -> Void)?) {
        var initial = State()
        if let permanent {
            initial.entries.append(ObserverRegistration(id: 0, observer: permanent))
            initial.observers.append(permanent)
        }
        state = LockedValue(initial)
    }

    /// The identifier of the next run or async action.
    func nextID() -> StoreEvent.ID {
        state.withLock { state in
            state.nextWork += 1
            return StoreEvent.ID(rawValue: state.nextWork)
        }
    }

    /// Adds `observer`; the subscription removes it and then calls `removed`. Ends the subscription
    /// at once (and calls `removed`) if the hub is closed.
    func add(
        _ observer: @escaping @Sendable (StoreEvent) -> Void, removed: @escaping @Sendable () -> Void
    ) -> Subscription {
        let id = state.withLock { state -> UInt64? in
            guard !state.isClosed else { return nil }
            state.nextObserver += 1
            return state.nextObserver
        }
        guard let id else {
            let ended = Subscription(onCancel: removed)
            ended.cancel()
            return ended
        }
        let subscription = Subscription { [weak self] in self?.remove(id) }
        let added = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.entries.append(
                ObserverRegistration(id: id, observer: observer, removed: removed, subscription: subscription))
            state.observers.append(observer)
            return true
        }
        if !added {
            subscription.cancel()
            removed()
        }
        return subscription
    }

    private func remove(_ id: UInt64) {
        let removed = state.withLock { state -> (@Sendable () -> Void)? in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            state.observers.remove(at: index)
            return state.entries.remove(at: index).removed
        }
        removed?()
    }

    /// Queues `items`, in order. Takes only the hub's lock, so a run may call it under its own.
    func enqueue(_ items: [Item]) {
        state.withLock { state in
            for item in items { state.queue.append(item) }
        }
    }

    /// Delivers everything queued, unless another thread is delivering (it will deliver it). The
    /// caller holds no lock of the store and is not inside its pipeline.
    func deliver() {
        let takesTurn = state.withLock { state -> Bool in
            guard !state.isDelivering, !state.queue.isEmpty else { return false }
            state.isDelivering = true
            return true
        }
        guard takesTurn else { return }
        while true {
            let next = state.withLock { state -> (Item, [@Sendable (StoreEvent) -> Void])? in
                guard let item = state.queue.popFirst() else {
                    state.isDelivering = false
                    return nil
                }
                return (item, state.isClosed ? [] : state.observers)
            }
            guard let (item, observers) = next else { return }
            switch item {
            case .event(let event):
                for observer in observers { observer(event) }
            case .resume(let continuations):
                for continuation in continuations { continuation.resume() }
            }
        }
    }

    /// The store was released: no more events reach observers (queued resumes still run); every
    /// subscription ends and its observer is released.
    func close() {
        let subscriptions = state.withLock { state -> [Subscription] in
            state.isClosed = true
            defer {
                state.entries.removeAll()
                state.observers.removeAll()
            }
            return state.entries.compactMap(\.subscription)
        }
        for subscription in subscriptions { subscription.cancel() }
    }
}
