/// What a node does when it starts. Not generic over the state (the store's core is passed as
/// `AnyObject` and cast back inside the closure that knows its type), so an executor reading a body
/// per node needs no generic metadata.
enum NodeBody: Sendable {
    /// A sync action known when the graph was built.
    case action(any Action)
    /// A sync action built from the prerequisites' responses.
    case makeAction(@Sendable (NodeInputs) -> any Action, ActionType)
    /// An async action, built from the prerequisites' responses when the node starts.
    case async(@Sendable (NodeInputs, AnyObject) -> AsyncNodeWork, ActionType)
    /// A wait on the store's clock.
    case delay(Duration)
    /// A wait on work that is already running.
    case join(@Sendable (any AnyStoreCore) async throws -> ResponseSlot, ActionType)

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

