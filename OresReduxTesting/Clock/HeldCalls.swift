import Dispatch
import OresRedux

/// Calls of one async action type that a ``TestStore`` holds until the test answers them.
///
/// Get one with ``TestStore/hold(_:)``. Each call of the action waits; ``nextCall(timeout:fileID:filePath:line:column:)``
/// hands the test the action that was called (so it can check its parameters), and
/// ``respond(with:)`` or ``fail(with:)`` answer the oldest waiting call. An answer given before any
/// call is kept for the next one. A held call whose task is cancelled (its run was cancelled, or its
/// node timed out) ends with `CancellationError`.
public final class HeldCalls<A: AsyncAction>: Sendable {
    private struct Waiting {
        let id: UInt64
        let continuation: Parked<A.Response, any Error>
    }

    private struct Held {
        var waiting: [Waiting] = []
        var answers: [Result<A.Response, any Error>] = []
        var calls: [A] = []
        var handedOut = 0
        var nextID: UInt64 = 0
        var cancelledEarly: Set<UInt64> = []
    }

    private let held = LockedValue(Held())
    private let owner: TestStoreWaits

    init(owner: TestStoreWaits) {
        self.owner = owner
    }

    /// How many calls wait for an answer.
    public var waitingCount: Int { held.withLock { $0.waiting.count } }

    /// Every call made so far, oldest first.
    public var calls: [A] { held.withLock { $0.calls } }

    /// The next call not yet handed out, waiting until one is made.
    ///
    /// - Parameters:
    ///   - timeout: how long in real time to wait; the test store's ``TestStore/timeout`` when `nil`.
    ///   - fileID: where the call is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if no call comes in time, listing what is in flight.
    public func nextCall(
        timeout: Duration? = nil, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws -> A {
        let limit = timeout ?? owner.timeout()
        var call: A?
        let came = await owner.counter.wait(timeout: limit) {
            call = held.withLock { held -> A? in
                guard held.handedOut < held.calls.count else { return nil }
                held.handedOut += 1
                return held.calls[held.handedOut - 1]
            }
            return call != nil
        }
        guard came, let call else {
            throw TestStoreFailure(
                fileID: fileID, filePath: filePath, line: line, column: column,
                """
                waited \(describeSeconds(limit)) for a call of \(A.self), but none came
                \((owner.inFlight() + sanitizerNote()).joined(separator: "\n"))
                """)
        }
        return call
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
        owner.counter.noteProgress()
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
                let continuation = Parked(continuation, parkingOn: "in a held call of \(A.self)")
                let answer = held.withLock { held -> Result<A.Response, any Error>? in
                    held.calls.append(action)
                    if held.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if !held.answers.isEmpty { return held.answers.removeFirst() }
                    held.waiting.append(Waiting(id: id, continuation: continuation))
                    return nil
                }
                owner.counter.noteProgress()
                if let answer { continuation.resume(with: answer) }
                continuation.park()
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

/// What a ``HeldCalls`` needs from its test store: the timeout, the in-flight list, and the store's
/// count of its work, whose progress ends a wait.
struct TestStoreWaits: Sendable {
    let timeout: @Sendable () -> Duration
    let inFlight: @Sendable () -> [String]
    let counter: WorkCounter
}
