import Foundation
import OresRedux

/// Builds the graph, dispatches it and waits for the run; returns ns per node. Everything it made
/// is released before it returns (inside the timing).
func largeGraphRun(_ shape: Shape, async: Bool, reducer: Reducer<BenchState>) async -> Double {
    let store = Store(initialState: BenchState(), reducer: reducer)
    let start = benchClock.now
    let graph = async ? buildAsyncGraph(shape) : buildSyncGraph(shape)
    let report = await store.dispatch(graph).wait()
    let end = benchClock.now
    precondition(report.count == shape.count, "graph run reported \(report.count) of \(shape.count) nodes")
    if !async {
        precondition(
            store.state.count == shape.count, "sync graph applied \(store.state.count) of \(shape.count) nodes")
    }
    return (end - start).nanoseconds / Double(shape.count)
}

/// Regression guards, not targets: no app builds graphs this large, but the cost per node must stay
/// flat as a graph grows (nothing quadratic), and a million-node chain must run without deep
/// recursion. Sizes are interleaved within each repetition (10k, 100k, 1M, then again), so each
/// repetition's ratio of largest to smallest compares figures taken under the same load.
func benchLargeGraphs(_ report: Report, quick: Bool) async {
    report.section("Regression guards: large graphs, build + dispatch + wait (time per node)")
    let reducer = incrementReducer
    let sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
    let repetitions = quick ? 3 : 5
    for async in [false, true] {
        for kind in Shape.Kind.allCases {
            let shapes = sizes.map { Shape(kind, count: $0) }
            _ = await largeGraphRun(shapes[0], async: async, reducer: reducer)  // warm-up
            var perNode = Array(repeating: [Double](), count: sizes.count)
            var growth: [Double] = []
            for _ in 0..<repetitions {
                for (index, shape) in shapes.enumerated() {
                    perNode[index].append(await largeGraphRun(shape, async: async, reducer: reducer))
                }
                growth.append(perNode[sizes.count - 1].last! / perNode[0].last!)
            }
            let medians = perNode.map { Stats($0).median }
            let ratio = Stats(growth)
            report.add(
                GuardRecord(
                    scenario: "\(async ? "async" : "sync") \(kind.rawValue), per node",
                    value: zip(sizes, medians).map { "\(formatCount($0)) \(formatNanoseconds($1))" }.joined(
                        separator: ", ")
                        + "; \(formatCount(sizes.last!)) / \(formatCount(sizes[0])) = \(formatRatio(ratio.median))"
                        + " (min-max \(formatRatio(ratio.min))-\(formatRatio(ratio.max)))",
                    note: ""))
            report.check(
                "flat cost per node, \(async ? "async" : "sync") \(kind.rawValue) (<= 1.5x)",
                formatRatio(ratio.median), ratio.median <= 1.5)
        }
    }
}

/// The memory guard's reference: a Task per node that awaits its prerequisites' tasks.
func taskPerNode(_ shape: Shape) async -> Int {
    var tasks: [Task<Int, Never>] = []
    tasks.reserveCapacity(shape.count)
    for node in 0..<shape.count {
        let prerequisites = shape.range(of: node).map { tasks[Int(shape.prerequisites[$0])] }
        tasks.append(
            Task {
                for prerequisite in prerequisites { _ = await prerequisite.value }
                return 1
            })
    }
    var total = 0
    for task in tasks { total &+= await task.value }
    return total
}
