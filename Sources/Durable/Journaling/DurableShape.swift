/// A durable graph's shape, as its fingerprint spells it out: for each node, in the order the graph
/// added them, its label, its kind, the nodes it waits for and whether it was declared durable.
///
/// Its ``text`` is what the fingerprint's digest is computed from, and what a run's start journals
/// after the digest (see ``DurableFingerprint``), so that a check can tell later which node of a
/// recorded run was renamed, removed or rewired.
package struct DurableShape: Sendable, Hashable {
    /// One node of the shape.
    package struct Node: Sendable, Hashable {
        /// The node's label, unique in its graph.
        package var label: String
        /// Sync, async, delay or join.
        package var kind: NodeKind
        /// The indices of the nodes it waits for, in the order the graph gives them.
        package var prerequisites: [Int]
        /// Whether the node was declared durable (every async node of a durable graph is).
        package var isDurable: Bool

        package init(label: String, kind: NodeKind, prerequisites: [Int], isDurable: Bool) {
            self.label = label
            self.kind = kind
            self.prerequisites = prerequisites
            self.isDurable = isDurable
        }
    }

    /// The nodes, by index.
    package let nodes: [Node]

    /// The canonical text: `v1`, then for each node `|<label's UTF-8 byte count>:<label>:<kind>:`
    /// `<prerequisite indices, comma-separated>:<true or false>`. The byte count comes first, so
    /// that no label can forge another node's entry, and the text reads back unambiguously.
    package let text: String

    package init(nodes: [Node]) {
        self.nodes = nodes
        var text = "v1"
        for node in nodes {
            let prerequisites = node.prerequisites.map(String.init).joined(separator: ",")
            text += "|\(node.label.utf8.count):\(node.label):\(node.kind.rawValue):\(prerequisites):\(node.isDurable)"
        }
        self.text = text
    }

    /// Reads back a shape's ``text``; `nil` if it is not one (a later format, or damage).
    package init?(text: String) {
        let bytes = Array(text.utf8)
        guard bytes.starts(with: Array("v1".utf8)) else { return nil }
        var at = 2
        /// The text from `at` up to the next `byte` (or the end); `at` moves to that byte.
        func field(upTo byte: UInt8) -> String? {
            let end = bytes[at...].firstIndex(of: byte) ?? bytes.count
            defer { at = end }
            return String(validUTF8: bytes[at..<end])
        }
        /// Moves past `byte` if it is the next one.
        func skip(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }
        let bar = UInt8(ascii: "|")
        let colon = UInt8(ascii: ":")
        var nodes: [Node] = []
        while at < bytes.count {
            // The label's byte count, then the label: it may hold any character, `|` and `:` too.
            guard skip(bar), let count = field(upTo: colon).flatMap({ Int($0) }), skip(colon), count >= 0,
                count <= bytes.count - at, let label = String(validUTF8: bytes[at..<at + count])
            else { return nil }
            at += count
            guard skip(colon), let kind = field(upTo: colon).flatMap(NodeKind.init(rawValue:)), skip(colon),
                let list = field(upTo: colon), skip(colon), let isDurable = field(upTo: bar).flatMap({ Bool($0) })
            else { return nil }
            var prerequisites: [Int] = []
            for index in list.split(separator: ",") {
                guard let index = Int(index), index >= 0, index < nodes.count else { return nil }
                prerequisites.append(index)
            }
            nodes.append(Node(label: label, kind: kind, prerequisites: prerequisites, isDurable: isDurable))
        }
        self.init(nodes: nodes)
        guard self.text == text else { return nil }  // read back exactly, or not at all
    }
}
