import Foundation

/// A call to an endpoint, as the cache knows it from its start to its answer.
public struct QueryCallID: Hashable, Sendable, CustomStringConvertible {
    /// Unique in the process.
    public let rawValue: UInt64

    /// A call with this number; ``next()`` hands out fresh ones.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A number no call of this process had.
    public static func next() -> QueryCallID { QueryCallID(rawValue: QueryCounters.shared.next()) }

    /// `call N`.
    public var description: String { "call \(rawValue)" }
}

/// A mutation, as the cache knows it from its optimistic change to its commit.
public struct QueryMutationID: Hashable, Sendable, CustomStringConvertible {
    /// Unique in the process.
    public let rawValue: UInt64

    /// A mutation with this number; ``next()`` hands out fresh ones.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A number no mutation (or call) of this process had.
    public static func next() -> QueryMutationID { QueryMutationID(rawValue: QueryCounters.shared.next()) }

    /// `mutation N`.
    public var description: String { "mutation \(rawValue)" }
}

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
