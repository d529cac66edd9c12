/// What an async node's body is given when its node's task runs it. Two words: the task keeps
/// the frames that hold it while the node's action runs.
struct AsyncNodeStart: Sendable {
    /// The node's run: a `GraphRun`, which the body, made where the state type is known, casts back.
    let run: any AnyObject & Sendable
    let node: Int
}

/// What numbers a node's attempts and keeps its retry budget: its run's machine (see
/// `RunAttempts`), asked right before each attempt and after each failed one.
protocol AttemptBudget: Sendable {
    /// Right before an attempt calls its operation: the attempt's numbers, or `nil` when the node
    /// may no longer run (the run was cancelled).
    func startAttempt() -> AttemptStart?
    /// After a failed attempt: whether the budget allows another, given the policy's `maxAttempts`.
    func mayRetry(maxAttempts: Int) -> Bool
}

/// A node's attempts, ready to run: one attempt's work, the budget each attempt asks first, each
/// attempt's timeout and the policy that retries them.
struct AttemptPlan<Value: Sendable, Budget: AttemptBudget> {
    /// One attempt, given its number (the journal's, counting a durable run's earlier launches).
    let operation: @Sendable (Int) async throws -> Value
    /// Asked right before each attempt calls `operation`; `nil` (the run was cancelled) ends the
    /// attempts with `CancellationError` without calling it.
    let budget: Budget
    let timeout: Duration?
    /// The policy that retries the attempts; `nil` for a node that set none (one attempt).
    let retry: RetryPolicy?

    /// The budget's start and the operation in one closure, for an attempt raced against its
    /// timeout; it reports the attempt's start through `started`.
    func budgetedOperation(_ started: LockedValue<AttemptStart?>) -> @Sendable () async throws -> Value {
        { [operation, budget] in
            guard let start = budget.startAttempt() else { throw CancellationError() }
            started.withLock { $0 = start }
            return try await operation(start.attempt)
        }
    }

    /// The wait before another attempt, after attempt `inLaunch` of this launch ended with
    /// `error`; `nil` when no further attempt is made (the error is not retried, or the budget the
    /// machine keeps is spent).
    func delay(beforeRetryAfter error: any Error, inLaunch: Int) -> Duration? {
        guard let retry, !Task.isCancelled, !(error is CancellationError), !(error is DurableRunError),
            retry.shouldRetry(error), budget.mayRetry(maxAttempts: retry.maxAttempts)
        else {
            return nil
        }
        return retry.backoff.delay(beforeRetry: inLaunch)
    }
}

/// Runs a node's attempts: each within its timeout, retried by its policy, paced by the store's clock.
enum Attempts {
    /// - Returns: the last attempt's result.
    static func run<Value: Sendable, Budget: AttemptBudget>(
        _ plan: AttemptPlan<Value, Budget>, clock: any Clock<Duration>
    ) async -> Result<Value, any Error> {
        // Only an attempt raced against its timeout needs the budget and the operation in one
        // closure; the common attempt asks the budget in line, and allocates nothing for it. The
        // task keeps this frame while an attempt runs, so what is not needed across an attempt is
        // left to the plan's sync methods (see `GraphRun.runAsync`).
        let started = plan.timeout == nil ? nil : LockedValue<AttemptStart?>(nil)
        while true {
            var inLaunch = 0
            do {
                try Task.checkCancellation()
                if let timeout = plan.timeout, let started {
                    defer { inLaunch = started.withLock { $0?.inLaunch ?? 0 } }
                    return .success(try await withTimeout(timeout, clock: clock, plan.budgetedOperation(started)))
                }
                guard let start = plan.budget.startAttempt() else { throw CancellationError() }
                inLaunch = start.inLaunch
                return .success(try await plan.operation(start.attempt))
            } catch {
                guard inLaunch > 0, let delay = plan.delay(beforeRetryAfter: error, inLaunch: inLaunch) else {
                    return .failure(error)
                }
                if delay > .zero {
                    do { try await clock.sleep(for: delay) } catch { return .failure(error) }
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
