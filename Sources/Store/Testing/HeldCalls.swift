/// Calls of one async action type that a ``TestStore`` holds until the test answers them.
///
/// Get one with ``TestStore/hold(_:)``. Each call of the action waits; ``nextCall()`` hands the test
/// the action that was called (so it can check its parameters), and ``respond(with:)`` or
/// ``fail(with:)`` answer the oldest waiting call. An answer given before any call is kept for the
/// next one. A held call whose task is cancelled ends with `CancellationError`.
public final class HeldCalls<A: AsyncAction>: Sendable {
    private struct Waiting {
        let id: UInt64
        let continuation: CheckedContinuation<A.Response, any Error>
    }

    private struct Held {
        var waiting: [Waiting] = []
        var answers: [Result<A.Response, any Error>] = []
        var calls: [A] = []
        var handedOut = 0
        var callWaiters: [CheckedContinuation<A, Never>] = []
        var nextID: UInt64 = 0
        var cancelledEarly: Set<UInt64> = []
    }

    private let held = LockedValue(Held())

    init() {}

    /// How many calls wait for an answer.
    public var waitingCount: Int { held.withLock { $0.waiting.count } }

    /// Every call made so far, oldest first.
    public var calls: [A] { held.withLock { $0.calls } }

    /// The next call not yet handed out, waiting until one is made.
    public func nextCall() async -> A {
        await withCheckedContinuation { continuation in
            let ready = held.withLock { held -> A? in
                if held.handedOut < held.calls.count {
                    held.handedOut += 1
                    return held.calls[held.handedOut - 1]
                }
                held.callWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Answers the oldest waiting call with `response` (or the next call, if none waits).
    public func respond(with response: A.Response) {
        answer(.success(response))
    }

    /// Fails the oldest waiting call with `error` (or the next call, if none waits).
    public func fail(with error: any Error) {
        answer(.failure(error))
    }

    private func answer(_ result: Result<A.Response, any Error>) {
        let waiting = held.withLock { held -> Waiting? in
            if held.waiting.isEmpty {
                held.answers.append(result)
                return nil
            }
            return held.waiting.removeFirst()
        }
        waiting?.continuation.resume(with: result)
    }

    func call(_ action: A) async throws -> A.Response {
        let id = held.withLock { held -> UInt64 in
            held.nextID += 1
            return held.nextID
        }
        defer { held.withLock { _ = $0.cancelledEarly.remove(id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<A.Response, any Error>) in
                let (answer, handedTo) = held.withLock { held -> (Result<A.Response, any Error>?, CheckedContinuation<A, Never>?) in
                    held.calls.append(action)
                    var handedTo: CheckedContinuation<A, Never>?
                    if !held.callWaiters.isEmpty {
                        handedTo = held.callWaiters.removeFirst()
                        held.handedOut += 1
                    }
                    if held.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), handedTo) }
                    if !held.answers.isEmpty { return (held.answers.removeFirst(), handedTo) }
                    held.waiting.append(Waiting(id: id, continuation: continuation))
                    return (nil, handedTo)
                }
                handedTo?.resume(returning: action)
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiting = held.withLock { held -> Waiting? in
                guard let index = held.waiting.firstIndex(where: { $0.id == id }) else {
                    held.cancelledEarly.insert(id)
                    return nil
                }
                return held.waiting.remove(at: index)
            }
            waiting?.continuation.resume(throwing: CancellationError())
        }
    }
}
