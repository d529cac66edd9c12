/// What an ``ActionGraph`` holds: each node's body (a ``NodeBody``, below, with the inputs its
/// closures are given and the slot its response is kept in), its prerequisite list, settings, and
/// the bad input seen while building.
///
/// Prerequisite lists are stored one after the other in `prerequisites`; node `i`'s list ends at
/// `prerequisiteEnds[i]` and starts where node `i - 1`'s ends. Copies of a graph share their arrays
/// until one of them adds a node (copy on write); the lineage (below) then tells their nodes apart.
/// Not generic over the state, for the reason ``NodeBody`` gives.
struct GraphStorage: Sendable {
    private(set) var bodies: [NodeBody] = []
    private(set) var prerequisites: [Int] = []
    private(set) var prerequisiteEnds: [Int] = []
    /// Timeouts, retries, fallbacks and labels, for the few nodes that have them.
    private(set) var settings: [Int: NodeSettings] = [:]
    /// Nodes that cannot run because they were given bad input, and why.
    private(set) var nodeProblems: [Int: GraphError] = [:]
    /// Every bad input seen while building, in order.
    private(set) var problems: [GraphError] = []
    /// What the graph does as a whole (its cancel action); `nil`, one word, for most graphs.
    var hooks: GraphHooks?

    /// Copies made before a mutation share `identity`; the first copy to add a node afterwards takes
    /// a new lineage, so a node added to one copy is never taken for a node of the other. `nil` until
    /// the first node, so that an empty graph allocates nothing.
    private var identity: GraphIdentity?
    /// The lineage that nodes added now belong to; 0 (no lineage) until the first node.
    private(set) var lineageID: UInt64 = 0
    /// The lineages this graph's earlier nodes belong to, oldest first: nodes below `end` that the
    /// current lineage does not cover were added under `id`. Empty unless copies diverged.
    private var earlierLineages: [(id: UInt64, end: Int)] = []

    /// The number of nodes.
    var count: Int { bodies.count }

    /// Whether the node `index` of lineage `graph` is one of these nodes.
    func owns(graph: UInt64, index: Int) -> Bool {
        guard index >= 0, index < bodies.count else { return false }
        if graph == lineageID { return true }
        return earlierLineages.contains { $0.id == graph && index < $0.end }
    }

    // MARK: Adding nodes

    /// Makes room for `nodeCount` nodes and `prerequisiteCount` prerequisites in all; a count of
    /// zero or less reserves nothing (as with `Array.reserveCapacity`).
    mutating func reserveCapacity(nodes nodeCount: Int, prerequisites prerequisiteCount: Int) {
        bodies.reserveCapacity(Swift.max(0, nodeCount))
        prerequisiteEnds.reserveCapacity(Swift.max(0, nodeCount))
        prerequisites.reserveCapacity(Swift.max(0, prerequisiteCount))
    }

    /// Adds a node after the nodes in `erasedPrerequisites`; returns its index.
    mutating func addNode(_ body: NodeBody, after erasedPrerequisites: [any GraphNode]) -> Int {
        let index = beginNode()
        for prerequisite in erasedPrerequisites {
            let node = prerequisite.nodeID
            addPrerequisite(graph: node.graph, index: node.index, to: index)
        }
        return endNode(body)
    }

    /// Room taken at a graph's first node, and at its first prerequisite, when none was reserved:
    /// most graphs are that small, and each array then allocates once instead of growing 1, 2, 4.
    private static let smallGraph = 8

    /// Starts a node: takes a new lineage if this graph shares nodes with a copy; returns the new index.
    mutating func beginNode() -> Int {
        if bodies.capacity == 0 {
            bodies.reserveCapacity(Self.smallGraph)
            prerequisiteEnds.reserveCapacity(Self.smallGraph)
        }
        if !isKnownUniquelyReferenced(&identity) {
            // Shared with a copy, or the first node (no identity yet: every copy of an empty graph
            // takes its own lineage when it adds its first node).
            if identity != nil { earlierLineages.append((lineageID, bodies.count)) }
            identity = GraphIdentity()
            lineageID = GraphIdentifiers.next()
        }
        return bodies.count
    }

