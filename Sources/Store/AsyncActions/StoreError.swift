/// Errors the store itself raises.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The work was asked of a store that had already been released.
    case storeReleased
    /// The async action was dispatched from a reducer (or a graph's `make` or fallback closure),
    /// which must be pure; it was not started.
    case dispatchedFromReducer

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .storeReleased: "the store was released before this work could run"
        case .dispatchedFromReducer: "the action was dispatched from a reducer, which must be pure; it was not started"
        }
    }
}
