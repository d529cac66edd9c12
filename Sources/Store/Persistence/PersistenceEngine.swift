import Foundation

/// What ``StatePersistence`` needs from its engine, without the store's state type.
protocol PersistenceEngineProtocol: Sendable {
    func writeIfChanged() throws(PersistenceError)
    func stop()
}

/// The debounce and the writes of a ``StatePersistence``.
///
/// Two locks: `pending` guards the latest state, whether it changed since the last write, and the
/// timer; it is held only for those updates (never while encoding or writing), so the store's
/// subscriber never waits on the disk. `writeLock` makes writes one at a time; the state to write is
/// taken under it, so a later write always has a newer state than an earlier one. Lock order:
/// `writeLock`, then `pending`.
final class PersistenceEngine<State: Sendable>: PersistenceEngineProtocol {
    private struct Pending {
        /// The newest state the store committed; `nil` before the subscriber's first call.
        var latest: State?
        /// Whether `latest` changed since it was last taken for a write.
        var changed = false
        /// The timer that will write `latest`; `nil` when none is scheduled.
        var timer: Task<Void, Never>?
        var stopped = false
    }

    private let pending = LockedValue(Pending())
    /// A bare lock, not a `LockedValue(())`: ThreadSanitizer places an access to a zero-sized value
    /// at its object's first byte, where it reports a race with any read of the object's header.
    private let writeLock = Lock()
    private let url: URL
    private let debounce: Duration
    private let clock: any Clock<Duration>
    /// Returns a Result rather than throwing `PersistenceError`: a stored function type with a typed
    /// throws needs the macOS 15 / iOS 18 runtime, above the package's floor.
    private let encode: @Sendable (State) -> Result<Data, PersistenceError>
    private let writer: StatePersistence.Writer
    private let onError: @Sendable (PersistenceError) -> Void
    /// Called after each successful write, with the state written.
    private let didWrite: (@Sendable (State) -> Void)?

    init(
        url: URL, debounce: Duration, clock: any Clock<Duration>,
        encode: @escaping @Sendable (State) -> Result<Data, PersistenceError>,
        writer: @escaping StatePersistence.Writer,
        onError: @escaping @Sendable (PersistenceError) -> Void,
        didWrite: (@Sendable (State) -> Void)? = nil
    ) {
        self.url = url
        self.debounce = debounce
        self.clock = clock
        self.encode = encode
        self.writer = writer
        self.onError = onError
        self.didWrite = didWrite
    }

    /// The store's subscriber: keeps the newest state and starts the timer if none runs. The first
    /// call (the state at subscription) is kept but not counted as a change.
    func stateChanged(_ state: State) {
        pending.withLock { pending in
            guard !pending.stopped else { return }
            let isFirst = pending.latest == nil
            pending.latest = state
            guard !isFirst else { return }
            pending.changed = true
            if pending.timer == nil {
                pending.timer = Task { await self.timerFired() }
            }
        }
    }

    private func timerFired() async {
        do {
            try await clock.sleep(for: debounce)
        } catch {
            return  // cancelled: a flush took the change, or persistence stopped
        }
        do {
            try writeIfChanged()
        } catch {
            onError(error)
        }
    }

    /// Takes the newest state if it changed (cancelling the timer, whose work this now is), encodes
    /// and writes it. On failure the change is marked pending again, for the next write to retry.
    func writeIfChanged() throws(PersistenceError) {
        let failure = writeLock.withLock { () -> PersistenceError? in
            let (state, timer) = pending.withLock { pending -> (State?, Task<Void, Never>?) in
                guard pending.changed, !pending.stopped, let latest = pending.latest else { return (nil, nil) }
                pending.changed = false
                defer { pending.timer = nil }
                return (latest, pending.timer)
            }
            timer?.cancel()
            guard let state, let error = write(state) else { return nil }
            pending.withLock { $0.changed = true }
            return error
        }
        if let failure { throw failure }
    }

    /// Writes the newest state now if it changed, as ``writeIfChanged()`` does; why it could not
    /// (the persistence stopped, or the write failed), or `nil`.
    func writeNow() -> String? {
        if pending.withLock({ $0.stopped }) { return "its StatePersistence was stopped" }
        do {
            try writeIfChanged()
            return nil
        } catch {
            return "the state could not be saved: \(error)"
        }
    }

    /// Encodes and writes `state`; the error, if either step failed.
    private func write(_ state: State) -> PersistenceError? {
        do {
            try writer(try encode(state).get(), url)
            didWrite?(state)
            return nil
        } catch let error as PersistenceError {
            return error
        } catch {
            return .writeFailed(path: url.path, description: String(describing: error))
        }
    }

    func stop() {
        let timer = pending.withLock { pending -> Task<Void, Never>? in
            pending.stopped = true
            defer { pending.timer = nil }
            return pending.timer
        }
        timer?.cancel()
    }
}
