/// What an ``ActionGraph`` holds, and the builder's bookkeeping: nodes, compressed prerequisite
/// lists, settings and the problems seen.
///
/// Not generic over the state, unlike the graph: code that adds an edge or reads a body needs no
/// generic metadata, which unspecialised code would look up at several hundred instructions a time.
struct GraphStorage: Sendable {
    /// Each node's body slot and prerequisite end, by index (see ``StoredNode``).
    private(set) var nodes: [StoredNode] = []
    /// The sync actions known when the graph was built, kept apart as plain existentials so that a
    /// run can hand one to the reducer where it is stored. From an enum, binding the action would
    /// first copy the whole body (projecting the payload of an address-only enum consumes it), and
    /// that copy and its destruction cost more than the rest of releasing a sync node.
    private(set) var actions: [any Action] = []
    /// Every other body: `.makeAction`, `.async`, `.delay` and `.join`.
    private(set) var works: [NodeBody] = []
    /// Every node's prerequisites, one list after the other (see ``StoredNode/prerequisiteEnd``).
    private(set) var prerequisites: [Int32] = []
    /// Timeouts, retries, fallbacks and labels, for the few nodes that have them.
    var settings: [Int: NodeSettings] = [:]
    /// Nodes that cannot run because they were given bad input, and why.
    var nodeProblems: [Int: GraphError] = [:]
    /// Every bad input seen while building, in order.
    private(set) var problems: [GraphError] = []

    /// Copies made before a mutation share `identity`; the first copy to mutate afterwards takes a
    /// new lineage, so a node added to one copy is never taken for a node of the other.
    private var identity = GraphIdentity()
    private var lineage: [(id: UInt64, end: Int)] = [(GraphIdentifiers.next(), Int.max)]
    /// `Node<R>` types seen as `any GraphNode` prerequisites, by metadata pointer (see `identity(of:)`).
    private var nodeTypes: [UInt] = []
    /// Async action types seen by `run`, and whether each is keyed (see `isKeyed(_:_:)`).
    private var asyncTypes: [(type: ObjectIdentifier, isKeyed: Bool)] = []
    /// How many nodes `reserveCapacity` made room for. `actions` and `works` take their room the
    /// first time each is appended to, since the mix of kinds is not known in advance.
    private var reservedNodes = 0

    /// The lineage that nodes added now belong to.
    var lineageID: UInt64 { lineage[lineage.count - 1].id }

    /// Whether the node `index` of lineage `graph` is one of these nodes.
    func owns(graph: UInt64, index: Int) -> Bool {
        guard index >= 0, index < nodes.count else { return false }
        if graph == lineageID { return true }
        return lineage.contains { $0.id == graph && index < $0.end }
    }

    // MARK: Adding nodes

    /// Adds a node after the nodes in `erasedPrerequisites`; returns its index.
    mutating func addNode(_ body: consuming NodeBody, erasedPrerequisites: [any GraphNode]) -> Int {
        addPrerequisites(erasedPrerequisites, to: beginNode())
        return endNode(body)
    }

    private mutating func addPrerequisites(_ erasedPrerequisites: [any GraphNode], to index: Int) {
        erasedPrerequisites.withUnsafeBufferPointer { prerequisites in
            if !prerequisites.isEmpty, appendVerifiedNodesOfThisLineage(prerequisites) { return }
            for position in prerequisites.indices {
                let (graph, node) = identity(of: prerequisites, at: position)
                addPrerequisite(graph: graph, index: node, to: index)
            }
        }
    }

