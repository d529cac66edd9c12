/// How a dispatch with an id treats the work already dispatched with the same id: the policy of
/// `Store.dispatch(_:id:policy:)`.
///
/// Whatever the policy, work that is cancelled because a later dispatch replaced it ends like any
/// cancelled work (its ``ActionTask`` throws `CancellationError` if it had not started, and
/// otherwise what its `run` throws on cancellation, usually `CancellationError`; its ``GraphRun``
/// ends with its nodes `.cancelled`), and what it dispatches after that point is dropped: a stale
/// response never reaches the state. A `run` that ignores cancellation and returns still hands its
/// response to its ``ActionTask``.
///
/// A negative duration counts as zero: `.debounce(.zero)` waits for nothing (and still keeps only
/// the latest), `.throttle(.zero)` limits nothing (every dispatch starts at once, and none cancels
/// another).
public enum InFlightPolicy: Sendable, Equatable {
    /// Start at once and cancel the work under the same id that has not finished: only the latest
    /// dispatch runs to the end ("take latest", `cancelInFlight`).
    case takeLatest
    /// Cancel the work under the same id at once, then wait until `quiet` has passed on the store's
    /// clock with no other dispatch under the id before starting. A burst of dispatches (typing)
    /// starts only its last one, `quiet` after it.
    case debounce(Duration)
    /// Start at most one dispatch under the id every `interval` on the store's clock. The first
    /// starts at once; one that comes sooner waits until `interval` after the last start, and if
    /// another comes meanwhile it replaces the waiting one (which ends cancelled). The interval
    /// counts from a start (the dispatch, or the planned end of its wait), never from the end of
    /// the work. Work that has started is never cancelled by a throttled dispatch.
    case throttle(Duration)
}

/// The id of work dispatched with one (`Store.dispatch(_:id:policy:)`).
// Why this is safe to share: it is made only from a value that is `Hashable & Sendable` (see `init`);
// `AnyHashable` itself is not marked `Sendable`.
struct WorkID: Hashable, @unchecked Sendable {
    let value: AnyHashable

    init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}
