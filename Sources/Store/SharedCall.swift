/// One in-flight call of a ``KeyedAsyncAction`` that several dispatches share.
///
/// Each dispatch that joins holds a ticket. The call is cancelled when every ticket has withdrawn;
/// a withdrawn ticket's waiters get `CancellationError` at once, while the others keep waiting.
@usableFromInline
// Why this is safe to share: every `var` is read and written only under `lock`.
final class SharedCall<Response: Sendable>: CancellableWork, @unchecked Sendable {
    private let lock = Lock()
    private var result: Result<Response, any Error>?
    private var waiters: [(ticket: UInt64, continuation: Parked<Response, any Error>)] = []
    private var activeTickets: Set<UInt64> = []
    private var nextTicket: UInt64 = 0
    private var isCancelled = false
    private var task: Task<Void, Never>?

    /// A new ticket, or `nil` when the call already ended or was cancelled (start a fresh one).
    func join() -> UInt64? {
        lock.withLock {
            guard result == nil, !isCancelled else { return nil }
            nextTicket += 1
            activeTickets.insert(nextTicket)
            return nextTicket
        }
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = lock.withLock {
            self.task = task
            return isCancelled
        }
        if cancelNow { task.cancel() }
    }

    func value(for ticket: UInt64) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            let continuation = Parked(continuation, parkingOn: "waiting for a shared call")
            let ready: Result<Response, any Error>? = lock.withLock {
                // A withdrawn ticket throws, even once the call has ended: it stopped waiting.
                guard activeTickets.contains(ticket) else { return .failure(CancellationError()) }
                if let result { return result }
                waiters.append((ticket, continuation))
                return nil
            }
            if let ready { continuation.resume(with: ready) }
            continuation.park()
        }
    }

    func withdraw(_ ticket: UInt64) {
        let (resumed, cancelTask) = lock.withLock {
            () -> ([Parked<Response, any Error>], Task<Void, Never>?) in
            guard result == nil, activeTickets.remove(ticket) != nil else { return ([], nil) }
            var resumed: [Parked<Response, any Error>] = []
            waiters.removeAll { waiter in
                guard waiter.ticket == ticket else { return false }
                resumed.append(waiter.continuation)
                return true
            }
            if activeTickets.isEmpty {
                isCancelled = true
                return (resumed, task)
            }
            return (resumed, nil)
        }
        for continuation in resumed { continuation.resume(throwing: CancellationError()) }
        cancelTask?.cancel()
    }

    /// Cancels the call for everyone (the store was released).
    func cancel() {
        let task = lock.withLock {
            isCancelled = true
            return self.task
        }
        task?.cancel()
    }

    func finish(_ result: Result<Response, any Error>) {
        let waiting = lock.withLock {
            self.result = result
            self.task = nil
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.continuation.resume(with: result) }
    }
}
