import Testing

@testable import OresRedux

/// The inspector draws each run with `LayeredLayout`: columns by dependency depth, rows chosen to
/// keep edges uncrossed.
@Suite("Layered layout")
struct LayeredLayoutTests {
    @Test("a chain is one row, one column per node")
    func chain() {
        let layout = LayeredLayout(prerequisites: [[], [0], [1], [2]])
        #expect(layout.positions.map(\.layer) == [0, 1, 2, 3])
        #expect(layout.positions.map(\.row) == [0, 0, 0, 0])
        #expect(layout.layers == 4 && layout.rows == 1)
    }

    @Test("every node sits right of all its prerequisites, two nodes never share a place")
    func diamond() {
        let prerequisites = [[], [0], [0], [1, 2], [0]]
        let layout = LayeredLayout(prerequisites: prerequisites)
        for (node, list) in prerequisites.enumerated() {
            for prerequisite in list { #expect(layout.positions[prerequisite].layer < layout.positions[node].layer) }
        }
        #expect(layout.positions[3].layer == 2, "the longest path decides the column")
        let places = layout.positions.map { "\($0.layer),\($0.row)" }
        #expect(Set(places).count == places.count)
        #expect(layout.rows == 3)
    }

    @Test("the sweeps undo a crossing that the order of adding made")
    func uncrosses() {
        // a0, a1; then b0 after a1 and b1 after a0: in the order added, the two edges cross.
        let prerequisites = [[], [], [1], [0]]
        let layout = LayeredLayout(prerequisites: prerequisites)
        #expect(layout.crossings(prerequisites: prerequisites) == 0)
        #expect(layout.positions[3].row < layout.positions[2].row)
        let unswept = LayeredLayout(prerequisites: prerequisites, sweeps: 0)
        #expect(unswept.crossings(prerequisites: prerequisites) == 1)
    }

    @Test("a thousand-node chain is laid out without recursion")
    func longChain() {
        let prerequisites = (0..<1_000).map { $0 == 0 ? [] : [$0 - 1] }
        let layout = LayeredLayout(prerequisites: prerequisites)
        #expect(layout.layers == 1_000 && layout.rows == 1)
    }
}