    /// The usual case, without a check and an append per edge: when every prerequisite is a node
    /// added to this graph since its last copy, of a `Node<R>` type whose layout `identity(of:at:)`
    /// verified, appends all their indices at once and returns `true`; otherwise adds nothing.
    private mutating func appendVerifiedNodesOfThisLineage(_ prerequisites: UnsafeBufferPointer<any GraphNode>) -> Bool {
        let base = UnsafeRawPointer(prerequisites.baseAddress!)
        let lineage = lineageID
        let count = nodes.count
        if prerequisites.count == 1 {
            let (graph, index, metadata) = Self.inlineIdentity(base, at: 0)
            guard graph == lineage, index >= 0, index < count, nodeTypes.contains(metadata) else { return false }
            self.prerequisites.append(Int32(truncatingIfNeeded: index))
            return true
        }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: prerequisites.count) { indices in
            for position in prerequisites.indices {
                let (graph, index, metadata) = Self.inlineIdentity(base, at: position)
                guard graph == lineage, index >= 0, index < count, nodeTypes.contains(metadata) else { return false }
                indices[position] = Int32(truncatingIfNeeded: index)
            }
            self.prerequisites.append(contentsOf: indices)
            return true
        }
    }

    /// The two fields of a `Node<R>` and the type metadata pointer, read straight from the
    /// existential container at `position` (see `identity(of:at:)`, which says when that is valid).
    @inline(__always)
    private static func inlineIdentity(_ base: UnsafeRawPointer, at position: Int) -> (graph: UInt64, index: Int, metadata: UInt) {
        let container = base + position * MemoryLayout<any GraphNode>.stride
        return (container.load(as: UInt64.self),
                container.load(fromByteOffset: MemoryLayout<UInt64>.stride, as: Int.self),
                container.load(fromByteOffset: 3 * MemoryLayout<Int>.stride, as: UInt.self))
    }

    /// Adds a node for a sync action known now, after the nodes in `erasedPrerequisites`; returns its
    /// index. Kept apart from `addNode(_:erasedPrerequisites:)` so that the action goes straight into
    /// `actions` instead of through a `NodeBody`.
    mutating func addNode(action: consuming any Action, erasedPrerequisites: [any GraphNode]) -> Int {
        addPrerequisites(erasedPrerequisites, to: beginNode())
        return endNode(action: action)
    }

    /// Makes room for `nodeCount` nodes and `prerequisiteCount` prerequisites in all; a count of
    /// zero or less reserves nothing (as with `Array.reserveCapacity`).
    mutating func reserveCapacity(nodes nodeCount: Int, prerequisites prerequisiteCount: Int) {
        reservedNodes = Swift.max(reservedNodes, nodeCount)
        let remaining = reservedNodes - nodes.count
        nodes.reserveCapacity(reservedNodes)
        if !actions.isEmpty { actions.reserveCapacity(actions.count + remaining) }
        if !works.isEmpty { works.reserveCapacity(works.count + remaining) }
        prerequisites.reserveCapacity(Swift.max(0, prerequisiteCount))
    }

    /// Starts a node: takes a new lineage if this graph shares nodes with a copy, returns the new index.
    mutating func beginNode() -> Int {
        if !isKnownUniquelyReferenced(&identity) {
            identity = GraphIdentity()
            lineage[lineage.count - 1].end = nodes.count
            lineage.append((GraphIdentifiers.next(), Int.max))
        }
        return nodes.count
    }

    /// Adds an edge, or records a problem when the prerequisite is not one of these nodes.
    mutating func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
        if owns(graph: graph, index: prerequisite) {
            prerequisites.append(Int32(truncatingIfNeeded: prerequisite))
        } else if nodeProblems[index] == nil {
            let problem = GraphError.foreignNode(index: prerequisite)
            nodeProblems[index] = problem
            problems.append(problem)
        }
    }

    /// Ends the node that `beginNode` started; returns its index.
    mutating func endNode(_ body: consuming NodeBody) -> Int {
        switch consume body {
        case .action(let action):
            return endNode(action: action)
        case let work:
            let index = nodes.count
            if works.isEmpty, reservedNodes > index { works.reserveCapacity(reservedNodes - index) }
            nodes.append(StoredNode(bodySlot: BodySlot.work(works.count, isSync: work.isSync),
                                    prerequisiteEnd: prerequisites.count))
            works.append(work)
            return index
        }
    }

    /// Ends the node that `beginNode` started with a sync action known now; returns its index.
    @inline(__always)
    private mutating func endNode(action: consuming any Action) -> Int {
        let index = nodes.count
        if actions.isEmpty, reservedNodes > index { actions.reserveCapacity(reservedNodes - index) }
        nodes.append(StoredNode(bodySlot: BodySlot.action(actions.count), prerequisiteEnd: prerequisites.count))
        actions.append(action)
        return index
    }

    /// A prerequisite's graph and index, read through `any GraphNode`.
    ///
    /// Recognising a `Node<R>` in an existential takes a protocol-conformance lookup (~500
    /// instructions) or at least a dynamic-type query (~100), more than the rest of adding an edge.
    /// So the graph remembers the `Node<R>` types it has seen, by their type metadata pointer, and
    /// after that reads the node's two fields straight from the existential container: three words
    /// of inline value, then the metadata pointer (Swift's stable ABI for opaque existentials). A
    /// type is remembered only once a read through that layout gave the same fields as the checked
    /// path, so a layout that differed would only cost speed.
    private mutating func identity(of prerequisites: UnsafeBufferPointer<any GraphNode>,
                                   at position: Int) -> (graph: UInt64, index: Int) {
        let (graph, index, metadata) = Self.inlineIdentity(UnsafeRawPointer(prerequisites.baseAddress!), at: position)
        let inline = (graph: graph, index: index)
        if nodeTypes.contains(metadata) { return inline }
        let prerequisite = prerequisites[position]
        guard let reference = prerequisite as? any NodeReference else {
            return (0, -1)     // not a node of any graph: an outside type conforming to GraphNode
        }
        let checked = (graph: reference.graph, index: reference.index)
        if metadata == UInt(bitPattern: ObjectIdentifier(type(of: prerequisite))),
           inline == checked, nodeTypes.count < 64 {
            nodeTypes.append(metadata)
        }
        return checked
    }

    /// Whether the async action type `type` is keyed: `lookUp()` (a conformance lookup) the first
    /// time, then a scan of the few async action types this graph has seen.
    mutating func isKeyed(_ type: ObjectIdentifier, _ lookUp: () -> Bool) -> Bool {
        if let known = asyncTypes.first(where: { $0.type == type }) { return known.isKeyed }
        let keyed = lookUp()
        if asyncTypes.count < 32 { asyncTypes.append((type, keyed)) }
        return keyed
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

    /// The number of nodes.
    var count: Int { nodes.count }

    /// What node `index` does.
    @inline(__always)
    func body(at index: Int) -> NodeBody {
        let slot = nodes[index].bodySlot
        return BodySlot.isAction(slot) ? .action(actions[BodySlot.index(slot)]) : works[BodySlot.index(slot)]
    }

    /// The prerequisites of node `index`.
    func prerequisites(of index: Int) -> ArraySlice<Int32> {
        let start = index == 0 ? 0 : Int(nodes[index - 1].prerequisiteEnd)
        return prerequisites[start..<Int(nodes[index].prerequisiteEnd)]
    }

    /// A node's name for people: its label, or its action type's name.
    func label(of index: Int) -> String {
        if let label = settings[index]?.label { return label }
        return body(at: index).defaultLabel
    }
}

