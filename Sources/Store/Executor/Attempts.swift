/// The work of one async node: an action bound to its store, ready to be attempted.
struct AsyncNodeWork: Sendable {
    let attempt: @Sendable () async throws -> ResponseSlot

    init<A: AsyncAction, Host: Sendable>(_ action: A, host core: StoreCore<Host>, context: ActionContext<A.State>) {
        if let keyed = action as? any KeyedAsyncAction {
            // Join a call in flight with the same key instead of calling `run` again.
            let key = SharedCallKey(actionType: ObjectIdentifier(A.self), key: AnyHashable(keyed.key))
            attempt = {
                let task = core.dispatchShared(action, key: key, context: context)
                return try await withTaskCancellationHandler {
                    wrapResponse(try await task.value)
                } onCancel: {
                    task.cancel()
                }
            }
        } else {
            attempt = { wrapResponse(try await core.perform(action, context: context)) }
        }
    }
}

/// Runs a node's attempts: each within its timeout, retried by its policy, paced by the store's clock.
enum Attempts {
    /// - Parameters:
    ///   - operation: one attempt.
    ///   - mayStart: asked right before each attempt calls `operation`; `false` (the run was
    ///     cancelled) ends the attempts with `CancellationError` without calling it.
    /// - Returns: the last attempt's result and how many attempts were made.
    static func run<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        mayStart: @escaping @Sendable () -> Bool,
        timeout: Duration?, retry: RetryPolicy,
        clock: any Clock<Duration>
    ) async -> (Result<Value, any Error>, attempts: Int) {
        let gated: @Sendable () async throws -> Value = {
            guard mayStart() else { throw CancellationError() }
            return try await operation()
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                try Task.checkCancellation()
                if let timeout {
                    return (.success(try await withTimeout(timeout, clock: clock, gated)), attempt)
                }
                return (.success(try await gated()), attempt)
            } catch {
                guard attempt < retry.maxAttempts, !Task.isCancelled, !(error is CancellationError),
                    retry.shouldRetry(error)
                else {
                    return (.failure(error), attempt)
                }
                let delay = retry.backoff.delay(beforeRetry: attempt)
                if delay > .zero {
                    do { try await clock.sleep(for: delay) } catch { return (.failure(error), attempt) }
                }
            }
        }
    }

    /// The operation's result, or ``GraphError/timedOut(after:)`` once `timeout` passed on `clock`,
    /// whichever comes first; the loser is cancelled. Unlike a task group, it returns at the deadline
    /// even when the operation ignores cancellation.
    static func withTimeout<Value: Sendable>(
        _ timeout: Duration, clock: any Clock<Duration>,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await Race.first(operation) { race in
            Task {
                do {
                    try await clock.sleep(for: timeout)
                    race.finish(.failure(GraphError.timedOut(after: timeout)))
                } catch {}
            }
        }
    }

    /// The operation's result, or `CancellationError` as soon as the calling task is cancelled, without
    /// waiting for the operation (a join's work belongs to whoever started it, and may never look at
    /// this task's cancellation).
    static func untilCancelled<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws
        -> Value
    {
        try await Race.first(operation) { _ in nil }
    }
}

/// The first of several results wins: the operation's, a rival's (`rivals` may start a task that
/// calls `finish`), or `CancellationError` when the waiting task is cancelled. The continuation is
/// resumed exactly once, and the tasks that lost are cancelled.
final class Race<Value: Sendable>: Sendable {
    private struct Racing {
        var continuation: CheckedContinuation<Value, any Error>?
        var result: Result<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
        var isFinished = false
    }

    private let state = LockedValue(Racing())

    static func first(
        _ operation: @escaping @Sendable () async throws -> Value,
        rivals: (Race) -> Task<Void, Never>?
    ) async throws -> Value {
        let race = Race()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.install(continuation)
                // A cancelled waiter must not start the work at all.
                if Task.isCancelled {
                    race.finish(.failure(CancellationError()))
                    return
                }
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                race.track([work] + (rivals(race).map { [$0] } ?? []))
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    private func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { racing -> Result<Value, any Error>? in
            if let result = racing.result { return result }
            racing.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    private func track(_ tasks: [Task<Void, Never>]) {
        let cancelNow = state.withLock { racing -> Bool in
            if racing.isFinished { return true }
            racing.tasks = tasks
            return false
        }
        if cancelNow { for task in tasks { task.cancel() } }
    }

    func finish(_ result: Result<Value, any Error>) {
        let (continuation, losers) = state.withLock {
            racing -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard !racing.isFinished else { return (nil, []) }
            racing.isFinished = true
            defer {
                racing.continuation = nil
                racing.tasks = []
            }
            if racing.continuation == nil { racing.result = result }
            return (racing.continuation, racing.tasks)
        }
        continuation?.resume(with: result)
        for task in losers { task.cancel() }
    }
}
