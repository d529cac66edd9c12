import OresRedux

/// One difference between the shape a durable run was recorded with and today's graph's shape,
/// for a ``ReplayFinding``.
struct ShapeChange: Equatable {
    let kind: ReplayFinding.Kind
    /// The node's recorded label (today's for an added node).
    let node: String
    /// What changed, after the node's name: `was renamed "create post"`.
    let change: String

    /// What changed from `recorded` to `today`, in the recorded graph's order, added nodes last.
    ///
    /// Nodes are matched by label first. A recorded node whose label is gone is taken as renamed
    /// when today's graph has an unmatched node of the same kind that waits for the same nodes
    /// (the one at the same index if there is one), and as removed otherwise; today's nodes left
    /// unmatched were added. Empty when the two shapes differ only in the order nodes were added:
    /// see ``reordering(from:to:)``.
    static func changes(from recorded: DurableShape, to today: DurableShape) -> [ShapeChange] {
        let todayIndex = Dictionary(
            today.nodes.enumerated().map { ($1.label, $0) }, uniquingKeysWith: { first, _ in first })
        var match = recorded.nodes.map { todayIndex[$0.label] }
        var taken = Set(match.compactMap { $0 })
        var renamed = Set<Int>()
        for (index, node) in recorded.nodes.enumerated() where match[index] == nil {
            let prerequisites = node.prerequisites.map { match[$0] }
            guard prerequisites.allSatisfy({ $0 != nil }) else { continue }
            let candidates = today.nodes.indices.filter { candidate in
                let other = today.nodes[candidate]
                return !taken.contains(candidate) && other.kind == node.kind && other.isDurable == node.isDurable
                    && other.prerequisites.map(Optional.some) == prerequisites
            }
            guard let pick = candidates.contains(index) ? index : candidates.first else { continue }
            match[index] = pick
            taken.insert(pick)
            renamed.insert(index)
        }

        var changes: [ShapeChange] = []
        for (index, node) in recorded.nodes.enumerated() {
            guard let todayNode = match[index].map({ today.nodes[$0] }) else {
                changes.append(ShapeChange(kind: .nodeRemoved, node: node.label, change: "was removed"))
                continue
            }
            if renamed.contains(index) {
                changes.append(
                    ShapeChange(kind: .nodeRenamed, node: node.label, change: "was renamed \"\(todayNode.label)\""))
            }
            if todayNode.kind != node.kind || todayNode.isDurable != node.isDurable {
                changes.append(
                    ShapeChange(
                        kind: .nodeKindChanged, node: node.label,
                        change: "was \(describe(node)), now \(describe(todayNode))"))
            }
            let waitedFor = node.prerequisites.map { match[$0] }
            if waitedFor != todayNode.prerequisites.map(Optional.some) {
                let was = node.prerequisites.map { recorded.nodes[$0].label }
                let now = todayNode.prerequisites.map { today.nodes[$0].label }
                let sameNodes = Set(waitedFor) == Set(todayNode.prerequisites.map(Optional.some))
                changes.append(
                    ShapeChange(
                        kind: .prerequisitesChanged, node: node.label,
                        change: "waited for \(list(was)), now waits for \(list(now))"
                            + (sameNodes ? " (the same nodes, in another order)" : "")))
            }
        }
        for (index, node) in today.nodes.enumerated() where !taken.contains(index) {
            changes.append(ShapeChange(kind: .nodeAdded, node: node.label, change: "was added"))
        }
        return changes
    }

    /// `"front", "back", now "back", "front"` when the two shapes have the same labels in another
    /// order; `nil` otherwise.
    static func reordering(from recorded: DurableShape, to today: DurableShape) -> String? {
        let was = recorded.nodes.map(\.label)
        let now = today.nodes.map(\.label)
        guard was != now, was.sorted() == now.sorted() else { return nil }
        return "\(list(was)), now \(list(now))"
    }

    private static func describe(_ node: DurableShape.Node) -> String {
        let article = node.kind == .async ? "an" : "a"
        return "\(article) \(node.kind.rawValue) node" + (node.isDurable ? " declared durable" : "")
    }

    private static func list(_ labels: [String]) -> String {
        labels.isEmpty ? "nothing" : labels.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
