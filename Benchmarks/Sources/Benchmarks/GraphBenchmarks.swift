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

/// Regression guards: no app builds graphs this large, but the cost per node must stay flat as a
/// graph grows (nothing quadratic), and a million-node chain must run without deep recursion.
/// Sizes are interleaved within each repetition (10k, 100k, 1M, then again), so each repetition's
/// ratio of a larger size to 10k compares figures taken under the same load. The guard is a sync
/// node from 10k to the largest size (1M in a full run, 100k with `--quick`).
func benchLargeGraphs(_ report: Report, quick: Bool) async {
    report.section("Regression guards: large graphs, build + dispatch + wait (time per node)")
    let reducer = incrementReducer
    let sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
    let repetitions = quick ? 3 : 5
    var worstSyncGrowth: (kind: Shape.Kind, growth: Stats)?
    for async in [false, true] {
        for kind in Shape.Kind.allCases {
            let shapes = sizes.map { Shape(kind, count: $0) }
            _ = await largeGraphRun(shapes[0], async: async, reducer: reducer)  // warm-up
            var perNode = Array(repeating: [Double](), count: sizes.count)
            for _ in 0..<repetitions {
                for (index, shape) in shapes.enumerated() {
                    perNode[index].append(await largeGraphRun(shape, async: async, reducer: reducer))
                }
            }
            // growth[i]: per repetition, the cost per node at sizes[i] over the cost at 10k.
            let growth = sizes.indices.map { index in Stats(zip(perNode[index], perNode[0]).map { $0 / $1 }) }
            let medians = perNode.map { Stats($0).median }
            report.add(
                GuardRecord(
                    scenario: "\(async ? "async" : "sync") \(kind.rawValue), per node",
                    value: zip(sizes, medians).map { "\(formatCount($0)) \(formatNanoseconds($1))" }.joined(
                        separator: ", ")
                        + sizes.indices.dropFirst().map { index in
                            "; \(formatCount(sizes[index])) / 10k = \(formatRatio(growth[index].median))"
                                + " (min-max \(formatRatio(growth[index].min))-\(formatRatio(growth[index].max)))"
                        }.joined(),
                    note: ""))
            // A sync graph's largest figure is the guard, recorded below; an async one's is watched.
            let largest = growth[sizes.count - 1]
            if !async, largest.median > worstSyncGrowth?.growth.median ?? -1 {
                worstSyncGrowth = (kind, largest)
            }
            if async {
                report.check(
                    "flat cost per node, \(async ? "async" : "sync") \(kind.rawValue), "
                        + "\(formatCount(sizes.last!)) / 10k (<= 1.5x)",
                    formatRatio(largest.median), largest.median <= 1.5)
            }
        }
    }
    if let worstSyncGrowth {
        report.record(
            .syncNodeGrowth, worstSyncGrowth.growth,
            note: "sync \(worstSyncGrowth.kind.rawValue), \(formatCount(sizes.last!)) / 10k, \(repetitions) repetitions"
        )
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
