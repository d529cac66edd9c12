/// A pure function that applies a sync action to the state.
///
/// A reducer must not dispatch (the store drops such a dispatch and reports a ``StoreDiagnostic``) and should not touch
/// anything but the state it is given. Build one from a closure, from one action type with
/// ``on(_:_:)``, from several with `combine`, or for part of the state with `scope`.
///
/// ```swift
/// let counter = Reducer<Int>.combine(
///     .on(Increment.self) { count, action in count += action.amount },
///     .on(Reset.self) { count, _ in count = 0 }
/// )
/// ```
public struct Reducer<State>: Sendable {
    @usableFromInline
    let reduce: @Sendable (inout State, any Action) -> Void

    /// The one action type this reducer handles, when it is an `on` for a struct or enum type: no
    /// other dynamic type can be one, so `combine` can leave it out for every other type. `nil`
    /// for every other reducer (a class type may be subclassed, and a closure may handle anything).
    @usableFromInline
    let handledType: ObjectIdentifier?

    /// A combined reducer's parts, flattened and in order, so that combining it again looks inside.
    @usableFromInline
    let parts: [Reducer]?

    @inlinable
    init(
        reduce: @escaping @Sendable (inout State, any Action) -> Void, handledType: ObjectIdentifier?,
        parts: [Reducer]?
    ) {
        self.reduce = reduce
        self.handledType = handledType
        self.parts = parts
    }

    /// Creates a reducer that sees every sync action that reaches the store.
    /// - Parameter reduce: changes `state` in place for `action`; ignores actions it does not know.
    @inlinable
    public init(_ reduce: @escaping @Sendable (inout State, any Action) -> Void) {
        self.init(reduce: reduce, handledType: nil, parts: nil)
    }

    /// Applies the reducer to `state` for `action`.
    @inlinable
    public func callAsFunction(_ state: inout State, _ action: any Action) {
        reduce(&state, action)
    }

    /// A reducer that handles one action type and ignores every other.
    /// - Parameters:
    ///   - type: the action type to handle.
    ///   - reduce: applies one action of that type; it receives the action already cast.
    @inlinable
    public static func on<A: Action>(
        _ type: A.Type,
        _ reduce: @escaping @Sendable (inout State, A) -> Void
    ) -> Reducer {
        // A class `A` may be subclassed: only the full cast tells whether an action is one.
        if A.self is AnyObject.Type {
            return Reducer { state, action in
                if let action = action as? A { reduce(&state, action) }
            }
        }
        // A struct or enum action of another type can never be an `A`, so comparing metatypes
        // answers a miss without the runtime's cast, which is far dearer when it fails.
        return Reducer(
            reduce: { state, action in
                guard let action = exactly(action, A.self) else { return }
                reduce(&state, action)
            }, handledType: ObjectIdentifier(A.self), parts: nil)
    }

    /// A reducer that applies `reducers` one after another, in the order given, to every action.
    @inlinable
    public static func combine(_ reducers: Reducer...) -> Reducer {
        combine(reducers)
    }

    /// A reducer that applies `reducers` one after another, in the order given, to every action.
    ///
    /// An action meets only the reducers that can handle it, still in the order given: the
    /// `on` reducers for its own type (when it is a struct or enum) and every other reducer. So a
    /// reducer combined from many `on` cases costs about as much whichever case matches.
    @inlinable
    public static func combine(_ reducers: [Reducer]) -> Reducer {
        var flat: [Reducer] = []
        flat.reserveCapacity(reducers.count)
        for reducer in reducers {
            if let parts = reducer.parts { flat.append(contentsOf: parts) } else { flat.append(reducer) }
        }
        switch flat.count {
        case 0: return Reducer { _, _ in }
        case 1: return flat[0]
        default:
            let parts = flat
            guard parts.contains(where: { $0.handledType != nil }) else {
                return Reducer(
                    reduce: { state, action in
                        for reducer in parts { reducer.reduce(&state, action) }
                    }, handledType: nil, parts: parts)
            }
            let table = ActionTypeTable(parts)
            return Reducer(
                reduce: { state, action in
                    table.apply(&state, action)
                }, handledType: nil, parts: parts)
        }
    }

    /// Runs a reducer written for a part of the state on that part, in place.
    ///
    /// ```swift
    /// let app = Reducer<AppState>.combine(
    ///     .scope(\.profile, profileReducer),
    ///     .scope(\.feed, feedReducer)
    /// )
    /// ```
    /// - Parameters:
    ///   - keyPath: where the child state lives; mutated in place, so no copy is made.
    ///   - child: the reducer for that part.
    @inlinable
    public static func scope<Child>(
        _ keyPath: WritableKeyPath<State, Child> & Sendable,
        _ child: Reducer<Child>
    ) -> Reducer {
        Reducer { state, action in child.reduce(&state[keyPath: keyPath], action) }
    }

    /// Runs a reducer written for an optional part of the state when that part is not `nil`.
    /// - Parameters:
    ///   - keyPath: where the optional child state lives.
    ///   - child: the reducer for the unwrapped part; not called while the part is `nil`.
    @inlinable
    public static func scope<Child>(
        _ keyPath: WritableKeyPath<State, Child?> & Sendable,
        _ child: Reducer<Child>
    ) -> Reducer {
        Reducer { state, action in
            guard state[keyPath: keyPath] != nil else { return }
            child.reduce(&state[keyPath: keyPath]!, action)
        }
    }
}

/// `action` as an `A` when its type is `A` itself, else `nil`: for struct and enum types, which no
/// other type can be cast to.
///
/// Called with an `any Action`, it opens the existential, so the type check compares two metatypes,
/// and the cast that follows a match is the runtime's cheapest (from a type to the same type)
/// instead of a cast out of an existential.
@inlinable @inline(__always)
func exactly<A: Action, T: Action>(_ action: T, _ type: A.Type) -> A? {
    T.self == A.self ? action as? A : nil
}

/// The identity of `action`'s type, read from the existential's own type (exact for a struct or
/// enum; for a class, the static type it was erased from, which no table key can equal).
@inlinable @inline(__always)
func typeKey<T: Action>(of action: T) -> UInt {
    UInt(bitPattern: ObjectIdentifier(T.self))
}
