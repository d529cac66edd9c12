/// What a node does when it starts.
enum NodeBody<State: Sendable>: Sendable {
    /// A sync action known when the graph was built.
    case action(any Action)
    /// A sync action built from the prerequisites' responses when the node starts.
    case makeAction(@Sendable (NodeInputs) -> any Action, ActionType)
    /// An async action, built from the prerequisites' responses when the node starts, bound to the
    /// store that runs it.
    case async(@Sendable (NodeInputs, StoreCore<State>) -> AsyncNodeWork, ActionType)
    /// A wait on the store's clock.
    case delay(Duration)
    /// A wait on work that is already running in the store.
    case join(@Sendable (StoreCore<State>) async throws -> ResponseSlot, ActionType)

    var isSync: Bool {
        switch self {
        case .action, .makeAction: true
        case .async, .delay, .join: false
        }
    }

    var kind: NodeKind {
        switch self {
        case .action, .makeAction: .sync
        case .async: .async
        case .delay: .delay
        case .join: .join
        }
    }

    var defaultLabel: String {
        switch self {
        case .action(let action): String(describing: type(of: action))
        case .makeAction(_, let type), .async(_, let type): type.name
        case .delay(let duration): "delay \(duration)"
        case .join(_, let type): "join \(type.name)"
        }
    }
}
