/// A cached response, whatever its type: one cache holds the answers of every endpoint.
///
/// Two values are equal when they hold equal values of the same type, so an entry compares as
/// state does, and a `select` subscriber of one entry is called only when that entry changed.
public struct QueryValue: Equatable, Sendable, CustomStringConvertible {
    /// The response.
    public let base: any Equatable & Sendable

    /// Wraps a response.
    public init(_ base: some Equatable & Sendable) {
        self.base = base
    }

    /// The response as a `T`, or `nil` when it is of another type.
    public func value<T>(as type: T.Type) -> T? {
        base as? T
    }

    /// Equal values of the same type.
    public static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        func isEqual<T: Equatable>(_ left: T, _ right: any Equatable & Sendable) -> Bool {
            (right as? T) == left
        }
        return isEqual(lhs.base, rhs.base)
    }

    /// The response's own description.
    public var description: String { String(describing: base) }
}

/// Why a call failed, as state can hold it: comparable, and readable by a person.
public struct QueryError: Error, Equatable, Sendable, Codable, CustomStringConvertible {
    /// The error's type, as `String(reflecting:)` writes it.
    public var type: String
    /// The error's description.
    public var message: String

    /// Describes `error`.
    public init(_ error: any Error) {
        self.type = String(reflecting: Swift.type(of: error))
        self.message = String(describing: error)
    }

    /// The message.
    public var description: String { message }
}
