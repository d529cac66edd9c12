import Dispatch
import Testing

@testable import OresRedux
@testable import OresReduxTesting

/// The store's count of its own work, which every TestStore wait ends on: units, parks, resumes
/// that come before the park they answer, and waits that fail only when nothing progressed.
@Suite("WorkCounter: the store counts its own work")
struct WorkCounterTests {
    @Test("a unit runs from begin to end; quiet means no unit runs")
    func beginAndEnd() {
        let counter = WorkCounter()
        #expect(counter.snapshot.running == 0)
        let unit = counter.begin("FetchFeed", isTask: false)
        #expect(counter.snapshot.running == 1)
        #expect(counter.lines() == ["  running: FetchFeed"])
        unit.end()
        #expect(counter.snapshot.running == 0)
        #expect(counter.lines().isEmpty)
    }

    @Test("a task's unit the pool has not started yet is named so, apart from one that runs")
    func notStartedIsNamed() async {
        let counter = WorkCounter()
        let unit = counter.begin("FetchFeed")
        #expect(counter.lines() == ["  running: FetchFeed (its task has not started yet)"])
        await WorkCounter.run(unit) {
            #expect(counter.lines() == ["  running: FetchFeed"])
            unit.note("called its stub")
            #expect(counter.lines() == ["  running: FetchFeed, last called its stub"])
        }
        #expect(counter.lines().isEmpty)
    }

    @Test("parked units do not run; a resume marks the unit running before the task goes on")
    func parkAndResume() {
        let counter = WorkCounter()
        let unit = counter.begin("FetchFeed")
        unit.park(on: "asleep on the clock until +5.0 seconds")
        #expect(counter.snapshot.running == 0)
        #expect(counter.lines() == ["  parked: FetchFeed, asleep on the clock until +5.0 seconds"])
        unit.unpark()
        #expect(counter.snapshot.running == 1)
        unit.end()
        #expect(counter.snapshot.running == 0)
    }

    @Test("a resume that comes before its park is a credit: the unit never reads as parked")
    func resumeBeforePark() {
        let counter = WorkCounter()
        let unit = counter.begin("an attempt")
        unit.unpark()  // the resumer found the continuation before the task finished suspending
        #expect(counter.snapshot.running == 1)
        unit.park(on: "waiting for a race")
        #expect(counter.snapshot.running == 1, "the park answers the resume that already came")
        unit.park(on: "asleep on the clock")
        #expect(counter.snapshot.running == 0, "the next park parks")
        unit.end()
        #expect(counter.snapshot.running == 0)
    }

    @Test("a parked unit that ends is not counted twice")
    func endWhileParked() {
        let counter = WorkCounter()
        let unit = counter.begin("a timer")
        unit.park(on: "asleep")
        unit.end()
        unit.unpark()  // too late: the unit is gone
        #expect(counter.snapshot.running == 0)
    }

    @Test("a task that only inherited a unit (a Task made inside a stub) parks nothing")
    func inheritedUnitDoesNotPark() async {
        let counter = WorkCounter()
        let unit = counter.begin("a stub")
        await WorkCounter.run(unit) {
            #expect(WorkCounter.currentUnit() != nil, "the unit's own task")
            await Task {
                #expect(WorkCounter.currentUnit() == nil, "a child task inherits the task-local, not the unit")
            }.value
        }
        #expect(counter.snapshot.running == 0, "run ends the unit")
    }

    @Test("wait returns as soon as its condition holds, at every change")
    func waitEndsOnAChange() async {
        let counter = WorkCounter()
        let unit = counter.begin("FetchFeed")
        let waiter = Task { await counter.wait(timeout: .seconds(60)) { counter.snapshot.running == 0 } }
        unit.park(on: "in a held call")
        #expect(await waiter.value)
    }

