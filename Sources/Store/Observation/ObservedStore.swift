import Observation

/// An `@Observable`-style mirror of a store's state, or of a selected part of it, for SwiftUI.
///
/// A view reads members through dynamic member lookup (`model.profile`, `model.feed.count`) and
/// Observation tracks each member it read: when a committed action changes `feed` but not `profile`,
/// a view that read only `profile` is not invalidated. Members are compared with `==` where they are
/// `Equatable`; others count as changed whenever the mirrored value changes.
///
/// ```swift
/// @MainActor final class HomeScreen {              // or a SwiftUI view's @State
///     let model = ObservedStore(store)
///     var title: String { model.profile?.name ?? "Loading…" }
///     func refresh() { model.dispatch(homeGraph) }
/// }
/// ```
///
/// Updates arrive on the main actor, in commit order (`Store.subscribeOnMainActor`). The mirror
/// keeps the store alive and ends its subscription when it is released. Reading is thread-safe.
@dynamicMemberLookup
public final class ObservedStore<State: Sendable, Value: Sendable>: ActionDispatcher, Observable, Sendable {
    /// The store this mirrors; dispatch through it, or through the `dispatch` shortcuts below.
    public let store: Store<State>

    private let registrar = ObservationRegistrar()
    /// Compares whole values where `Value` is `Equatable`, so unchanged updates invalidate nobody.
    private let isEqual: (@Sendable (Value, Value) -> Bool)?
    private let mirrored: LockedValue<Mirrored<Value>>
    private let subscription: LockedValue<Subscription?>

    /// Mirrors the whole state of `store`.
    public convenience init(_ store: Store<State>) where Value == State {
        self.init(store, select: { $0 }, isEqual: nil)
    }

    /// Mirrors the whole state of `store`; a reader of ``value`` is invalidated only when it changes.
    public convenience init(_ store: Store<State>) where Value == State, State: Equatable {
        self.init(store, select: { $0 }, isEqual: { $0 == $1 })
    }

    /// Mirrors the part of `store`'s state that `select` picks.
    public convenience init(_ store: Store<State>, select: @escaping @Sendable (State) -> Value) {
        self.init(store, select: select, isEqual: nil)
    }

    /// Mirrors the part of `store`'s state that `select` picks; a reader of ``value`` is invalidated
    /// only when that part changes (`!=`).
    public convenience init(_ store: Store<State>, select: @escaping @Sendable (State) -> Value)
    where Value: Equatable {
        self.init(store, select: select, isEqual: { $0 == $1 })
    }

    private init(
        _ store: Store<State>, select: @escaping @Sendable (State) -> Value,
        isEqual: (@Sendable (Value, Value) -> Bool)?
    ) {
        self.store = store
        self.isEqual = isEqual
        self.mirrored = LockedValue(Mirrored(value: select(store.state)))
        self.subscription = LockedValue(nil)
        let subscription = store.subscribeOnMainActor { [weak self] state in
            self?.apply(select(state))
        }
        self.subscription.withLock { $0 = subscription }
    }

    deinit {
        subscription.withLock { $0?.cancel() }
    }

    /// The whole mirrored value. A reader of it is invalidated when it changes (every update the store
    /// delivers, where `Value` is not `Equatable`).
    public var value: Value {
        registrar.access(self, keyPath: \.value)
        return mirrored.withLock { $0.value }
    }

    /// One member of the mirrored value, tracked on its own: changes to other members do not
    /// invalidate a reader of this one.
    public subscript<Member: Equatable>(dynamicMember keyPath: KeyPath<Value, Member>) -> Member {
        let key: KeyPath<ObservedStore, Member> = \.[dynamicMember: keyPath]
        registrar.access(self, keyPath: key)
        return mirrored.withLock { mirrored in
            if mirrored.tracked[key] == nil {
                mirrored.tracked[key] = TrackedMember(
                    changed: { $0[keyPath: keyPath] != $1[keyPath: keyPath] },
                    willSet: { $0.registrar.willSet($0, keyPath: key) },
                    didSet: { $0.registrar.didSet($0, keyPath: key) })
            }
            return mirrored.value[keyPath: keyPath]
        }
    }

    /// A member that is not `Equatable`: readers are invalidated whenever the mirrored value changes.
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> Member {
        registrar.access(self, keyPath: \.value)
        return mirrored.withLock { $0.value[keyPath: keyPath] }
    }

    /// Where this object's dispatches go: the store it mirrors (see ``ActionDispatcher`` for
    /// `dispatch` and `cancel(id:)`), so a view dispatches through what it observes.
    @_spi(OresReduxInternals)
    public var dispatchTarget: DispatchTarget<State> { store.dispatchTarget }

    /// Waits until the mirrored value satisfies `predicate` (at once if it already does): for tests
    /// and previews that must see an update arrive on the main actor.
    ///
    /// It also returns when the waiting task is cancelled (at once if it already was), with the
    /// predicate perhaps unmet: read the value again, or check `Task.isCancelled`. A wait that
    /// returned keeps nothing alive.
    public func waitUntil(_ predicate: @escaping @Sendable (Value) -> Bool) async {
        let id = mirrored.withLock { mirrored -> UInt64 in
            mirrored.lastWaiter += 1
            return mirrored.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let returns = mirrored.withLock { mirrored -> Bool in
                    // Cancelled before it waited: the handler below found no waiter to resume.
                    if predicate(mirrored.value) || Task.isCancelled { return true }
                    mirrored.waiters.append((id, predicate, continuation))
                    return false
                }
                if returns { continuation.resume() }
            }
        } onCancel: {
            let cancelled = mirrored.withLock { mirrored in
                mirrored.waiters.firstIndex { $0.id == id }.map { mirrored.waiters.remove(at: $0) }
            }
            cancelled?.continuation.resume()
        }
    }

    /// Replaces the mirrored value, telling Observation which tracked members changed.
    @MainActor
    private func apply(_ newValue: Value) {
        let (old, tracked) = mirrored.withLock { ($0.value, Array($0.tracked.values)) }
        if let isEqual, isEqual(old, newValue) { return }
        let changed = tracked.filter { $0.changed(old, newValue) }
        registrar.willSet(self, keyPath: \.value)
        for member in changed { member.willSet(self) }
        let ready = mirrored.withLock { mirrored -> [CheckedContinuation<Void, Never>] in
            mirrored.value = newValue
            var ready: [CheckedContinuation<Void, Never>] = []
            mirrored.waiters.removeAll { waiter in
                guard waiter.predicate(newValue) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for member in changed { member.didSet(self) }
        registrar.didSet(self, keyPath: \.value)
        for continuation in ready { continuation.resume() }
    }

    private struct TrackedMember {
        let changed: (Value, Value) -> Bool
        let willSet: (ObservedStore) -> Void
        let didSet: (ObservedStore) -> Void
    }

    private struct Mirrored<V> {
        var value: V
        var tracked: [AnyKeyPath: TrackedMember] = [:]
        var waiters: [(id: UInt64, predicate: @Sendable (V) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            []
        var lastWaiter: UInt64 = 0
    }
}
