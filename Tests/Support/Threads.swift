import Foundation
import OresRedux
import OresReduxTesting

/// Runs `body(index)` for every index in `0..<count`, each on its own plain `Thread`, all at once,
/// and returns once every one has returned.
///
/// The awaiting task is suspended meanwhile: no thread of Swift's cooperative pool runs the bodies
/// or waits for them. Use it for CPU-bound loops (thousands of dispatches from many threads) and
/// for anything that blocks (a semaphore, a lock held across a wait): the pool has only as many
/// threads as cores, and a test that holds them starves every other test running beside it.
func onThreads(_ count: Int, _ body: @escaping @Sendable (_ index: Int) -> Void) async {
    precondition(count > 0, "onThreads needs at least one thread")
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let remaining = ThreadCountdown(count, then: { continuation.resume() })
        for index in 0..<count {
            let thread = Thread {
                body(index)
                remaining.countDown()
            }
            thread.name = "onThreads \(index + 1)/\(count)"
            thread.stackSize = threadStackSize
            thread.start()
        }
    }
}

/// Runs `body` on a plain `Thread` and returns what it returned (see ``onThreads(_:_:)``).
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    let result = ThreadResult<T>()
    await onThreads(1) { _ in result.set(body()) }
    return result.value
}

/// Room for deep but loop-based work (a 100,000-node graph) under ThreadSanitizer, whose frames are
/// larger: the size of a main thread's stack, not Foundation's smaller default for a `Thread`.
private let threadStackSize = 8 << 20

/// Calls `then` once `countDown()` was called `count` times.
private final class ThreadCountdown: @unchecked Sendable {
    // @unchecked: `remaining` is read and written only under `lock`.
    private let lock = NSLock()
    private var remaining: Int
    private let then: @Sendable () -> Void

    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        remaining = count
        self.then = then
    }

    func countDown() {
        lock.lock()
        remaining -= 1
        let isLast = remaining == 0
        lock.unlock()
        if isLast { then() }
    }
}

/// One value, set by a thread before the countdown that publishes it.
private final class ThreadResult<T: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is read and written only under `lock`.
    private let lock = NSLock()
    private var stored: T?

    func set(_ value: T) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: T {
        lock.lock()
        defer { lock.unlock() }
        guard let stored else { preconditionFailure("onThread returned before its body did") }
        return stored
    }
}

/// How many rounds a stress loop on many plain threads runs: `count`, or `sanitized` under
/// ThreadSanitizer.
///
/// Why: under the sanitizer Swift's runtime takes a kernel lock (a priority-inheriting futex, one
/// per type) on each generic metadata lookup, which a debug build makes on every dispatch. While
/// eight threads dispatched into one store for tens of seconds (800,000 actions, and still 80,000),
/// a task of another test that needed the same lock could wait for it for many seconds (the kernel
/// may give the lock to a thread that is running ahead of a waiter it just woke): stack dumps taken
/// when such a test's wait gave up showed threads queued on that lock, and every such failure came
/// while the loop ran. The sanitizer reports a race between two accesses that no lock or other
/// synchronisation orders, whether or not they collide, so a few thousand rounds find the same
/// races; without it the loops run in full, as stress tests.
func stressCount(_ count: Int, underThreadSanitizer sanitized: Int) -> Int {
    PoolTime.sanitizerFactor > 1 ? sanitized : count
}
