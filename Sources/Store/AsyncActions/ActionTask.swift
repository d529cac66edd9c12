/// A handle on an async action the store is running.
///
/// Await ``value`` for the response; call ``cancel()`` to cancel the work through Swift task
/// cancellation. Awaiting `value` from a task that is itself cancelled does not cancel the work
/// (as with `Task.value`). An ``ActionGraph`` can wait on it with `join(_:)`.
public struct ActionTask<Response: Sendable>: Sendable {
    @usableFromInline
    enum Source: Sendable {
        /// A task of the store's, and its end when the store counts its work.
        case task(Task<Response, any Error>, end: TaskEnd?)
        case shared(SharedCall<Response>, ticket: UInt64)
        case failed(any Error)
    }

    @usableFromInline
    let source: Source

    @usableFromInline
    init(_ source: Source) {
        self.source = source
    }

    /// The action's response, or the error it threw. A cancelled action throws what its `run` threw
    /// on cancellation (usually `CancellationError`); a joined call this handle withdrew from throws
    /// `CancellationError` at once; a store released before the action could start throws
    /// ``StoreError/storeReleased``.
    public var value: Response {
        get async throws {
            switch source {
            case .task(let task, let end):
                end?.parkCurrentUnit()
                return try await task.value
            case .shared(let call, let ticket): return try await call.value(for: ticket)
            case .failed(let error): throw error
            }
        }
    }

    /// Whether ``cancel()`` reached the action's own task before its body ended (never, for a
    /// joined call or a refusal): how a test store tells work its owner's end cancelled from work
    /// that had ended before, even when the end comes while the task is leaving its owner. Known
    /// only when the store counts its work (a test store); otherwise whether it was ever cancelled.
    package var wasCancelled: Bool {
        switch source {
        case .task(let task, let end): end?.wasCancelledBeforeItEnded ?? task.isCancelled
        case .shared, .failed: false
        }
    }

    /// Cancels the work. For an action that joined a call in flight (``KeyedAsyncAction``), this
    /// handle stops waiting, and the call itself is cancelled once every handle on it has cancelled.
    public func cancel() {
        switch source {
        case .task(let task, _): task.cancel()
        case .shared(let call, let ticket): call.withdraw(ticket)
        case .failed: break
        }
    }
}
