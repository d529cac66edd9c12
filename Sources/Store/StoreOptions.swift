/// Settings of a ``Store`` beyond its state, reducer and middleware.
public struct StoreOptions: Sendable {
    /// The clock that paces time in graphs: node timeouts, retry back-off and delay nodes; async
    /// actions and middleware read it as ``ActionContext/clock``.
    /// Tests pass a `VirtualClock` to run a 30-second timeout in microseconds.
    public var clock: any Clock<Duration>

    /// Receives misuse the store survives but the app should hear about, such as a dispatch after
    /// the store was released. By default it prints to standard error.
    public var onDiagnostic: @Sendable (StoreDiagnostic) -> Void

    /// The services async actions and middleware read from ``ActionContext/dependencies``: the
    /// app's live API client, a test's fake. Empty by default: every key reads its default value.
    public var dependencies = Dependencies()

    /// Observes the store's async actions and graph runs from its first dispatch: started, each
    /// node's end, finished (see ``StoreEvent`` for the order and threads). `nil` by default, which
    /// costs nothing; `Store.observeEvents(_:)` adds observers later. ``StoreEvent/logger(_:)``
    /// logs every event.
    public var onEvent: (@Sendable (StoreEvent) -> Void)?

    /// The marks of the durable sync work the initial state already holds, as
    /// ``StatePersistence/restoreDurable(from:default:)`` read them with it; empty by default (a
    /// first launch, or a store without durable runs). See ``DurableMarks``.
    public var durableMarks = DurableMarks()

    /// Answers async actions in place of their `run` (set by `TestStore` to serve stubs).
    package var interceptor: (any AsyncActionInterceptor)?

    /// Counts the work the store starts, so that a `TestStore` knows when it is quiet (set by the
    /// test store; `nil` otherwise, which costs a `nil` check per task started).
    package var workCounter: WorkCounter?

    /// Creates options.
    /// - Parameters:
    ///   - clock: paces timeouts, back-off and delays; `ContinuousClock()` by default.
    ///   - onDiagnostic: receives diagnostics; prints them to standard error by default.
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        onDiagnostic: @escaping @Sendable (StoreDiagnostic) -> Void = StoreDiagnostic.printToStandardError
    ) {
        self.clock = clock
        self.onDiagnostic = onDiagnostic
    }

    /// Creates options with the dependencies async actions and middleware read from their context.
    /// - Parameters:
    ///   - clock: paces timeouts, back-off and delays, and is ``ActionContext/clock``;
    ///     `ContinuousClock()` by default.
    ///   - dependencies: what ``ActionContext/dependencies`` returns in this store.
    ///   - onDiagnostic: receives diagnostics; prints them to standard error by default.
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        dependencies: Dependencies,
        onDiagnostic: @escaping @Sendable (StoreDiagnostic) -> Void = StoreDiagnostic.printToStandardError
    ) {
        self.init(clock: clock, onDiagnostic: onDiagnostic)
        self.dependencies = dependencies
    }
}

/// Runs async actions in place of the store: the seam `TestStore` uses for its stubs.
package protocol AsyncActionInterceptor: Sendable {
    func perform<A: AsyncAction>(_ action: A, context: ActionContext<A.State>) async throws -> A.Response
}

/// Something the store refused or dropped without crashing, with a sentence that says what and why.
public struct StoreDiagnostic: Sendable, CustomStringConvertible, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// An action or graph was dispatched after its store was released (through a context that
        /// outlived it); it was dropped, or the graph's run was cancelled.
        case dispatchAfterRelease
        /// A reducer, or a graph node's `make` or fallback closure, dispatched; the dispatch was
        /// dropped (or the graph's run cancelled, or the async action failed) and the store went on.
        /// They must be pure: dispatch from a middleware, a subscriber or an async action instead.
        case dispatchFromReducer
        /// A durable run's journal could not record what the run did after the fact (a sync
        /// node's application, the run's end) or remove a finished run; the run went on, and the
        /// journal keeps what it had (see ``DurableRuns``).
        case journalFailed
    }

    /// What happened.
    public let kind: Kind
    /// A sentence for a person: what was dropped and why.
    public let message: String

    /// Creates a diagnostic.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The default diagnostic handler: one line on standard error.
    public static let printToStandardError: @Sendable (StoreDiagnostic) -> Void = { diagnostic in
        printLineToStandardError("OresRedux: \(diagnostic.message)")
    }
}

/// Writes `line` and a newline on standard error, unbuffered.
func printLineToStandardError(_ line: String) {
    _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
}

// The C library, on every platform Swift ships for.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(WASILibc)
    import WASILibc
#elseif canImport(ucrt)
    import ucrt
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc, ucrt)")
#endif

/// Errors the store itself raises.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The work was asked of a store that had already been released.
    case storeReleased
    /// The async action was dispatched from a reducer (or a graph's `make` or fallback closure),
    /// which must be pure; it was not started.
    case dispatchedFromReducer

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .storeReleased: "the store was released before this work could run"
        case .dispatchedFromReducer: "the action was dispatched from a reducer, which must be pure; it was not started"
        }
    }
}
