/// What an ``ActionGraph`` holds: each node's body (a ``NodeBody``, below, with the inputs its
/// closures are given and the slot its response is kept in), its prerequisite list, settings, and
/// the bad input seen while building. Which nodes are sync is kept apart too, one bit a node, so
/// that a run asks it without copying a body (an address-only enum, copied through its value
/// witnesses).
///
/// Prerequisite lists are stored one after the other in `prerequisites`; node `i`'s list ends at
/// `prerequisiteEnds[i]` and starts where node `i - 1`'s ends. Not generic over the state, for the
/// reason ``NodeBody`` gives.
///
/// Everything sits behind one reference (``Contents``), copied on write: a copy of a graph (into
/// each run, into its report) is one retain, and a graph with nothing added has no contents, so
/// making, copying and dropping it costs nothing. Copies share their contents until one of them
/// changes; the lineage (below) then tells the nodes each adds apart.
struct GraphStorage: Sendable {
    /// `nil` until something is added.
    private var contents: Contents?

    var bodies: [NodeBody] { contents?.bodies ?? [] }
    var prerequisites: [Int] { contents?.prerequisites ?? [] }
    var prerequisiteEnds: [Int] { contents?.prerequisiteEnds ?? [] }
    /// Timeouts, retries, fallbacks and labels, for the few nodes that have them.
    var settings: [Int: NodeSettings] { contents?.settings ?? [:] }
    /// Nodes that cannot run because they were given bad input, and why.
    var nodeProblems: [Int: GraphError] { contents?.nodeProblems ?? [:] }
    /// Every bad input seen while building, in order.
    var problems: [GraphError] { contents?.problems ?? [] }
    /// What the graph does as a whole (its cancel action); `nil` for most graphs.
    var hooks: GraphHooks? {
        get { contents?.hooks }
        set {
            makeContentsUnique()
            contents!.hooks = newValue
        }
    }
    /// The lineage that nodes added now belong to; 0 (no lineage) until the first node.
    var lineageID: UInt64 { contents?.lineageID ?? 0 }

    /// The number of nodes.
    var count: Int { contents?.bodies.count ?? 0 }

    /// Whether node `index` is a sync node (applied by the pipeline), read without copying its body.
    func isSync(_ index: Int) -> Bool {
        contents?.syncNodes.contains(index) ?? false
    }

    /// Whether node `index` has settings, asked without copying them.
    func hasSettings(_ index: Int) -> Bool {
        guard let contents, !contents.settings.isEmpty else { return false }
        return contents.settings.index(forKey: index) != nil
    }

    /// Whether the node `index` of lineage `graph` is one of these nodes.
    func owns(graph: UInt64, index: Int) -> Bool {
        contents?.owns(graph: graph, index: index) ?? false
    }

    /// Copies the contents when another graph shares them (and makes them when there are none), so
    /// that a change reaches this graph alone. Every change calls it first, then changes
    /// `contents!` in place (a reference returned from here would be retained and released per
    /// change).
    private mutating func makeContentsUnique() {
        if !isKnownUniquelyReferenced(&contents) { contents = contents.map(Contents.init(copying:)) ?? Contents() }
    }

    // MARK: Adding nodes

    /// Makes room for `nodeCount` nodes and `prerequisiteCount` prerequisites in all; a count of
    /// zero or less reserves nothing (as with `Array.reserveCapacity`).
    mutating func reserveCapacity(nodes nodeCount: Int, prerequisites prerequisiteCount: Int) {
        makeContentsUnique()
        contents!.bodies.reserveCapacity(Swift.max(0, nodeCount))
        contents!.prerequisiteEnds.reserveCapacity(Swift.max(0, nodeCount))
        contents!.prerequisites.reserveCapacity(Swift.max(0, prerequisiteCount))
    }

    /// Adds a node after the nodes in `erasedPrerequisites`; returns its index.
    mutating func addNode(
        _ body: consuming NodeBody, isSync: Bool, after erasedPrerequisites: [any GraphNode]
    ) -> Int {
        let index = beginNode()
        for prerequisite in erasedPrerequisites {
            let node = prerequisite.nodeID
            contents!.addPrerequisite(graph: node.graph, index: node.index, to: index)
        }
        return contents!.endNode(body, isSync: isSync)
    }

