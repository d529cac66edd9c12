/// A durable graph's node names and shape, checked before its run starts.
struct DurableLayout: Sendable {
    /// Each node's label, by index.
    let labels: [String]
    /// The graph's shape: labels, kinds, prerequisites, durable nodes.
    let shape: DurableShape
    /// The fingerprint a run's start journals (``DurableFingerprint/journaled``): the shape's
    /// digest, then the shape. Resume refuses a journal whose digest is not this graph's.
    let fingerprint: String
    /// The shape's digest, the part of a journaled fingerprint that resume compares.
    let digest: String

    /// Checks that every node has a unique label and that every async node is declared durable.
    init<State>(_ graph: ActionGraph<State>) throws(DurableRunError) {
        let storage = graph.storage
        var nodes: [DurableShape.Node] = []
        nodes.reserveCapacity(storage.count)
        var firstIndex: [String: Int] = [:]
        for node in 0..<storage.count {
            guard let label = storage.settings[node]?.label else { throw .missingLabel(node: node) }
            if let first = firstIndex[label] {
                throw .duplicateLabel(label, nodes: [first, node])
            }
            firstIndex[label] = node
            let body = storage.bodies[node]
            let isDurable = storage.settings[node]?.durable != nil
            switch body {
            case .async where !isDurable, .join: throw .notDurable(node: label)
            case .action, .makeAction, .async, .delay: break
            }
            nodes.append(
                .init(
                    label: label, kind: body.kind, prerequisites: Array(storage.prerequisites(of: node)),
                    isDurable: isDurable))
        }
        labels = nodes.map(\.label)
        shape = DurableShape(nodes: nodes)
        let fingerprint = DurableFingerprint(shape)
        self.fingerprint = fingerprint.journaled
        digest = fingerprint.digest
    }
}
