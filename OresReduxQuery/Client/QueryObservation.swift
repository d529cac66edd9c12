import Foundation
import OresRedux

/// Keeps a cache entry while it lives: what a screen holds for each query it shows.
///
/// Made by `QueryClient.observe(_:in:)`. Ending it (``cancel()``, or releasing it) counts the
/// observer out; when it was the last, the entry is removed once its `keepUnobservedFor` passed on
/// the store's clock, unless someone observed it again meanwhile.
public final class QueryObservation: Sendable {
    /// The entry observed.
    public let key: QueryKey
    private let leave: Once

    init(key: QueryKey, leave: @escaping @Sendable () -> Void) {
        self.key = key
        self.leave = Once(leave)
    }

    deinit {
        leave.run()
    }

    /// Counts this observer out of the entry; only the first call does anything.
    public func cancel() {
        leave.run()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { leave.hasRun }
}

/// A closure run at most once, from any thread.
// Why this is safe to share: `work` is read and written only under `lock` (a pthread mutex that
// ThreadSanitizer sees), and run outside it.
private final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var work: (@Sendable () -> Void)?

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = work
    }

    var hasRun: Bool {
        lock.lock()
        defer { lock.unlock() }
        return work == nil
    }

    func run() {
        lock.lock()
        let work = self.work
        self.work = nil
        lock.unlock()
        work?()
    }
}
