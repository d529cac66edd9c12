import Foundation

/// The process-wide counter behind ``QueryCallID/next()`` and ``QueryMutationID/next()``.
// Why this is safe to share: `last` is read and written only under `lock` (a pthread mutex that
// ThreadSanitizer sees).
final class QueryCounters: @unchecked Sendable {
    static let shared = QueryCounters()

    private let lock = NSLock()
    private var last: UInt64 = 0

    func next() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}
