import OresReduxTesting
import Testing

@testable import OresRedux

/// The stopwatch a store's runs read their times from: the default clock is read through a closure
/// of its own type, any other clock through its own `now`.
@Suite("Stopwatch")
struct StopwatchTests {
    /// The continuous clock, behind a type of its own: its stopwatch takes the path every clock
    /// but the default one takes.
    struct ForwardingClock: Clock {
        let clock = ContinuousClock()
        var now: ContinuousClock.Instant { clock.now }
        var minimumResolution: Duration { clock.minimumResolution }
        /// Never called: a stopwatch only reads `now`. Ends at once rather than waiting on the clock.
        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            throw CancellationError()
        }
    }

    @Test("on the default clock, a reading is the continuous time since the stopwatch was made, as on any clock")
    func continuousClock() {
        let before = ContinuousClock.now
        let direct = stopwatch(on: ContinuousClock())
        let forwarded = stopwatch(on: ForwardingClock())
        let laterStart = forwarded()
        let earlierStart = direct()
        let after = ContinuousClock.now
        // Both read the same clock: the one made first, read last, has run at least as long.
        #expect(earlierStart >= laterStart)
        #expect(laterStart >= .zero)
        #expect(earlierStart <= before.duration(to: after))
    }

    @Test("a clock of another type is read through its own `now`: a virtual clock's stopwatch walks with it")
    func virtualClock() async {
        let clock = VirtualClock()
        let watch = stopwatch(on: clock)
        #expect(watch() == .zero)
        await clock.advance(by: .seconds(3))
        #expect(watch() == .seconds(3))
        await clock.advance(by: .milliseconds(5))
        #expect(watch() == .seconds(3) + .milliseconds(5))
    }
}
