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

/// What an attempt asks right before it calls its operation: whether it still may.
protocol AttemptGate: Sendable {
    func mayStart() -> Bool
}

/// A node's attempts, ready to run: one attempt's work, the gate each attempt asks first, each
/// attempt's timeout and the policy that retries them.
struct AttemptPlan<Value: Sendable, Gate: AttemptGate> {
    /// One attempt.
    let operation: @Sendable () async throws -> Value
    /// Asked right before each attempt calls `operation`; `false` (the run was cancelled) ends the
    /// attempts with `CancellationError` without calling it.
    let gate: Gate
    let timeout: Duration?
    let retry: RetryPolicy

    /// The gate and the operation in one closure, for an attempt raced against its timeout.
    var gatedOperation: @Sendable () async throws -> Value {
        { [operation, gate] in
            guard gate.mayStart() else { throw CancellationError() }
            return try await operation()
        }
    }

    /// The wait before the attempt after `attempt`, which ended with `error`; `nil` when the retry
    /// policy makes no further attempt.
    func delay(beforeRetryAfter error: any Error, attempt: Int) -> Duration? {
        guard attempt < retry.maxAttempts, !Task.isCancelled, !(error is CancellationError),
            !(error is DurableRunError), retry.shouldRetry(error)
        else {
            return nil
        }
        return retry.backoff.delay(beforeRetry: attempt)
    }
}

/// Runs a node's attempts: each within its timeout, retried by its policy, paced by the store's clock.
enum Attempts {
    /// - Returns: the last attempt's result and how many attempts were made.
    static func run<Value: Sendable, Gate: AttemptGate>(
        _ plan: AttemptPlan<Value, Gate>, clock: any Clock<Duration>
    ) async -> (Result<Value, any Error>, attempts: Int) {
        // Only an attempt raced against its timeout needs the gate and the operation in one closure;
        // the common attempt asks the gate in line, and allocates nothing for it. The task keeps
        // this frame while an attempt runs, so what is not needed across an attempt is left to the
        // plan's sync methods (see `GraphRun.runAsync`).
        let gated = plan.timeout == nil ? nil : plan.gatedOperation
        var attempt = 0
        while true {
            attempt += 1
            do {
                try Task.checkCancellation()
                if let timeout = plan.timeout, let gated {
                    return (.success(try await withTimeout(timeout, clock: clock, gated)), attempt)
                }
                guard plan.gate.mayStart() else { throw CancellationError() }
                return (.success(try await plan.operation()), attempt)
            } catch {
                guard let delay = plan.delay(beforeRetryAfter: error, attempt: attempt) else {
                    return (.failure(error), attempt)
                }
                if delay > .zero {
                    do { try await clock.sleep(for: delay) } catch { return (.failure(error), attempt) }
                }
            }
        }
    }

    /// The operation's result, or ``GraphError/timedOut(after:)`` once `timeout` passed on `clock`,
    /// whichever comes first; the loser is cancelled. Unlike a task group, it returns at the deadline
    /// even when the operation ignores cancellation.
    // Never inlined into `run`: its locals would join the frame that the task keeps while every
    // attempt runs, timed or not.
    @inline(never)
    static func withTimeout<Value: Sendable>(
        _ timeout: Duration, clock: any Clock<Duration>,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await Race.first(operation) { race in
            let unit = WorkCounter.beginChild("the timer of an attempt's \(timeout) timeout")
            return Task {
                await WorkCounter.run(unit) {
                    do {
                        try await clock.sleep(for: timeout)
                        race.finish(.failure(GraphError.timedOut(after: timeout)))
                    } catch {}
                }
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
