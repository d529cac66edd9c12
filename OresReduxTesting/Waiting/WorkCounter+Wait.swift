import OresRedux

extension WorkCounter {
    /// Suspends until `isDone` holds, checking it again at every change the counter sees. Returns
    /// `false` once `timeout` of real time passed with no change at all: nothing progressed, so a
    /// loaded machine that runs the work slowly never fails the wait, and a hang fails it.
    package func wait(timeout: Duration, until isDone: () -> Bool) async -> Bool {
        var lastProgress = snapshot.progress
        var windowStart = PoolTime.shared.now
        while true {
            let seen = snapshot.progress
            if isDone() { return true }
            if seen != lastProgress {
                lastProgress = seen
                windowStart = PoolTime.shared.now
            }
            let wakeUp = ExpiringWakeUp()
            watch(ifStill: seen) { wakeUp.wake() }
            if await !wakeUp.wait(window: timeout, from: windowStart), snapshot.progress == lastProgress, !isDone() {
                return false
            }
        }
    }
}
