/// Any node of an ``ActionGraph``, whatever its response type: what ordering-only prerequisites take.
///
/// ``Node`` is the one conforming type: the builder reads which node a prerequisite is through
/// ``nodeID``, a protocol requirement, so that an ordering-only prerequisite costs no type check.
public protocol GraphNode: Sendable {
    /// Which node of which graph this is.
    var nodeID: GraphNodeID { get }
}

extension GraphNode {
    /// No node of any graph: a type of the app's own that conforms to ``GraphNode`` names none, so
    /// a node that waits on it fails with ``GraphError/foreignNode(index:)``.
    public var nodeID: GraphNodeID { GraphNodeID(graph: 0, index: -1) }
}

/// Which node of which graph: a ``Node``'s identity without its response type.
public struct GraphNodeID: Hashable, Sendable {
    /// Which graph lineage the node belongs to (see `ActionGraph.owns`); 0 for no graph.
    let graph: UInt64
    /// The node's position in its graph; -1 for no node.
    public let index: Int
}

/// A node of an ``ActionGraph`` whose response has type `Response`.
///
/// Nodes are returned by the graph's builder methods and are only meaningful in the graph that made
/// them (and in copies of it made afterwards). Pass them as prerequisites of later nodes, and to a
/// ``GraphRun`` to read their outcome. A sync node's response is `Void`.
public struct Node<Response: Sendable>: GraphNode, Hashable, CustomStringConvertible {
    /// Which graph lineage the node belongs to (see `ActionGraph.owns`).
    @usableFromInline let graph: UInt64
    /// The node's position in its graph: nodes are numbered in the order they were added.
    public let index: Int

    @usableFromInline
    init(graph: UInt64, index: Int) {
        self.graph = graph
        self.index = index
    }

    /// Which node of which graph this is, without its response type.
    public var nodeID: GraphNodeID { GraphNodeID(graph: graph, index: index) }

    /// `node #index`.
    public var description: String { "node #\(index)" }
}

/// Process-wide unique graph lineage identifiers.
enum GraphIdentifiers {
    private static let counter = LockedValue<UInt64>(0)

    static func next() -> UInt64 {
        counter.withLock { counter in
            counter += 1
            return counter
        }
    }
}
