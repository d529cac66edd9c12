import Foundation

/// What a test wait throws when the awaited work did not finish in time: a hang, caught.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    let seconds: Double

    var description: String { "\(what) did not finish within \(seconds) s (a hang?)" }
}

/// Awaits `operation`, or throws ``DeadlineExceeded`` once `seconds` have passed, whichever comes
/// first.
///
/// Unlike Swift Testing's `.timeLimit` (which cancels the test and then waits for it), this returns
/// at the deadline even when the awaited work ignores cancellation, such as a continuation nobody
/// resumes: a hang fails the test instead of stalling the suite. The timer never waits for work; it
/// only bounds the wait.
func withDeadline<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "the awaited work",
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.install(continuation)
        Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            race.finish(.failure(DeadlineExceeded(what: what, seconds: seconds)))
        }
    }
}

/// The first result wins; the continuation is resumed exactly once.
private final class DeadlineRace<T: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` and `isFinished` are touched only under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var isFinished = false

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func finish(_ result: Result<T, any Error>) {
        lock.lock()
        guard !isFinished else {
            lock.unlock()
            return
        }
        isFinished = true
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { early = result }
        lock.unlock()
        continuation?.resume(with: result)
    }
}
