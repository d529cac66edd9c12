import OresReduxTesting
import Testing

@testable import OresRedux

/// The stopwatch a store's runs read their times from: the default clock is read through a closure
/// of its own type, any other clock through its own `now`.
@Suite("Stopwatch")
struct StopwatchTests {
    @Test("on the default clock, a reading is the continuous time since the stopwatch was made, as on any clock")
    func continuousClock() {
        let before = ContinuousClock.now
        let direct = stopwatch(on: ContinuousClock())
        // A clock of another type takes the path every clock but the default one takes. The
        // suspending clock never runs ahead of the continuous one (it stops while the machine sleeps).
        let generic = stopwatch(on: SuspendingClock())
        let laterStart = generic()
        let earlierStart = direct()
        let after = ContinuousClock.now
        // The stopwatch made first, read last, has run at least as long.
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
