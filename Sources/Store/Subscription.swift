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
///
/// The observer is immutable, and released with the box: ending a subscription takes the box out
/// of the store's list and out of the ``Subscription``, so nothing holds it any more (unless another
/// thread is notifying subscribers of an action at that moment, which lets go of it when done).
/// A subscription ended by the thread that is applying actions (from an observer or a middleware)
/// is also marked `isEnded`, so the notification under way does not call it again.
@usableFromInline
// Why this is safe to share: `observer` and `onStoreClosed` are immutable; `isEnded` is written under the
// store's state lock, and read by the pipeline's applier only, whose calls never overlap; `index` and `subscription` only under
// the store's state lock (`subscription` is set before the box is published under that lock).
final class SubscriberBox<State>: @unchecked Sendable {
    @usableFromInline let observer: @Sendable (State) -> Void
    @usableFromInline @exclusivity(unchecked) var isEnded = false
    let onStoreClosed: (@Sendable () -> Void)?
    /// The box's place in the store's subscriber list, for an O(1) removal; -1 once removed.
    var index = -1
    /// The subscription that ends this box, so that releasing the store can end it.
    weak var subscription: Subscription?

    init(receive: @escaping @Sendable (State) -> Void, onStoreClosed: (@Sendable () -> Void)?) {
        self.observer = receive
        self.onStoreClosed = onStoreClosed
    }

    /// Calls the observer, unless the subscription has ended. Called by the pipeline's applier.
    @inlinable
    func receive(_ state: State) {
        if !isEnded { observer(state) }
    }
}
