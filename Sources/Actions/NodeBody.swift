/// What a node does when it starts.
///
/// Not generic over the state: a run reads a body per node, and unspecialized generic code (a run
/// is generic over the app's state, which this module does not know) would look up the body type's
/// metadata on every read. The run hands a body itself as `AnyObject`, and the closure, made where
/// the state type is known, casts it back to `GraphRun<State>` (checked).
enum NodeBody: Sendable {
    /// A sync action known when the graph was built.
    case action(any Action)
    /// A sync action built when the node starts, from the prerequisites' responses (and, for a
    /// state-built node, the state: the closure casts the run back, as async bodies do).
    case makeAction(@Sendable (NodeInputs, AnyObject) -> any Action, ActionType)
    /// An async action, built from the prerequisites' responses when the node starts, bound to the
    /// store that runs it. `readsResponses` is false for an action given when the graph was built,
    /// which waits on its prerequisites for their order only: the run then collects no responses.
    case async(@Sendable (NodeInputs, AnyObject) -> AsyncNodeWork, ActionType, readsResponses: Bool)
    /// A wait on the store's clock.
    case delay(Duration)
    /// A wait on work that is already running in the store.
    /// It receives the store the run goes through, to check that a joined run is of the same store.
    case join(@Sendable (AnyObject) async throws -> ResponseSlot, ActionType)

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
        case .makeAction(_, let type), .async(_, let type, _): type.name
        case .delay(let duration): "delay \(duration)"
        case .join(_, let type): "join \(type.name)"
        }
    }
}
