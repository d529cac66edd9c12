/// A subscription to a store's state; the observer stops being called when it ends.
///
/// It ends on ``cancel()``, when the last reference to it is released, or when its store is
/// released, whichever comes first; ending it releases the observer and everything the observer
/// captured at once, so `self.subscription = store.subscribe { self.render($0) }` holds `self` only
/// until the subscription is cancelled. Cancelling is O(1), may be called any number of times, from
/// any thread, and from inside the subscription's own observer (or another observer of the same
/// store). Cancelled from a thread that is applying the store's actions (an observer, a middleware),
/// the observer is not called again. Cancelled from another thread while an action is being applied,
/// the observer may still be called once for that action; it is not called for any action applied
/// after `cancel()` returns.
public final class Subscription: Sendable {
    private struct State {
        var isCancelled = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state: LockedValue<State>

    /// Creates a subscription that runs `onCancel` once, on the first ``cancel()`` or on release, and
    /// then releases it. Use it to give the same lifetime rules to subscriptions of your own (bridges,
    /// adapters).
    public init(onCancel: @escaping @Sendable () -> Void) {
        state = LockedValue(State(onCancel: onCancel))
    }

    /// Ends the subscription. Calling it again does nothing.
    public func cancel() {
        let onCancel = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            defer { state.onCancel = nil }
            return state.onCancel
        }
        onCancel?()
    }

    /// Whether the subscription has ended: ``cancel()`` was called, or its store was released.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    deinit {
        cancel()
    }
}

/// One observer in a store's subscriber list.
// Why this is safe to share: `observer` is read and written only under `lock`; `index` and
// `subscription` only under the store's state lock (`subscription` is set before the box is published
// under that lock); `onStoreClosed` is immutable.
final class SubscriberBox<State>: @unchecked Sendable {
    private let lock = Lock()
    // A plain locked variable, not a `LockedValue`: reading a closure out through a generic `inout`
    // wraps it in one more reabstraction thunk on every read.
    private var observer: (@Sendable (State) -> Void)?
    let onStoreClosed: (@Sendable () -> Void)?
    /// The box's place in the store's subscriber list, for an O(1) removal; -1 once removed.
    var index = -1
    /// The subscription that ends this box, so that releasing the store can end it.
    weak var subscription: Subscription?

    init(receive: @escaping @Sendable (State) -> Void, onStoreClosed: (@Sendable () -> Void)?) {
        self.observer = receive
        self.onStoreClosed = onStoreClosed
    }

    /// Calls the observer, unless the subscription has ended.
    func receive(_ state: State) {
        lock.lock()
        let observer = self.observer
        lock.unlock()
        observer?(state)
    }

    /// Releases the observer and what it captured.
    func end() {
        lock.lock()
        let released = observer
        observer = nil
        lock.unlock()
        _ = released    // released here, outside the lock: its captures' deinits may do anything
    }
}
