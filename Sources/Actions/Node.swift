/// Any node of an ``ActionGraph``, whatever its response type: what ordering-only prerequisites take.
public protocol GraphNode: Sendable {}

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

    /// `node #index`.
    public var description: String { "node #\(index)" }
}

/// Lets the builder read a prerequisite's identity through `any GraphNode`.
protocol NodeReference {
    var graph: UInt64 { get }
    var index: Int { get }
}

extension Node: NodeReference {}

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
