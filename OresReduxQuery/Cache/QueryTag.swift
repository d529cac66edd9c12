/// A label an entry provides so that a mutation can invalidate every entry that shows a kind of
/// data (`QueryTag("Post")`) or one item of it (`QueryTag("Post", id: "7")`), whatever their keys.
public struct QueryTag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind of data.
    public var name: String
    /// The item, or `nil` for the kind as a whole.
    public var id: String?

    /// Creates a tag for a kind of data, or for one item of it.
    public init(_ name: String, id: String? = nil) {
        self.name = name
        self.id = id
    }

    /// Whether invalidating `self` invalidates an entry that provides `provided`: the same kind,
    /// and either the same item or `self` names the whole kind.
    public func covers(_ provided: QueryTag) -> Bool {
        name == provided.name && (id == nil || id == provided.id)
    }

    /// `name`, or `name:id`.
    public var description: String { id.map { "\(name):\($0)" } ?? name }
}

/// Which entries an invalidation marks stale.
public enum QueryInvalidation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Every entry that provides a tag this one covers (see ``QueryTag/covers(_:)``).
    case tag(QueryTag)
    /// Every entry whose key starts with this one.
    case keyPrefix(QueryKey)

    /// Whether this invalidation marks `entry`, kept under `key`, stale.
    public func matches(_ key: QueryKey, _ entry: QueryEntry) -> Bool {
        switch self {
        case .tag(let tag): entry.tags.contains { tag.covers($0) }
        case .keyPrefix(let prefix): key.hasPrefix(prefix)
        }
    }

    /// `tag X` or `prefix a/b`.
    public var description: String {
        switch self {
        case .tag(let tag): "tag \(tag)"
        case .keyPrefix(let prefix): "prefix \(prefix)"
        }
    }
}
