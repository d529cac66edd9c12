import Synchronization

/// A subscription to a store's state; the observer stops being called when it ends.
///
/// It ends on ``cancel()`` or when the last reference to it is released, whichever comes first.
/// Cancelling is O(1), may be called any number of times, from any thread, and from inside the
/// subscription's own observer (or another observer of the same store). Cancelled from a thread
/// that is applying the store's actions (an observer, a middleware), the observer is not called
/// again. Cancelled from another thread while an action is being applied, the observer may still be
/// called once for that action; it is not called for any action applied after `cancel()` returns.
public final class Subscription: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let onCancel: @Sendable () -> Void

    /// Creates a subscription that runs `onCancel` once, on the first ``cancel()`` or on release.
    /// Use it to give the same lifetime rules to subscriptions of your own (bridges, adapters).
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Ends the subscription. Calling it again does nothing.
    public func cancel() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) {
            onCancel()
        }
    }

    /// Whether ``cancel()`` has been called (or the subscription was ended by its store's release).
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    deinit {
        cancel()
    }
}

/// One observer in a store's subscriber list.
@usableFromInline
// Why this is safe to share: `receive` and the state it captures (a `select` subscriber's last value) are used
// only while the store's pipeline lock is held, so never by two threads at once; `index` is read
// and written only under the store's state lock; `active` and `onStoreClosed` are immutable or atomic.
final class SubscriberBox<State>: @unchecked Sendable {
    @usableFromInline let receive: (State) -> Void
    @usableFromInline let active = Atomic<Bool>(true)
    @usableFromInline var index = -1
    let onStoreClosed: (@Sendable () -> Void)?

    init(receive: @escaping (State) -> Void, onStoreClosed: (@Sendable () -> Void)? = nil) {
        self.receive = receive
        self.onStoreClosed = onStoreClosed
    }

    @inlinable
    var isActive: Bool { active.load(ordering: .relaxed) }
}
