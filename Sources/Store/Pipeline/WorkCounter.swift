/// The store's own count of the work it started: how a `TestStore` knows the store is quiet,
/// with no `Task.yield()` and no real-time guess.
///
/// Every task the store starts (an async node, an attempt raced against its timeout and the
/// timeout's timer, an async action, a shared call, a debounced dispatch) is a *unit* from the
/// moment it is created until it ends, and so is a run whose sync nodes wait for the pipeline. A
/// unit is *running*, or *parked* on something only the test moves or another unit ends: the test
/// store's clock, a held call, a race, a shared call, a run's node, an event delivery. The rule
/// that makes the count exact: **whoever resumes a parked unit marks it running first**, before
/// the resume, so the count never reads zero while work is on its way. Quiet means no unit runs.
///
/// Only a store given a counter (a test store's) counts; any other store pays a `nil` check.
///
/// Work the store did not start (a `Task` a stub creates, a stub awaiting something outside the
/// store) is not counted; a unit awaiting it stays running, and the failure of a wait names it.
package final class WorkCounter: Sendable {
    /// One unit of counted work.
    package struct Unit: Sendable {
        let counter: WorkCounter
        let id: UInt64

        /// Marks the unit parked on `reason`: its task is about to suspend.
        func park(on reason: String) { counter.park(id, on: reason) }

        /// Marks the unit running again; the caller resumes it right after. A resume that comes
        /// before the park it answers cancels that park out.
        func unpark() { counter.unpark(id) }

        /// The unit's task ended.
        func end() { counter.end(id) }

        /// Records where the unit's task is now, for a failure message that finds it running with
        /// no progress.
        package func note(_ step: StaticString) { counter.note(id, step) }
    }

    /// The unit the current task runs as, if it is counted work of a store.
    @TaskLocal package static var current: Unit?

    /// What the counter knows of one unit.
    private struct UnitRecord {
        let name: String
        /// The task that runs the unit, once it started: a task that merely inherited the unit (a
        /// `Task` created inside a stub) parks nothing.
        var owner: Int?
        /// Whether the unit's task began its body: a failure message tells a task the pool never
        /// ran apart from one that runs and makes no progress.
        var hasStarted = false
        /// The last step the unit's task reported (see `Unit.note(_:)`).
        var step: StaticString?
        /// Whether a task of its own runs the unit (not ready sync work waiting for the pipeline).
        var isTask = true
        /// Resumes minus parks: below zero, the unit is parked. A resume may come before the park
        /// it answers (the resumer found the continuation before the task finished suspending); it
        /// is then a credit that the park consumes, and the unit never counts as parked.
        var balance = 0
        var parkedOn = ""

        var isParked: Bool { balance < 0 }
    }

    private struct State {
        var units: [UInt64: UnitRecord] = [:]
        var running = 0
        var nextID: UInt64 = 0
        /// Changes with every unit begun, ended, parked or resumed, and every `noteProgress()`.
        var progress: UInt64 = 0
        /// Called once, at the next change (see `watch(ifStill:wake:)`).
        var watchers: [@Sendable () -> Void] = []

        mutating func changed() -> [@Sendable () -> Void] {
            progress &+= 1
            defer { watchers.removeAll() }
            return watchers
        }
    }

    private let state = LockedValue(State())

    package init() {}

    // MARK: Units

    /// A new running unit, counted from now: call it before creating the task that runs it.
    func begin(_ name: String, isTask: Bool = true) -> Unit {
        let (id, watchers) = state.withLock { state -> (UInt64, [@Sendable () -> Void]) in
            state.nextID += 1
            state.units[state.nextID] = UnitRecord(name: name, isTask: isTask)
            state.running += 1
            return (state.nextID, state.changed())
        }
        for wake in watchers { wake() }
        return Unit(counter: self, id: id)
    }

    private func end(_ id: UInt64) {
        let watchers = state.withLock { state -> [@Sendable () -> Void] in
            guard let record = state.units.removeValue(forKey: id) else { return [] }
            if !record.isParked { state.running -= 1 }
            return state.changed()
        }
        for wake in watchers { wake() }
    }

    private func note(_ id: UInt64, _ step: StaticString) {
        state.withLock { state in state.units[id]?.step = step }
    }

    private func adopt(_ id: UInt64, owner: Int?) {
        state.withLock { state in
            state.units[id]?.owner = owner
            state.units[id]?.hasStarted = true
        }
    }

    private func owns(_ id: UInt64, owner: Int?) -> Bool {
        state.withLock { state in state.units[id].map { $0.owner == owner } ?? false }
    }

    private func park(_ id: UInt64, on reason: String) {
        let watchers = state.withLock { state -> [@Sendable () -> Void] in
            guard var record = state.units[id] else { return [] }
            record.balance -= 1
            if record.isParked {
                record.parkedOn = reason
                state.running -= 1
            }
            state.units[id] = record
            return state.changed()
        }
        for wake in watchers { wake() }
    }

    private func unpark(_ id: UInt64) {
        let watchers = state.withLock { state -> [@Sendable () -> Void] in
            guard var record = state.units[id] else { return [] }
            if record.isParked { state.running += 1 }
            record.balance += 1
            state.units[id] = record
            return state.changed()
        }
        for wake in watchers { wake() }
    }

    /// Something the counter's owner waits for happened (an action reached the reducer, a call
    /// came): wakes the watchers, so a wait re-checks and sees progress.
    package func noteProgress() {
        let watchers = state.withLock { $0.changed() }
        for wake in watchers { wake() }
    }

    // MARK: Reading

    /// How many units run now (none: the store is quiet), and the progress counter.
    package var snapshot: (running: Int, progress: UInt64) {
        state.withLock { ($0.running, $0.progress) }
    }

    /// Calls `wake` once, at the next change (at once if the progress counter moved past `seen`):
    /// how a wait for the store's work re-checks what it waits for whenever something moved.
    package func watch(ifStill seen: UInt64, wake: @escaping @Sendable () -> Void) {
        let changed = state.withLock { state -> Bool in
            guard state.progress == seen else { return true }
            state.watchers.append(wake)
            return false
        }
        if changed { wake() }
    }

    /// One line per unit, running ones first, for a failure message.
    package func lines() -> [String] {
        state.withLock { state in
            let sorted = state.units.sorted { $0.key < $1.key }.map(\.value)
            let running = sorted.filter { !$0.isParked }.map { record in
                if !record.hasStarted && record.isTask {
                    return "  running: \(record.name) (its task has not started yet)"
                }
                guard let step = record.step else { return "  running: \(record.name)" }
                return "  running: \(record.name), last \(step)"
            }
            let parked = sorted.filter(\.isParked).map { "  parked: \($0.name), \($0.parkedOn)" }
            return running + parked
        }
    }

    // MARK: Running counted work

    /// Runs `body` as `unit` (a task's whole body), then ends the unit.
    static func run<T>(
        _ unit: Unit?, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let unit else { return try await body() }
        defer { unit.end() }
        unit.counter.adopt(unit.id, owner: currentTaskIdentity())
        return try await $current.withValue(unit) { try await body() }
    }

    /// The current task's unit, when the current task is the counted work that runs it (not a task
    /// that inherited it): the unit that a suspension of this task parks.
    static func currentUnit() -> Unit? {
        guard let unit = current, unit.counter.owns(unit.id, owner: currentTaskIdentity()) else { return nil }
        return unit
    }

    private static func currentTaskIdentity() -> Int? {
        withUnsafeCurrentTask { $0?.hashValue }
    }
}

extension Optional where Wrapped == WorkCounter {
    /// A unit begun on this counter, if there is one: `counter.begin(name)` for the optional
    /// counter of a store's options.
    func begin(_ name: @autoclosure () -> String) -> WorkCounter.Unit? {
        self?.begin(name())
    }
}

extension WorkCounter {
    /// A unit begun on the counter of the current task's unit: for work that counted work starts
    /// (the attempt and the timer of a race), which knows no store.
    static func beginChild(_ name: @autoclosure () -> String) -> Unit? {
        current?.counter.begin(name())
    }
}
