/// A durable graph's node names and shape, checked before its run starts.
struct DurableLayout: Sendable {
    /// Each node's label, by index.
    let labels: [String]
    /// The graph's shape (labels, kinds, prerequisites, durable nodes) as a SHA-256 digest: resume
    /// refuses a journal whose graph no longer has this shape.
    let fingerprint: String

    /// Checks that every node has a unique label and that every async node is declared durable.
    init<State>(_ graph: ActionGraph<State>) throws(DurableRunError) {
        let storage = graph.storage
        var labels: [String] = []
        labels.reserveCapacity(storage.count)
        var firstIndex: [String: Int] = [:]
        var shape = "v1"
        for node in 0..<storage.count {
            guard let label = storage.settings[node]?.label else { throw .missingLabel(node: node) }
            if let first = firstIndex[label] {
                throw .duplicateLabel(label, nodes: [first, node])
            }
            firstIndex[label] = node
            labels.append(label)
            let body = storage.bodies[node]
            let isDurable = storage.settings[node]?.durable != nil
            switch body {
            case .async where !isDurable, .join: throw .notDurable(node: label)
            case .action, .makeAction, .async, .delay: break
            }
            let prerequisites = storage.prerequisites(of: node).map(String.init).joined(separator: ",")
            // Lengths first, so that no label can forge another node's entry.
            shape += "|\(label.utf8.count):\(label):\(body.kind.rawValue):\(prerequisites):\(isDurable)"
        }
        self.labels = labels
        self.fingerprint = "sha256:" + SHA256.hex(SHA256.digest(Array(shape.utf8)))
    }
}
