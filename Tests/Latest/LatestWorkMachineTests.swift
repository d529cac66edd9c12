import Testing

@testable import OresRedux

/// The bookkeeping of work dispatched with an id, event by event, with no task, no lock, no store.
@Suite("Take-latest, debounce and throttle: the machine")
struct LatestWorkMachineTests {
    let search = WorkID("search")
    let other = WorkID("other")

    @Test("Take latest: each dispatch cancels the one before it under the same id, not under another")
    func takeLatest() {
        var machine = LatestWorkMachine()
        let first = machine.enter(search, policy: .takeLatest, now: .zero)
        let elsewhere = machine.enter(other, policy: .takeLatest, now: .zero)
        let second = machine.enter(search, policy: .takeLatest, now: .zero)
        #expect(first.delay == nil && first.cancelled.isEmpty)
        #expect(elsewhere.cancelled.isEmpty)
        #expect(second.delay == nil)
        #expect(second.cancelled == [first.token])
        machine.end(search, token: first.token, now: .zero)  // the cancelled one ends later
        let cancelled = machine.cancelAll(search, now: .zero)
        let cancelledAgain = machine.cancelAll(search, now: .zero)
        #expect(cancelled == [second.token])
        #expect(cancelledAgain.isEmpty)
        #expect(machine.busyIDs == [other])
    }

    @Test("Debounce: a burst leaves only its last dispatch waiting; it starts after the quiet time")
    func debounce() {
        var machine = LatestWorkMachine()
        var tokens: [UInt64] = []
        for keystroke in 0..<10 {
            let plan = machine.enter(
                search, policy: .debounce(.milliseconds(300)), now: .milliseconds(100 * keystroke))
            #expect(plan.delay == .milliseconds(300))
            #expect(plan.cancelled == tokens.suffix(1))
            tokens.append(plan.token)
        }
        for token in tokens.dropLast() {
            let began = machine.begin(search, token: token)
            #expect(!began)
        }
        let lastBegan = machine.begin(search, token: tokens.last!)
        #expect(lastBegan)
        // Typing again cancels the search that started.
        let again = machine.enter(search, policy: .debounce(.milliseconds(300)), now: .seconds(2))
        #expect(again.cancelled == [tokens.last!])
    }

    @Test("Throttle: the first starts at once, the next waits for the window, the latest waiting one wins")
    func throttle() {
        var machine = LatestWorkMachine()
        let policy = InFlightPolicy.throttle(.seconds(1))
        let first = machine.enter(search, policy: policy, now: .zero)
        #expect(first.delay == nil && first.cancelled.isEmpty)
        let second = machine.enter(search, policy: policy, now: .milliseconds(200))
        #expect(second.delay == .milliseconds(800))
        #expect(second.cancelled.isEmpty, "a throttled dispatch never cancels work that started")
        let third = machine.enter(search, policy: policy, now: .milliseconds(500))
        #expect(third.delay == .milliseconds(500), "it keeps the waiting one's planned start")
        #expect(third.cancelled == [second.token])
        let secondBegan = machine.begin(search, token: second.token)
        let thirdBegan = machine.begin(search, token: third.token)
        #expect(!secondBegan)
        #expect(thirdBegan)
        machine.end(search, token: first.token, now: .seconds(1))
        machine.end(search, token: third.token, now: .seconds(1))
        // The window of the start at 1 s is still open at 1.5 s: the next one waits until 2 s.
        let fourth = machine.enter(search, policy: policy, now: .milliseconds(1_500))
        #expect(fourth.delay == .milliseconds(500))
        let fourthBegan = machine.begin(search, token: fourth.token)
        #expect(fourthBegan)
        machine.end(search, token: fourth.token, now: .seconds(2))
        // After the window, at once again.
        let fifth = machine.enter(search, policy: policy, now: .seconds(4))
        #expect(fifth.delay == nil)
    }

    @Test("Bad input: negative durations act as zero; ending or beginning unknown work changes nothing")
    func badInput() {
        var machine = LatestWorkMachine()
        let debounced = machine.enter(search, policy: .debounce(.seconds(-5)), now: .zero)
        #expect(debounced.delay == .zero)
        let throttled = machine.enter(other, policy: .throttle(.seconds(-1)), now: .zero)
        #expect(throttled.delay == nil)
        let again = machine.enter(other, policy: .throttle(.seconds(-1)), now: .zero)
        #expect(again.delay == nil)
        machine.end(WorkID(42), token: 999, now: .zero)
        let began = machine.begin(WorkID(42), token: 999)
        let cancelled = machine.cancelAll(WorkID(42), now: .zero)
        #expect(!began)
        #expect(cancelled.isEmpty)
    }

    @Test("Idle ids are forgotten, so an app that uses a new id per screen does not grow the table")
    func forgetsIdleIDs() {
        var machine = LatestWorkMachine()
        for screen in 0..<1_000 {
            let id = WorkID(screen)
            let plan = machine.enter(id, policy: .takeLatest, now: .zero)
            machine.end(id, token: plan.token, now: .zero)
        }
        #expect(machine.busyIDs.isEmpty)
        #expect(machine.slotCount == 0)
    }
}
