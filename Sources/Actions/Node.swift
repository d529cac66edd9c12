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

/// The responses of a node's prerequisites, as its `make` closure reads them when the node starts.
///
/// A snapshot taken under the run's lock when the node starts: the prerequisites have all succeeded
/// by then, and a node's response never changes once stored. The responses are in the order the
/// prerequisites were given, which is the order of the closure's parameters, so the closure reads
/// them one after the other by position. (It keeps no `Node` values: in generic code that does not
/// know the response types, each one would cost a type lookup at run time.)
struct NodeInputs: Sendable {
    let responses: [ResponseSlot]
    /// The key the node's attempts carry in a durable run; `nil` otherwise.
    var idempotencyKey: IdempotencyKey? = nil

    /// The response at `position`, as `type`; moves `position` to the next one.
    func next<R: Sendable>(_ type: R.Type, _ position: inout Int) -> R {
        defer { position += 1 }
        return unwrapResponse(responses[position], as: type)
    }
}

/// One node's stored response: the value, or `nil` for `Void`.
typealias ResponseSlot = (any Sendable)?
