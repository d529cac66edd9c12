/// Places a run's graph for drawing, left to right: each node in a column (its layer) after every
/// prerequisite, and in a row within its column chosen to keep edges short and uncrossed.
///
/// Written here rather than vendored (Debian packages dagre): the graphs are small, the page stays
/// one file with no third-party script and no license beside it, and the layout is tested with the
/// rest of the package. It follows the classic layered drawing (Sugiyama): longest-path layers, then
/// a few sweeps that order each layer by the mean row of its neighbours in the layer before or
/// after (the barycenter heuristic).
struct LayeredLayout: Equatable {
    /// Each node's column and row.
    var positions: [(layer: Int, row: Int)]
    /// How many columns, and the most rows of any.
    var layers: Int
    var rows: Int

    static func == (lhs: LayeredLayout, rhs: LayeredLayout) -> Bool {
        lhs.layers == rhs.layers && lhs.rows == rhs.rows
            && lhs.positions.map(\.layer) == rhs.positions.map(\.layer)
            && lhs.positions.map(\.row) == rhs.positions.map(\.row)
    }

    /// - Parameter prerequisites: each node's prerequisites; every prerequisite comes before its
    ///   node (as in an ``ActionGraph``), so there is no cycle. Others are ignored.
    init(prerequisites: [[Int]], sweeps: Int = 4) {
        let count = prerequisites.count
        var layer = [Int](repeating: 0, count: count)
        var dependents = [[Int]](repeating: [], count: count)
        for node in 0..<count {
            for prerequisite in prerequisites[node] where prerequisite >= 0 && prerequisite < node {
                layer[node] = max(layer[node], layer[prerequisite] + 1)
                dependents[prerequisite].append(node)
            }
        }
        let layerCount = (layer.max() ?? -1) + 1
        var columns = [[Int]](repeating: [], count: layerCount)
        for node in 0..<count { columns[layer[node]].append(node) }
        var row = [Int](repeating: 0, count: count)
        func number(_ column: [Int]) {
            for (index, node) in column.enumerated() { row[node] = index }
        }
        columns.forEach(number)

        // Order each column by the mean row of its neighbours in the column just placed; a node with
        // none keeps its row. Stable, so ties keep the order nodes were added in.
        func reorder(_ column: Int, by neighbours: (Int) -> [Int]) {
            let keyed = columns[column].map { node -> (node: Int, key: Double) in
                let rows = neighbours(node).map { Double(row[$0]) }
                return (node, rows.isEmpty ? Double(row[node]) : rows.reduce(0, +) / Double(rows.count))
            }
            columns[column] = keyed.enumerated().sorted {
                $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset
            }.map(\.element.node)
            number(columns[column])
        }
        for sweep in 0..<sweeps {
            if sweep % 2 == 0 {
                for column in columns.indices.dropFirst() {
                    reorder(column) { node in prerequisites[node].filter { $0 >= 0 && $0 < node } }
                }
            } else {
                for column in columns.indices.reversed().dropFirst() { reorder(column) { dependents[$0] } }
            }
        }
        positions = (0..<count).map { (layer: layer[$0], row: row[$0]) }
        layers = layerCount
        rows = columns.map(\.count).max() ?? 0
    }

    /// How many pairs of edges cross, between every two neighbouring columns (what the sweeps lower).
    func crossings(prerequisites: [[Int]]) -> Int {
        var edges: [(from: (layer: Int, row: Int), to: (layer: Int, row: Int))] = []
        for (node, list) in prerequisites.enumerated() {
            for prerequisite in list where prerequisite >= 0 && prerequisite < node {
                edges.append((positions[prerequisite], positions[node]))
            }
        }
        var count = 0
        for a in edges.indices {
            for b in edges.indices where b > a {
                let (x, y) = (edges[a], edges[b])
                guard x.from.layer == y.from.layer, x.to.layer == y.to.layer else { continue }
                if (x.from.row - y.from.row) * (x.to.row - y.to.row) < 0 { count += 1 }
            }
        }
        return count
    }
}
