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
