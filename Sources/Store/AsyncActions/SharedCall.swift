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
    /// The call's task, cancelled when every ticket withdrew, even if it is attached after that.
    private let gate = CancellationGate()
    /// The gates of the contexts of the dispatches that joined: the call's own context's gate.
    let joiners = JoinerGates()

    /// A new ticket for a dispatch whose context has `gate`, or `nil` when the call already ended
    /// or was cancelled (start a fresh one).
    func join(gate joinerGate: DispatchGate?) -> UInt64? {
        lock.withLock {
            guard result == nil, !isCancelled else { return nil }
            nextTicket += 1
            activeTickets.insert(nextTicket)
            joiners.add(joinerGate)  // with the ticket: a joiner counts from the moment it holds one
            return nextTicket
        }
    }

    func attach(_ task: Task<Void, Never>) {
        gate.attach(task)
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
        let (resumed, cancelsCall) = lock.withLock {
            () -> ([Parked<Response, any Error>], Bool) in
            guard result == nil, activeTickets.remove(ticket) != nil else { return ([], false) }
            var resumed: [Parked<Response, any Error>] = []
            waiters.removeAll { waiter in
                guard waiter.ticket == ticket else { return false }
                resumed.append(waiter.continuation)
                return true
            }
            if activeTickets.isEmpty { isCancelled = true }
            return (resumed, isCancelled)
        }
        for continuation in resumed { continuation.resume(throwing: CancellationError()) }
        if cancelsCall { gate.cancel() }
    }

    /// Cancels the call for everyone (the store was released).
    func cancel() {
        lock.withLock { isCancelled = true }
        gate.cancel()
    }

    func finish(_ result: Result<Response, any Error>) {
        let waiting = lock.withLock {
            self.result = result
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.continuation.resume(with: result) }
    }
}

/// The gate of a shared call's context: open while the context of one dispatch that joined the
/// call would let the call's dispatches through. The call serves every dispatch that joined it (it
/// is cancelled only once they all withdrew), so one of them leaving (its id's work cancelled, its
/// owner ended, its graph's node cancelled) does not drop what the call dispatches for the others;
/// once every joiner's own context is closed, nothing it dispatches reaches the state.
final class JoinerGates: Sendable {
    /// The joiners' gates, in the order they joined; `nil` once one joined whose context has none
    /// (a plain dispatch's, which nothing closes).
    private let gates = LockedValue<[DispatchGate]?>([])

    func add(_ gate: DispatchGate?) {
        gates.withLock { gates in
            if let gate { gates?.append(gate) } else { gates = nil }
        }
    }

    // Each joiner's gate is asked with no lock of the call's held (a node's gate takes its run's).
    var isOpen: Bool {
        guard let joined = gates.withLock({ $0 }) else { return true }
        return joined.contains { $0.isOpen }
    }
}

/// "The same call": the action type and its key, under which the store registers a shared call.
// Why this is safe to share: `key` wraps a `KeyedAsyncAction.Key`, which is required to be `Sendable`;
// `AnyHashable` itself is not marked so.
struct SharedCallKey: Hashable, @unchecked Sendable {
    let actionType: ObjectIdentifier
    let key: AnyHashable
}

/// Whether an action type's dispatches share calls (``KeyedAsyncAction``), decided from the type
/// where it is known: a graph node's when the graph is built, a dispatch's at once. Asking the type
/// costs less than casting each value; only a class that is not keyed itself must have its values
/// cast, since a subclass of it may be keyed.
enum KeyedActionCheck: Sendable {
    case never, always, perValue

    init<A: AsyncAction>(_ type: A.Type) {
        if type is any KeyedAsyncAction.Type {
            self = .always
        } else if type is AnyObject.Type {
            self = .perValue  // a subclass may be keyed
        } else {
            self = .never
        }
    }

    /// `action` as a keyed action, when it is one.
    func keyed<A: AsyncAction>(_ action: A) -> (any KeyedAsyncAction)? {
        self == .never ? nil : action as? any KeyedAsyncAction
    }
}

/// A shared call as the store's registry holds it, whatever its response type: closing the store
/// cancels it.
protocol CancellableWork: AnyObject, Sendable {
    func cancel()
}