/// Shared by copies of a graph until one of them adds a node.
private final class GraphIdentity: Sendable {}

/// One node as a graph stores it: two numbers, so that adding a node appends to one array here.
struct StoredNode: Sendable {
    /// Where the node's body is (see ``BodySlot``).
    let bodySlot: Int32
    /// Where the node's prerequisite list ends in `GraphStorage.prerequisites`; it starts where the
    /// previous node's ends (at 0 for the first node).
    let prerequisiteEnd: Int32

    @inline(__always)
    init(bodySlot: Int32, prerequisiteEnd: Int) {
        precondition(prerequisiteEnd <= Int(Int32.max), "OresRedux: a graph holds at most 2^31 - 1 prerequisites in all")
        self.bodySlot = bodySlot
        self.prerequisiteEnd = Int32(truncatingIfNeeded: prerequisiteEnd)
    }
}

/// How ``StoredNode/bodySlot`` says where a node's body is, in one `Int32`: an index into `actions`
/// (`>= 0`), or the complement of an index into `works` shifted left once, with the low bit telling
/// whether that work is sync. So a run learns which nodes are sync without reading a single body.
enum BodySlot {
    @inline(__always)
    static func action(_ index: Int) -> Int32 {
        precondition(index <= Int(Int32.max), "OresRedux: a graph holds at most 2^31 - 1 sync actions")
        return Int32(truncatingIfNeeded: index)
    }

    @inline(__always)
    static func work(_ index: Int, isSync: Bool) -> Int32 {
        precondition(index < 1 << 30, "OresRedux: a graph holds at most 2^30 nodes other than sync actions")
        return ~Int32(truncatingIfNeeded: index << 1 | (isSync ? 1 : 0))
    }

    @inline(__always)
    static func isAction(_ slot: Int32) -> Bool { slot >= 0 }

    @inline(__always)
    static func isSync(_ slot: Int32) -> Bool { slot >= 0 || ~slot & 1 == 1 }

    /// The index into `actions` or `works`, whichever the slot points into.
    @inline(__always)
    static func index(_ slot: Int32) -> Int { slot >= 0 ? Int(slot) : Int(~slot >> 1) }
}
