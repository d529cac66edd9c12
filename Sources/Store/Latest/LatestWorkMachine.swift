/// The bookkeeping of work dispatched with an id (take-latest, debounce, throttle): which work under
/// each id is waiting or running, and what a new dispatch cancels, waits for or starts.
///
/// A value type that decides everything and returns what to do; `LatestWork` is its shell (a lock
/// around it, and the cancels performed after the lock is released). Times are durations since the
/// store was created, on the store's clock.
struct LatestWorkMachine {
    /// What a dispatch must do after it was entered: its token, its wait, what it replaces.
    struct DispatchPlan: Equatable {
        /// The dispatch's token, to report its start and its end.
        var token: UInt64
        /// How long to wait before starting; `nil` to start at once.
        var delay: Duration?
        /// The tokens of the work the dispatch replaced, to cancel.
        var cancelled: [UInt64]
    }

    private struct Slot {
        var running: [UInt64] = []
        var waiting: UInt64?
        /// The time of the last start, or the planned start of the waiting dispatch (throttle).
        var lastStart: Duration?
        var throttleInterval: Duration?

        var isIdle: Bool { running.isEmpty && waiting == nil }
    }

    private var slots: [WorkID: Slot] = [:]
    private var nextToken: UInt64 = 0

    /// A dispatch under `id` with `policy`, at `now`.
    mutating func enter(_ id: WorkID, policy: InFlightPolicy, now: Duration) -> DispatchPlan {
        nextToken += 1
        let token = nextToken
        if slots.count > 64 { forgetClosedWindows(now: now) }
        var slot = slots[id] ?? Slot()
        var plan = DispatchPlan(token: token, delay: nil, cancelled: [])
        switch policy {
        case .takeLatest:
            plan.cancelled = slot.running + (slot.waiting.map { [$0] } ?? [])
            slot.running = [token]
            slot.waiting = nil
        case .debounce(let quiet):
            plan.cancelled = slot.running + (slot.waiting.map { [$0] } ?? [])
            slot.running = []
            slot.waiting = token
            plan.delay = max(quiet, .zero)
        case .throttle(let interval):
            let interval = max(interval, .zero)
            slot.throttleInterval = interval
            if let waiting = slot.waiting {
                // The waiting one keeps its planned start; this one takes its place.
                plan.cancelled = [waiting]
                slot.waiting = token
                plan.delay = max((slot.lastStart ?? now) - now, .zero)
            } else if let last = slot.lastStart, now - last < interval {
                slot.lastStart = last + interval
                slot.waiting = token
                plan.delay = last + interval - now
            } else {
                slot.lastStart = now
                slot.running.append(token)
            }
        }
        slots[id] = slot
        return plan
    }

    /// The dispatch `token`'s wait is over: whether it may start (`false` when it was replaced or
    /// cancelled meanwhile).
    mutating func begin(_ id: WorkID, token: UInt64) -> Bool {
        guard var slot = slots[id], slot.waiting == token else { return false }
        slot.waiting = nil
        slot.running.append(token)
        slots[id] = slot
        return true
    }

    /// The dispatch `token` ended (finished, failed, or cancelled).
    mutating func end(_ id: WorkID, token: UInt64, now: Duration) {
        guard var slot = slots[id] else { return }
        slot.running.removeAll { $0 == token }
        if slot.waiting == token { slot.waiting = nil }
        slots[id] = slot
        forgetIfIdle(id, now: now)
    }

    /// Cancels everything under `id`: the tokens to cancel.
    mutating func cancelAll(_ id: WorkID, now: Duration) -> [UInt64] {
        guard var slot = slots[id] else { return [] }
        let cancelled = slot.running + (slot.waiting.map { [$0] } ?? [])
        slot.running = []
        slot.waiting = nil
        slots[id] = slot
        forgetIfIdle(id, now: now)
        return cancelled
    }

    /// How many ids the machine remembers (busy ones, and throttled ones whose window is open).
    var slotCount: Int { slots.count }

    /// The ids with work waiting or running.
    var busyIDs: [WorkID] { slots.filter { !$0.value.isIdle }.map(\.key) }

    private mutating func forgetClosedWindows(now: Duration) {
        for id in Array(slots.keys) { forgetIfIdle(id, now: now) }
    }

    /// A throttled id is kept while its window is open, so that the next dispatch still waits.
    private mutating func forgetIfIdle(_ id: WorkID, now: Duration) {
        guard let slot = slots[id], slot.isIdle else { return }
        if let interval = slot.throttleInterval, let last = slot.lastStart, now - last < interval { return }
        slots[id] = nil
    }
}
