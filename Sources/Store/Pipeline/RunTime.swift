/// What a run reads of its store's time and work, handed over by the store (through `RunHost` it
/// would copy the store's whole options): the store's clock, the time since the store was created
/// on it (what runs measure their times against, so that a run needs no stopwatch of its own), and
/// the store's count of its work, when it keeps one (a test store's). One per store.
final class RunTime: Sendable {
    let clock: any Clock<Duration>
    let sinceCreation: @Sendable () -> Duration
    let workCounter: WorkCounter?

    init(clock: any Clock<Duration>, workCounter: WorkCounter?) {
        self.clock = clock
        self.sinceCreation = stopwatch(on: clock)
        self.workCounter = workCounter
    }
}
