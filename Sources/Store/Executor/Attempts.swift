/// The work of one async node: an action bound to its store, ready to be attempted.
struct AsyncNodeWork: Sendable {
    let attempt: @Sendable () async throws -> ResponseSlot

    /// - Parameter isKeyed: whether `A` is a ``KeyedAsyncAction``, known once per type by the graph.
    init<A: AsyncAction>(_ action: A, core: StoreCore<A.State>, isKeyed: Bool) {
        if isKeyed, let keyed = action as? any KeyedAsyncAction {
            // Join a call in flight with the same key instead of calling `run` again.
            let key = SharedCallKey(actionType: ObjectIdentifier(A.self), key: AnyHashable(keyed.key))
            attempt = {
                let task = core.dispatchShared(action, key: key)
                return try await withTaskCancellationHandler {
                    wrapResponse(try await task.value)
                } onCancel: {
                    task.cancel()
                }
            }
        } else if core.options.interceptor == nil {
            // No test store in between: call `run` directly, one async frame fewer per node.
            let context = ActionContext(core: core)
            attempt = { wrapResponse(try await action.run(context)) }
        } else {
            let context = ActionContext(core: core)
            attempt = { wrapResponse(try await core.perform(action, context: context)) }
        }
    }
}

/// Runs a node's attempts: each within its timeout, retried by its policy, paced by the store's clock.
enum Attempts {
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value,
                                     timeout: Duration?, retry: RetryPolicy,
                                     clock: any Clock<Duration>) async -> (Result<Value, any Error>, attempts: Int) {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try Task.checkCancellation()
                if let timeout {
                    return (.success(try await withTimeout(timeout, clock: clock, operation)), attempt)
                }
                return (.success(try await operation()), attempt)
            } catch {
                guard attempt < retry.maxAttempts, !Task.isCancelled, !(error is CancellationError),
                      retry.shouldRetry(error) else {
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
    static func withTimeout<Value: Sendable>(_ timeout: Duration, clock: any Clock<Duration>,
                                             _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.install(continuation)
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    do {
                        try await clock.sleep(for: timeout)
                        race.finish(.failure(GraphError.timedOut(after: timeout)))
                    } catch {}
                }
                race.cancelOnFinish(work, timer)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }
}

/// The first result of several racers wins; the continuation is resumed exactly once.
private final class Race<Value: Sendable>: Sendable {
    private struct Racing {
        var continuation: CheckedContinuation<Value, any Error>?
        var result: Result<Value, any Error>?
        var losers: [Task<Void, Never>] = []
        var isFinished = false
    }

    private let state = LockedValue(Racing())

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { racing -> Result<Value, any Error>? in
            if let result = racing.result { return result }
            racing.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func cancelOnFinish(_ tasks: Task<Void, Never>...) {
        let cancelNow = state.withLock { racing -> Bool in
            if racing.isFinished { return true }
            racing.losers = tasks
            return false
        }
        if cancelNow { for task in tasks { task.cancel() } }
    }

    func finish(_ result: Result<Value, any Error>) {
        let (continuation, losers) = state.withLock { racing -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard !racing.isFinished else { return (nil, []) }
            racing.isFinished = true
            defer {
                racing.continuation = nil
                racing.losers = []
            }
            if racing.continuation == nil { racing.result = result }
            return (racing.continuation, racing.losers)
        }
        continuation?.resume(with: result)
        for task in losers { task.cancel() }
    }
}
