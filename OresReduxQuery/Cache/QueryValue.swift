/// A cached response, whatever its type: one cache holds the answers of every endpoint.
///
/// Two values are equal when they hold equal values of the same type, so an entry compares as
/// state does, and a `select` subscriber of one entry is called only when that entry changed.
public struct QueryValue: Equatable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The response in a box of its own type: reading it back as that type compares two types
    /// instead of casting an existential, and copying the value retains one reference.
    private let box: any QueryValueBoxing

    /// Wraps a response.
    public init(_ base: some Equatable & Sendable) {
        self.box = QueryValueBox(base)
    }

    /// The response.
    public var base: any Equatable & Sendable { box.base }

    /// The response as a `T`, or `nil` when it is of another type.
    public func value<T>(as type: T.Type) -> T? {
        box.value(as: type)
    }

    /// Equal values of the same type.
    public static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        lhs.box === rhs.box || lhs.box.isEqual(to: rhs.box)
    }

    /// The response's own description.
    public var description: String { String(describing: box.base) }

    /// The response as the one child, `base`: what the inspector and a `TestStore`'s state diff show.
    public var customMirror: Mirror { Mirror(self, children: ["base": box.base]) }
}

/// A response's box, whatever the response's type.
private protocol QueryValueBoxing: AnyObject, Sendable {
    var base: any Equatable & Sendable { get }
    func value<T>(as type: T.Type) -> T?
    func isEqual(to other: any QueryValueBoxing) -> Bool
}

private final class QueryValueBox<Value>: QueryValueBoxing where Value: Equatable & Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    var base: any Equatable & Sendable { value }

    func value<T>(as type: T.Type) -> T? {
        // The response's own type (what a view asks for): the value is a `T` as it is.
        guard Value.self == T.self else { return value as? T }
        return unsafeBitCast(value, to: T.self)
    }

    func isEqual(to other: any QueryValueBoxing) -> Bool {
        (other as? QueryValueBox<Value>)?.value == value
    }
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
