/// A suspended task and the unit it parks, resumed together: the unit is marked running first
/// (see ``WorkCounter``). Every continuation that counted work may wait on is kept as one of these.
///
/// Make it inside the `withChecked…Continuation` closure, publish it to its resumers, do whatever
/// else the closure does, and call ``park()`` last: until then the task still runs code, and a
/// resume that comes first is a credit that `park()` consumes.
@usableFromInline
package struct Parked<Value: Sendable, Failure: Error>: Sendable {
    package let continuation: CheckedContinuation<Value, Failure>
    package let unit: WorkCounter.Unit?
    private let reason: String

    package init(_ continuation: CheckedContinuation<Value, Failure>, parkingOn reason: @autoclosure () -> String) {
        self.continuation = continuation
        self.unit = WorkCounter.currentUnit()
        self.reason = unit == nil ? "" : reason()
    }

    /// The task is about to suspend: its unit no longer runs (unless it was resumed already).
    package func park() {
        unit?.park(on: reason)
    }

    package func resume(with result: Result<Value, Failure>) {
        unit?.unpark()
        continuation.resume(with: result)
    }

    package func resume(returning value: Value) {
        unit?.unpark()
        continuation.resume(returning: value)
    }

    package func resume(throwing error: Failure) {
        unit?.unpark()
        continuation.resume(throwing: error)
    }
}

/// A `Parked<Void, Never>` that is not generic: what waits for a run, a node or an event's delivery.
/// Such waiters are kept in tables and arrays, where a generic `Parked` would look up its
/// continuation's metadata on every copy and destroy.
@usableFromInline
package struct ParkedWaiter: Sendable {
    let continuation: CheckedContinuation<Void, Never>
    let unit: WorkCounter.Unit?
    private let reason: String

    init(_ continuation: CheckedContinuation<Void, Never>, parkingOn reason: @autoclosure () -> String) {
        self.continuation = continuation
        self.unit = WorkCounter.currentUnit()
        self.reason = unit == nil ? "" : reason()
    }

    /// As `Parked.park()`.
    func park() {
        unit?.park(on: reason)
    }

    func resume() {
        unit?.unpark()
        continuation.resume()
    }
}
