/// The first of several results wins: the operation's, a rival's (`rivals` may start a task that
/// calls `finish`), or `CancellationError` when the waiting task is cancelled. The continuation is
/// resumed exactly once, after the tasks that lost were cancelled: whoever waits on the race (a run,
/// and through it a test's `finish`) never sees a loser that has not yet been told to stop.
final class Race<Value: Sendable>: Sendable {
    /// What to do once the race is decided: cancel the losers, then resume the waiter.
    private struct Decision {
        let continuation: Parked<Value, any Error>
        let result: Result<Value, any Error>
        let tasks: [Task<Void, Never>]

        func perform() {
            // The winner's task is done or about to be: cancelling it too is harmless.
            for task in tasks { task.cancel() }
            continuation.resume(with: result)
        }
    }

    private struct Racing {
        var continuation: Parked<Value, any Error>?
        var result: Result<Value, any Error>?
        /// `nil` until the racing tasks exist; the race is decided only then.
        var tasks: [Task<Void, Never>]?

        /// The decision, once a result and the tasks are both known; `nil` before, and after it was taken.
        mutating func takeDecision() -> Decision? {
            guard let continuation, let result, let tasks else { return nil }
            self.continuation = nil
            self.tasks = []
            return Decision(continuation: continuation, result: result, tasks: tasks)
        }
    }

    private let state = LockedValue(Racing())

    static func first(
        _ operation: @escaping @Sendable () async throws -> Value,
        rivals: (Race) -> Task<Void, Never>?
    ) async throws -> Value {
        let race = Race()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = Parked(continuation, parkingOn: "waiting for its attempt or its timer")
                race.state.withLock { $0.continuation = waiter }
                // A cancelled waiter must not start the work at all.
                if Task.isCancelled {
                    race.finish(.failure(CancellationError()))
                    race.track([])
                    waiter.park()
                    return
                }
                let unit = WorkCounter.beginChild("an attempt")
                let work = Task {
                    await WorkCounter.run(unit) {
                        do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                    }
                }
                race.track([work] + (rivals(race).map { [$0] } ?? []))
                waiter.park()
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    private func track(_ tasks: [Task<Void, Never>]) {
        let decision = state.withLock { racing in
            racing.tasks = tasks
            return racing.takeDecision()
        }
        decision?.perform()
    }

    func finish(_ result: Result<Value, any Error>) {
        let decision = state.withLock { racing -> Decision? in
            guard racing.result == nil else { return nil }
            racing.result = result
            return racing.takeDecision()
        }
        decision?.perform()
    }
}