    /// Starts a node: takes a new lineage if this graph shares nodes with a copy; returns the new index.
    mutating func beginNode() -> Int {
        makeContentsUnique()
        return contents!.beginNode()
    }

    /// Adds an edge to the node being built, or records a problem when the prerequisite is not one
    /// of these nodes.
    mutating func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
        makeContentsUnique()
        contents!.addPrerequisite(graph: graph, index: prerequisite, to: index)
    }

    /// Ends the node that `beginNode` started; returns its index. `isSync` is `body.isSync`, given
    /// by the builder, which knows it: asking the body would copy it.
    mutating func endNode(_ body: consuming NodeBody, isSync: Bool) -> Int {
        makeContentsUnique()
        return contents!.endNode(body, isSync: isSync)
    }

    /// Changes the settings of node `index` of lineage `graph`, or records a problem when it is not
    /// one of these nodes.
    mutating func updateSettings(graph: UInt64, index: Int, _ update: (inout NodeSettings) -> Void) {
        let owned = owns(graph: graph, index: index)
        makeContentsUnique()
        if owned {
            update(&contents!.settings[index, default: NodeSettings()])
        } else {
            contents!.problems.append(.foreignNode(index: index))
        }
    }

    // MARK: Reading

    /// The prerequisites of node `index`, in the order they were given.
    func prerequisites(of index: Int) -> ArraySlice<Int> {
        guard let contents else { return [] }
        let start = index == 0 ? 0 : contents.prerequisiteEnds[index - 1]
        return contents.prerequisites[start..<contents.prerequisiteEnds[index]]
    }

    /// A node's name for people: its label, or its action type's name.
    func label(of index: Int) -> String {
        settings[index]?.label ?? bodies[index].defaultLabel
    }
}

extension GraphStorage {
    /// What a graph holds, shared by its copies until one of them changes.
    ///
    /// Its properties skip the runtime's exclusivity checks (which a class's mutable properties
    /// otherwise pay on every read and write): contents are changed only through
    /// `makeContentsUnique()`, by the one graph that references them, and read only by graphs that
    /// do not change them.
    // Why this is safe to share: the same reason. Contents that more than one graph references
    // (and so more than one thread may read) are never changed; a change first copies them.
    fileprivate final class Contents: @unchecked Sendable {
        @exclusivity(unchecked) var bodies: [NodeBody] = []
        @exclusivity(unchecked) var prerequisites: [Int] = []
        @exclusivity(unchecked) var prerequisiteEnds: [Int] = []
        @exclusivity(unchecked) var syncNodes = NodeSet()
        @exclusivity(unchecked) var settings: [Int: NodeSettings] = [:]
        @exclusivity(unchecked) var nodeProblems: [Int: GraphError] = [:]
        @exclusivity(unchecked) var problems: [GraphError] = []
        @exclusivity(unchecked) var hooks: GraphHooks?
        @exclusivity(unchecked) var lineageID: UInt64 = 0
        /// Whether copies of this graph kept elsewhere may add nodes under `lineageID` too: true
        /// for contents copied from another graph's, until this one takes a lineage of its own.
        @exclusivity(unchecked) var sharesLineage = false
        /// The lineages this graph's earlier nodes belong to, oldest first: nodes below `end` that
        /// the current lineage does not cover were added under `id`. Empty unless copies diverged.
        @exclusivity(unchecked) var earlierLineages: [(id: UInt64, end: Int)] = []

        init() {}

        /// A copy of `other`'s contents, whose nodes added from now on belong to a new lineage.
        init(copying other: Contents) {
            (bodies, prerequisites, prerequisiteEnds) = (other.bodies, other.prerequisites, other.prerequisiteEnds)
            syncNodes = other.syncNodes
            (settings, nodeProblems, problems, hooks) = (
                other.settings, other.nodeProblems, other.problems, other.hooks
            )
            (lineageID, earlierLineages) = (other.lineageID, other.earlierLineages)
            sharesLineage = true
        }

        /// Room taken at a graph's first node, and at its first prerequisite, when none was reserved:
        /// most graphs are that small, and each array then allocates once instead of growing 1, 2, 4.
        private static let smallGraph = 8

        /// Starts a node: takes a new lineage at the first node, and when copies elsewhere may add
        /// nodes under the current one (a node added to one copy is never taken for a node of the
        /// other); returns the new index.
        func beginNode() -> Int {
            if bodies.capacity == 0 {
                bodies.reserveCapacity(Self.smallGraph)
                prerequisiteEnds.reserveCapacity(Self.smallGraph)
            }
            if lineageID == 0 || sharesLineage {
                if lineageID != 0 { earlierLineages.append((lineageID, bodies.count)) }
                lineageID = GraphIdentifiers.next()
                sharesLineage = false
            }
            return bodies.count
        }

        func owns(graph: UInt64, index: Int) -> Bool {
            guard index >= 0, index < bodies.count else { return false }
            if graph == lineageID { return true }
            return earlierLineages.contains { $0.id == graph && index < $0.end }
        }

        func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
            if owns(graph: graph, index: prerequisite) {
                if prerequisites.capacity == 0 { prerequisites.reserveCapacity(Self.smallGraph) }
                prerequisites.append(prerequisite)
            } else if nodeProblems[index] == nil {
                let problem = GraphError.foreignNode(index: prerequisite)
                nodeProblems[index] = problem
                problems.append(problem)
            }
        }

