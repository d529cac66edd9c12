import OresRedux

/// A dependency graph as plain adjacency, the input that the store and every baseline are built from.
///
/// Prerequisites are compressed: node `i`'s are `prerequisites[ends[i - 1] ..< ends[i]]`, all of them
/// nodes with a smaller index.
struct Shape: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        /// 0 <- 1 <- 2 <- ... : nothing can run beside anything else.
        case chain
        /// One root, N-2 middle nodes after it, one sink after all of them.
        case wide
        /// Layers of random nodes, each after ~4 distinct nodes of the layer before (seeded).
        case layered
    }

    let kind: Kind
    let count: Int
    let ends: [Int32]
    let prerequisites: [Int32]

    init(_ kind: Kind, count: Int) {
        precondition(count >= 3)
        self.kind = kind
        self.count = count
        var ends: [Int32] = []
        var prerequisites: [Int32] = []
        ends.reserveCapacity(count)
        switch kind {
        case .chain:
            prerequisites.reserveCapacity(count)
            ends.append(0)
            for node in 1..<count {
                prerequisites.append(Int32(node - 1))
                ends.append(Int32(prerequisites.count))
            }
        case .wide:
            prerequisites.reserveCapacity(2 * count)
            ends.append(0)
            for _ in 1..<(count - 1) {
                prerequisites.append(0)
                ends.append(Int32(prerequisites.count))
            }
            for middle in 1..<(count - 1) { prerequisites.append(Int32(middle)) }
            ends.append(Int32(prerequisites.count))
        case .layered:
            let width = Swift.max(8, Swift.min(1_000, count / 10))
            var generator = SplitMix64(seed: 0x0E5_2ED0 &+ UInt64(count))
            prerequisites.reserveCapacity(4 * count)
            for node in 0..<count {
                let layer = node / width
                if layer > 0 {
                    let previousStart = (layer - 1) * width
                    var picked: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)
                    var taken = 0
                    while taken < 4 {
                        let candidate = Int32(previousStart + Int(generator.next() % UInt64(width)))
                        if candidate == picked.0 || candidate == picked.1 || candidate == picked.2 { continue }
                        switch taken {
                        case 0: picked.0 = candidate
                        case 1: picked.1 = candidate
                        case 2: picked.2 = candidate
                        default: picked.3 = candidate
                        }
                        prerequisites.append(candidate)
                        taken += 1
                    }
                }
                ends.append(Int32(prerequisites.count))
            }
        }
        self.ends = ends
        self.prerequisites = prerequisites
    }

    @inline(__always)
    func range(of node: Int) -> Range<Int> {
        (node == 0 ? 0 : Int(ends[node - 1]))..<Int(ends[node])
    }

    var edgeCount: Int { prerequisites.count }
}

// MARK: - Building the store's graph from a shape

/// The graph a user would write: one `send` per node, prerequisites passed as an array, with room
/// reserved first since the size is known (as every baseline does with what it builds).
func buildSyncGraph(_ shape: Shape) -> ActionGraph<BenchState> {
    var graph = ActionGraph<BenchState>()
    graph.reserveCapacity(nodes: shape.count, prerequisites: shape.edgeCount)
    var nodes: [Node<Void>] = []
    nodes.reserveCapacity(shape.count)
    var after: [any GraphNode] = []
    let action = Increment(amount: 1)
    for node in 0..<shape.count {
        after.removeAll(keepingCapacity: true)
        for edge in shape.range(of: node) { after.append(nodes[Int(shape.prerequisites[edge])]) }
        nodes.append(graph.send(action, after: after))
    }
    return graph
}

/// The same graph with every node a trivial async action.
func buildAsyncGraph(_ shape: Shape) -> ActionGraph<BenchState> {
    var graph = ActionGraph<BenchState>()
    graph.reserveCapacity(nodes: shape.count, prerequisites: shape.edgeCount)
    var nodes: [Node<Int>] = []
    nodes.reserveCapacity(shape.count)
    var after: [any GraphNode] = []
    for node in 0..<shape.count {
        after.removeAll(keepingCapacity: true)
        for edge in shape.range(of: node) { after.append(nodes[Int(shape.prerequisites[edge])]) }
        nodes.append(graph.run(Trivial(), after: after))
    }
    return graph
}
