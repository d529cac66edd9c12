/// A time on the store's clock, as a duration from an origin that clock's type keeps in the process.
///
/// Only two times read from the same clock can be compared; the cache never compares others.
public struct QueryTime: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The duration since the origin.
    public var sinceOrigin: Duration

    /// A time `sinceOrigin` after the origin.
    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// This time moved by `duration`.
    public func advanced(by duration: Duration) -> QueryTime {
        QueryTime(sinceOrigin: sinceOrigin + duration)
    }

    /// The earlier time.
    public static func < (lhs: QueryTime, rhs: QueryTime) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    /// The duration since the origin.
    public var description: String { "+\(sinceOrigin)" }
}