    @Test("wait fails when nothing progressed for its timeout, and keeps waiting while work progresses")
    func waitFailsOnlyWithoutProgress() async {
        let counter = WorkCounter()
        let unit = counter.begin("a stub awaiting something outside the store")
        #expect(await counter.wait(timeout: .milliseconds(50)) { false } == false)

        // Slow work that keeps progressing for about a second, a step each time the pool runs it
        // (so it is starved exactly when the wait's pool time stops): a 300 ms timeout never passes
        // without progress, though the whole wait lasts longer than it.
        let ticker = Task {
            let end = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < end {
                counter.noteProgress()
                await Task.yield()
            }
            unit.end()
        }
        #expect(await counter.wait(timeout: .milliseconds(300)) { counter.snapshot.running == 0 })
        await ticker.value
    }

    @Test("pool time is kept per priority: a wait's window passes by the beats of its own task's base priority")
    func poolTimeLanes() async {
        let low = await Task(priority: .low) { PoolTime.shared.now }.value
        let high = await Task(priority: .high) { PoolTime.shared.now }.value
        #expect(low.lane == TaskPriority.low.rawValue)
        #expect(high.lane == TaskPriority.high.rawValue)

        // Each lane's probes run at its priority, so a window passes in either (nothing wakes it).
        for priority in [TaskPriority.low, .high] {
            let expired = await Task(priority: priority) {
                await ExpiringWakeUp().wait(window: .milliseconds(30), from: PoolTime.shared.now)
            }.value
            #expect(expired == false)
        }
    }

    @Test(
        "a window that starts after the timer read the time has not passed: no wrap-around, so a wait never expires at once"
    )
    func windowStartingAfterTheTimersReading() {
        // The timer's thread read the time, then was preempted; meanwhile a wait began its window.
        let timersReading = DispatchTime.now()
        let start = PoolTime.Mark(wall: timersReading + .milliseconds(5), beats: 7, lane: TaskPriority.medium.rawValue)
        #expect(!PoolTime.hasPassed(.seconds(5), since: start, wall: timersReading, beats: 7))
        #expect(!PoolTime.hasPassed(.seconds(5), since: start, wall: timersReading, beats: 6))
        // And it passes once both the wall time and the pool time are there (5 s is 500 beats of
        // 10 ms; ThreadSanitizer triples every window).
        let factor = PoolTime.sanitizerFactor
        let later = start.wall + .seconds(5 * Int(factor))
        #expect(PoolTime.hasPassed(.seconds(5), since: start, wall: later, beats: 7 + 500 * factor))
        #expect(!PoolTime.hasPassed(.seconds(5), since: start, wall: later, beats: 7 + 500 * factor - 1))
    }

    @Test("a chain on one task counts each node as a unit of its own: the next begins before the last ends")
    func chainOnOneTaskCountsEachNode() async throws {
        let store = TestStore(initialState: HomeApp.State(), reducer: HomeApp.reducer)
        // Log in is held, so its task is registered before it ends and runs the profile next.
        let logIn = store.hold(HomeApp.LogIn.self)
        let seen = LockedValue<[String]?>(nil)
        store.stub(HomeApp.FetchProfile.self) { _ in
            seen.withLock { $0 = WorkCounter.currentUnit()?.counter.lines() }
            return HomeApp.Profile(name: "Ada")
        }
        var graph = ActionGraph<HomeApp.State>()
        let token = graph.run(HomeApp.LogIn(user: "ada"))
        let profile = graph.run(after: token) { token in HomeApp.FetchProfile(token: token) }
        graph.send(after: profile) { profile in HomeApp.ShowHome(profile: profile, feed: []) }
        store.dispatch(graph)
        _ = try await logIn.nextCall()
        logIn.respond(with: "t")
        try await store.receive(HomeApp.ShowHome.self) { $0.profile = HomeApp.Profile(name: "Ada") }
        try await store.finish()

        let lines = try #require(seen.withLock { $0 }, "the profile's stub ran as no counted unit")
        #expect(lines.contains { $0.hasPrefix("  running: ") && $0.contains("FetchProfile (node #1) of a run") })
        #expect(!lines.contains { $0.contains("(node #0)") }, "log in's unit outlived its node")
    }
}