    /// Adds an edge to the node being built, or records a problem when the prerequisite is not one
    /// of these nodes.
    mutating func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
        if owns(graph: graph, index: prerequisite) {
            if prerequisites.capacity == 0 { prerequisites.reserveCapacity(Self.smallGraph) }
            prerequisites.append(prerequisite)
        } else if nodeProblems[index] == nil {
            let problem = GraphError.foreignNode(index: prerequisite)
            nodeProblems[index] = problem
            problems.append(problem)
        }
    }

    /// Ends the node that `beginNode` started; returns its index.
    mutating func endNode(_ body: NodeBody) -> Int {
        bodies.append(body)
        prerequisiteEnds.append(prerequisites.count)
        return bodies.count - 1
    }

    /// Changes the settings of node `index` of lineage `graph`, or records a problem when it is not
    /// one of these nodes.
    mutating func updateSettings(graph: UInt64, index: Int, _ update: (inout NodeSettings) -> Void) {
        guard owns(graph: graph, index: index) else {
            problems.append(.foreignNode(index: index))
            return
        }
        update(&settings[index, default: NodeSettings()])
    }

    // MARK: Reading

    /// The prerequisites of node `index`, in the order they were given.
    func prerequisites(of index: Int) -> ArraySlice<Int> {
        let start = index == 0 ? 0 : prerequisiteEnds[index - 1]
        return prerequisites[start..<prerequisiteEnds[index]]
    }

    /// A node's name for people: its label, or its action type's name.
    func label(of index: Int) -> String {
        settings[index]?.label ?? bodies[index].defaultLabel
    }
}

/// Settings of a graph as a whole, kept out of line so that a graph without them stays small.
/// Immutable: a change makes a new one, so copies of a graph never share a change.
final class GraphHooks: Sendable {
    /// The sync action a run sends when it is cancelled (see `ActionGraph.setCancelAction(_:)`).
    let cancelAction: (any Action)?

    init(cancelAction: (any Action)?) {
        self.cancelAction = cancelAction
    }
}

/// Shared by copies of a graph until one of them adds a node.
private final class GraphIdentity: Sendable {}

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
    /// An async action, built from the prerequisites' responses when the node starts, and its
    /// attempts in the store that runs it.
    case async(AsyncNodeBody, ActionType)
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
        case .makeAction(_, let type), .async(_, let type): type.name
        case .delay(let duration): "delay \(duration)"
        case .join(_, let type): "join \(type.name)"
        }
    }
}

/// The responses of a node's prerequisites, as its `make` closure reads them when the node starts.
///
/// Read from the run one at a time, under its lock, as the closure asks for them: the prerequisites
/// have all succeeded by then and a node's response never changes once stored, so each read answers
/// what a snapshot taken at the start would, and the run builds no list per node. The responses come
/// in the order the prerequisites were given, which is the order of the closure's parameters, so the
/// closure reads them one after the other by position. (It keeps no `Node` values: in generic code
/// that does not know the response types, each one would cost a type lookup at run time.)
struct NodeInputs: Sendable {
    /// The node's prerequisites, in the order they were given.
    let prerequisites: ArraySlice<Int>
    /// The state of the run the node belongs to, which holds their responses.
    let run: LockedValue<RunLockedState>

    /// The response at `position`, as `type`; moves `position` to the next one.
    func next<R: Sendable>(_ type: R.Type, _ position: inout Int) -> R {
        defer { position += 1 }
        let prerequisite = prerequisites[prerequisites.startIndex + position]
        return unwrapResponse(run.withLock { $0.machine.response(of: prerequisite) }, as: type)
    }
}

/// One node's stored response: the value, or `nil` for `Void`.
typealias ResponseSlot = (any Sendable)?

/// Stores a response in a run's slot: `nil` for `Void`, which needs no storage.
///
/// An existential rather than a class box: a small response (an `Int`, a struct of a few words) is
/// stored inline with no allocation, and unspecialised generic code needs no metadata lookup of a
/// box type per node.
@inline(__always)
func wrapResponse<Value: Sendable>(_ value: Value) -> ResponseSlot {
    Value.self == Void.self ? nil : value
}

/// Reads a response stored by ``wrapResponse(_:)``.
@inline(__always)
func unwrapResponse<Value: Sendable>(_ slot: ResponseSlot, as type: Value.Type = Value.self) -> Value {
    if let slot { return slot as! Value }
    return () as! Value
}