        func endNode(_ body: consuming NodeBody, isSync: Bool) -> Int {
            assert(isSync == body.isSync, "OresRedux: node #\(bodies.count) is given the wrong kind")
            if isSync { syncNodes.insert(bodies.count) }
            bodies.append(body)
            prerequisiteEnds.append(prerequisites.count)
            return bodies.count - 1
        }
    }
}

/// A set of a graph's nodes, one bit a node: the first 64 kept inline, so that a small graph's set
/// takes no allocation of its own.
struct NodeSet: Sendable {
    private var first: UInt64 = 0
    /// The bits of nodes 64 and up, 64 a word.
    private var rest: [UInt64] = []

    func contains(_ node: Int) -> Bool {
        let (word, bit) = node.quotientAndRemainder(dividingBy: 64)
        if word == 0 { return first & (1 << bit) != 0 }
        return word <= rest.count && rest[word - 1] & (1 << bit) != 0
    }

    mutating func insert(_ node: Int) {
        let (word, bit) = node.quotientAndRemainder(dividingBy: 64)
        if word == 0 {
            first |= 1 << bit
            return
        }
        while rest.count < word { rest.append(0) }
        rest[word - 1] |= 1 << bit
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

/// What a node does when it starts.
///
/// Not generic over the state: a run reads a body per node, and unspecialized generic code (a run
/// is generic over the app's state, which this module does not know) would look up the body type's
/// metadata on every read. The run hands a body itself as `AnyObject`, and the closure, made where
/// the state type is known, casts it back to `GraphRun<State>` (checked); an async action kept as it
/// is casts it back to the run of its own state, once opened.
enum NodeBody: Sendable {
    /// A sync action known when the graph was built.
    case action(any Action)
    /// A sync action built when the node starts, from the prerequisites' responses (and, for a
    /// state-built node, the state: the closure casts the run back, as async bodies do).
    case makeAction(@Sendable (NodeInputs, AnyObject) -> any Action, ActionType)
    /// An async action and its attempts in the store that runs it.
    case async(AsyncNodeBody)
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
        case .async(.action(let action, _)): String(describing: type(of: action))
        case .makeAction(_, let type), .async(.make(_, let type)): type.name
        case .delay(let duration): "delay \(duration)"
        case .join(_, let type): "join \(type.name)"
        }
    }
}

/// An async node's work: its action's attempts, in the run that starts the node.
enum AsyncNodeBody: Sendable {
    /// An action known when the graph was built, kept as it is: no closure is made for it. The
    /// run opens it when the node starts, so that its attempts are generic over its type again.
    case action(any AsyncAction, KeyedActionCheck)
    /// An action built when the node starts, from the prerequisites' responses (and the state,
    /// for a state-built node), then its attempts: a closure made where the action's type is known.
    case make(@Sendable (AsyncNodeStart) async -> Result<ResponseSlot, any Error>, ActionType)
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
