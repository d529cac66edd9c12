/// What a run reads of its store's time and work, handed over by the store (through `RunHost` it
/// would copy the store's whole options): the store's clock, the time since the store was created
/// on it (what runs measure their times against, so that a run needs no stopwatch of its own), and
/// a test store's two pieces: the count of its work and what runs async actions in its place. One
/// per store.
final class RunTime: Sendable {
    let clock: any Clock<Duration>
    let sinceCreation: @Sendable () -> Duration
    let workCounter: WorkCounter?
    /// What runs async actions in place of the store (a test store's stubs); `nil` for most stores.
    let interceptor: (any AsyncActionInterceptor)?
    /// Whether `interceptor` is set: read at every async node's start, without copying it.
    let hasInterceptor: Bool

    init(_ options: StoreOptions) {
        clock = options.clock
        sinceCreation = stopwatch(on: options.clock)
        workCounter = options.workCounter
        interceptor = options.interceptor
        hasInterceptor = options.interceptor != nil
    }
}
