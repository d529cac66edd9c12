extension ActionContext {
    /// The store's dependencies: the ``StoreOptions/dependencies`` it was created with, or in a
    /// `TestStore` the ones the test set.
    ///
    /// Async actions read their services here instead of carrying them as fields; middleware gets
    /// the same value. Every context of one store returns the same dependencies.
    public var dependencies: Dependencies { core.options.dependencies }

    /// The store's clock: ``StoreOptions/clock`` (`ContinuousClock` by default), or a
    /// `TestStore`'s `VirtualClock`.
    ///
    /// Sleep and poll on it, not on `Task.sleep` or `ContinuousClock()`, so that a test moves the
    /// time of an async action the same way it moves the time of the graph's timeouts and back-off:
    ///
    /// ```swift
    /// try await context.clock.sleep(for: .seconds(2))
    /// ```
    ///
    /// The clock's durations are `Duration`; an instant is `any InstantProtocol`, so measure with
    /// `clock.now` and `duration(to:)` on the same clock, or sleep with `sleep(for:)`.
    public var clock: any Clock<Duration> { core.options.clock }
}
