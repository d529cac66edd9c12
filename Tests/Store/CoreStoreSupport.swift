import Foundation
import OresRedux
import Testing

/// The core store's test suite: reducers, dispatch, subscribers, middleware, re-entrancy, threads,
/// async actions, keyed (shared) async actions and bad input. Each part is a nested suite in its
/// own file; this file holds the actions, states and small tools they share.
///
/// Every wait in these tests awaits the thing itself (a ``Latch``, a stream, an `ActionTask`);
/// the time limit only turns a hang (a broken guarantee) into a failure instead of a stuck CI.
/// It counts wall-clock time, so it cannot tell a hang from a test starved by the tests beside it
/// (a parallel TSan run on a loaded 2-core machine took 78 s for tests that take milliseconds
/// alone): it is a last resort, set well above that, and `withDeadline` (which counts only time
/// the cooperative pool was running) is the tool for a prompt failure.
@Suite(.timeLimit(.minutes(10)))
struct CoreStore {}

// MARK: - Actions and states

extension CoreStore {
    /// Adds `by` to a counter.
    struct Increment: Action, Equatable { var by = 1 }

    /// Sets a counter.
    struct SetValue: Action, Equatable { let value: Int }

    /// Appends a line to a journal (a `[String]` state), so the order of actions shows in the state.
    struct Append: Action, Equatable { let text: String }

    /// An action no reducer here knows.
    struct Unknown: Action {}

    /// A counter store: `Increment` adds, `SetValue` sets.
    static func counterReducer() -> Reducer<Int> {
        .combine(
            .on(Increment.self) { count, action in count += action.by },
            .on(SetValue.self) { count, action in count = action.value }
        )
    }

    /// A journal store: `Append` adds a line.
    static func journalReducer() -> Reducer<[String]> {
        .on(Append.self) { journal, action in journal.append(action.text) }
    }
}

// MARK: - Tools

extension CoreStore {
    /// A value any thread may read and change, behind an `NSLock` (visible to ThreadSanitizer).
    final class Locked<Value>: @unchecked Sendable {
        // @unchecked: `value` is only touched inside `withLock`.
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) { self.value = value }

        func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }

        var current: Value { withLock { $0 } }
    }

    /// Everything an observer was given, in the order it was given.
    final class Recorder<Value: Sendable>: Sendable {
        private let storage = Locked<[Value]>([])

        func record(_ value: Value) { storage.withLock { $0.append(value) } }
        var values: [Value] { storage.current }
    }

    /// Counts calls that overlap: set on entry, cleared on exit; an entry that finds it set is an
    /// overlap. Wrap an observer's body in `during { ... }`.
    final class OverlapDetector: Sendable {
        // The library's pthread lock, not `Atomic` (macOS 15 / iOS 18, above the package's floor).
        private let inside = LockedValue(false)
        private let overlaps = LockedValue(0)

        func during<R>(_ body: () -> R) -> R {
            let wasInside = inside.withLock { inside in
                defer { inside = true }
                return inside
            }
            if wasInside {
                overlaps.withLock { $0 += 1 }
            }
            defer { inside.withLock { $0 = false } }
            return body()
        }

        var overlapCount: Int { overlaps.withLock { $0 } }
    }

    /// A one-way latch: `wait()` returns once `open()` has been called, before or after the wait
    /// began; a task cancelled while waiting gets `CancellationError` at once.
    final class Latch: Sendable {
        private struct State {
            var isOpen = false
            var nextWaiter = 0
            var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        }
        private let state = Locked(State())

        func open() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                guard !state.isOpen else { return [] }
                state.isOpen = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }

        var isOpen: Bool { state.current.isOpen }

        func wait() async throws {
            let id = state.withLock { state in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let now: Result<Void, any Error>? = state.withLock { state in
                        if state.isOpen { return .success(()) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters[id] = continuation
                        return nil
                    }
                    if let now { continuation.resume(with: now) }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume(throwing: CancellationError())
            }
        }
    }

    /// Suspends until the current task is cancelled, then throws `CancellationError`.
    static func untilCancelled() async throws {
        try await Latch().wait()
    }

    /// The adjacent pairs of `values` where the second is not exactly one more than the first:
    /// empty when `values` is a run of consecutive integers (so strictly increasing, nothing lost).
    static func breaks(in values: [Int]) -> [(Int, Int)] {
        zip(values, values.dropFirst()).filter { $0.1 != $0.0 + 1 }
    }
}
