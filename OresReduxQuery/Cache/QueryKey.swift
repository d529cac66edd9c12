/// What names one cache entry: the call and its arguments, as a path from the general to the
/// particular (`["feed", "user", "7"]`), so that a prefix (`["feed"]`) names a family of entries
/// that ``QueryInvalidation/keyPrefix(_:)`` invalidates at once.
///
/// ```swift
/// QueryKey("feed", "user", "\(userID)")
/// ```
public struct QueryKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The parts of the key, from the most general.
    public var path: [String]

    /// Creates a key from its parts, from the most general.
    public init(_ path: [String]) {
        self.path = path
    }

    /// Creates a key from its parts, from the most general.
    public init(_ path: String...) {
        self.init(path)
    }

    /// Whether this key starts with every part of `prefix`, in order (a key is its own prefix).
    public func hasPrefix(_ prefix: QueryKey) -> Bool {
        path.starts(with: prefix.path)
    }

    /// The parts joined by `/`.
    public var description: String { path.joined(separator: "/") }
}
