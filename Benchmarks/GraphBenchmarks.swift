import Foundation
import OresRedux

// MARK: - The store

/// Builds the graph, dispatches it and waits for the run; returns when build ended and how many nodes
/// succeeded. Everything it made is released when it returns (inside the caller's timing).
func libraryOnce(_ shape: Shape, async: Bool, store: Store<BenchState>) async -> (built: ContinuousClock.Instant, succeeded: Int) {
    let graph = async ? buildAsyncGraph(shape) : buildSyncGraph(shape)
    let built = benchClock.now
    let run = store.dispatch(graph)
    let report = await run.wait()
    blackhole(report.count)
    return (built, report.count)
}

/// One timed repetition of the store: (build ns, build + dispatch + wait ns).
func libraryRep(_ shape: Shape, async: Bool, reducer: Reducer<BenchState>) async -> (build: Double, total: Double) {
    let store = Store(initialState: BenchState(), reducer: reducer)
    let start = benchClock.now
    let (built, count) = await libraryOnce(shape, async: async, store: store)
    let end = benchClock.now
    precondition(count == shape.count, "graph run reported \(count) of \(shape.count) nodes")
    if !async { precondition(store.state.count == shape.count, "sync graph applied \(store.state.count) of \(shape.count) nodes") }
    return ((built - start).nanoseconds, (end - start).nanoseconds)
}

// MARK: - Baseline (a): Kahn's algorithm, single-threaded

/// Reverse adjacency, in-degrees and a queue, from the same prerequisite lists, calling the same
/// reducer once per node.
func kahn(_ shape: Shape, reducer: Reducer<BenchState>) -> Int {
    let count = shape.count
    var indegree = [Int32](repeating: 0, count: count)
    var dependentEnds = [Int32](repeating: 0, count: count + 1)
    for node in 0..<count {
        let range = shape.range(of: node)
        indegree[node] = Int32(range.count)
        for edge in range { dependentEnds[Int(shape.prerequisites[edge]) + 1] += 1 }
    }
    for node in 0..<count { dependentEnds[node + 1] += dependentEnds[node] }
    var fill = dependentEnds
    var dependents = [Int32](repeating: 0, count: shape.edgeCount)
    for node in 0..<count {
        for edge in shape.range(of: node) {
            let prerequisite = Int(shape.prerequisites[edge])
            dependents[Int(fill[prerequisite])] = Int32(node)
            fill[prerequisite] += 1
        }
    }
    var queue = [Int32](repeating: 0, count: count)
    var head = 0
    var tail = 0
    for node in 0..<count where indegree[node] == 0 {
        queue[tail] = Int32(node)
        tail += 1
    }
    var state = BenchState()
    let action: any Action = Increment(amount: opaque(1))
    while head < tail {
        let node = Int(queue[head])
        head += 1
        reducer(&state, action)
        for index in Int(dependentEnds[node])..<Int(dependentEnds[node + 1]) {
            let dependent = Int(dependents[index])
            indegree[dependent] -= 1
            if indegree[dependent] == 0 {
                queue[tail] = Int32(dependent)
                tail += 1
            }
        }
    }
    return state.count
}

// MARK: - Baseline (b): OperationQueue, one operation at a time

final class LockedState: @unchecked Sendable {
    // @unchecked: `state` is only touched while `lock` is held.
    let lock = NSLock()
    var state = BenchState()
}

func operationQueue(_ shape: Shape, reducer: Reducer<BenchState>) -> Int {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let box = LockedState()
    let action = Increment(amount: 1)
    var operations: [BlockOperation] = []
    operations.reserveCapacity(shape.count)
    for node in 0..<shape.count {
        let operation = BlockOperation {
            box.lock.lock()
            reducer(&box.state, action)
            box.lock.unlock()
        }
        for edge in shape.range(of: node) { operation.addDependency(operations[Int(shape.prerequisites[edge])]) }
        operations.append(operation)
    }
    queue.addOperations(operations, waitUntilFinished: true)
    // Release from the last operation back: each one holds its dependencies, so dropping the array
    // front first would free a long chain recursively and overflow the stack.
    while !operations.isEmpty { operations.removeLast() }
    return box.lock.withLock { box.state.count }
}

// MARK: - Baseline (c): a Task per node that awaits its prerequisites' tasks

func taskPerNode(_ shape: Shape) async -> Int {
    var tasks: [Task<Int, Never>] = []
    tasks.reserveCapacity(shape.count)
    for node in 0..<shape.count {
        let prerequisites = shape.range(of: node).map { tasks[Int(shape.prerequisites[$0])] }
        tasks.append(Task {
            for prerequisite in prerequisites { _ = await prerequisite.value }
            return 1
        })
    }
    var total = 0
    for task in tasks { total &+= await task.value }
    return total
}

// MARK: - The scenarios

func repetitions(for size: Int, quick: Bool) -> (warmup: Int, reps: Int) {
    if quick { return size <= 1_000 ? (2, 7) : (1, 5) }
    switch size {
    case ...1_000: return (3, 15)
    case ...10_000: return (2, 9)
    case ...100_000: return (1, 5)
    default: return (0, 3)   // the 100k sizes just ran: warm enough
    }
}

func benchGraphs(_ report: Report, quick: Bool) async {
    let reducer = makeReducer()
    let sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000]
    let largest = sizes.last!
    /// ns per node (build + dispatch + wait), by "mode kind" then size: for the flatness check.
    var perNode: [String: [Int: Double]] = [:]

    for async in [false, true] {
        let mode = async ? "async" : "sync"
        report.section("Graph, all \(mode) nodes (ns per node)")
        for kind in Shape.Kind.allCases {
            var operationQueueCost: (size: Int, nsPerNode: Double)?
            for size in sizes {
                let shape = Shape(kind, count: size)
                let (warmup, reps) = repetitions(for: size, quick: quick)
                let name = "\(mode) \(kind.rawValue)"

                var builds: [Double] = []
                var totals: [Double] = []
                for rep in 0..<(warmup + reps) {
                    let (build, total) = await libraryRep(shape, async: async, reducer: reducer)
                    if rep >= warmup {
                        builds.append(build / Double(size))
                        totals.append(total / Double(size))
                    }
                }
                let build = Stats(builds)
                let total = Stats(totals)
                let run = Stats(zip(totals, builds).map { $0 - $1 })

                var baselines: [(String, Double)] = []
                if !async {
                    let kahnStats = measure(warmup: warmup, reps: reps, ops: size) {
                        let count = kahn(shape, reducer: reducer)
                        precondition(count == size)
                        blackhole(count)
                    }
                    report.add("baseline Kahn topological loop", size: size, unit: "ns/node", kahnStats)
                    baselines.append(("Kahn loop", kahnStats.median))

                    if let reason = operationQueueSkipReason(size: size, previous: operationQueueCost, reps: reps) {
                        report.skip("baseline OperationQueue(max=1)", size: size, reason: reason)
                    } else {
                        let oqReps = size >= 10_000 ? min(reps, 3) : reps
                        let oqWarmup = size >= 10_000 ? 0 : warmup
                        let oq = measure(warmup: oqWarmup, reps: oqReps, ops: size) {
                            let count = operationQueue(shape, reducer: reducer)
                            precondition(count == size)
                            blackhole(count)
                        }
                        operationQueueCost = (size, oq.median)
                        report.add("baseline OperationQueue(max=1)", size: size, unit: "ns/node", oq)
                        baselines.append(("OperationQueue(max=1)", oq.median))
                    }
                } else {
                    let tasks = await measureAsync(warmup: warmup, reps: reps, ops: size) {
                        let total = await taskPerNode(shape)
                        precondition(total == size)
                        blackhole(total)
                    }
                    report.add("baseline Task per node", size: size, unit: "ns/node", tasks)
                    baselines.append(("Task per node", tasks.median))
                }

                report.add("\(name) build", size: size, unit: "ns/node", build)
                report.add("\(name) dispatch+wait", size: size, unit: "ns/node", run)
                report.add("\(name) build+dispatch+wait", size: size, unit: "ns/node", total, against: baselines)
                perNode[name, default: [:]][size] = total.median

                if size == largest {
                    if async {
                        let tasks = baselines[0].1
                        report.check("async \(kind.rawValue) node <= Task-per-node (\(formatCount(size)))",
                                     "\(format(total.median)) vs \(format(tasks)) ns = \(formatRatio(total.median / tasks))",
                                     total.median <= tasks)
                    } else {
                        let kahnCost = baselines[0].1
                        report.check("sync \(kind.rawValue) node <= 3x Kahn (\(formatCount(size)))",
                                     "\(format(total.median)) vs \(format(kahnCost)) ns = \(formatRatio(total.median / kahnCost))",
                                     total.median <= 3 * kahnCost)
                    }
                }
            }
            if !async, let oq = operationQueueCost {
                let ours = perNode["sync \(kind.rawValue)"]![oq.size]!
                let speedup = oq.nsPerNode / ours
                report.check("sync \(kind.rawValue) >= 25x faster than OQ(max=1) (\(formatCount(oq.size)))",
                             String(format: "%.1fx faster", speedup), speedup >= 25)
            }
        }
    }

    if !quick {
        for (name, bySize) in perNode.sorted(by: { $0.key < $1.key }) {
            let costs = bySize.filter { $0.key >= 10_000 }.sorted { $0.key < $1.key }.map(\.value)
            guard let low = costs.min(), let high = costs.max() else { continue }
            report.check("flat per-node cost 10k..1M: \(name) (max/min <= 1.5)",
                         costs.map(format).joined(separator: " / ") + " ns = " + formatRatio(high / low),
                         high / low <= 1.5)
        }
    }
}

/// OperationQueue is quadratic on Linux: never above 100k nodes, and not when the last size
/// measured predicts more than 30 s for this one.
func operationQueueSkipReason(size: Int, previous: (size: Int, nsPerNode: Double)?, reps: Int) -> String? {
    if size > 100_000 { return "quadratic on Linux (> 100k nodes)" }
    guard let previous else { return nil }
    let growth = Double(size) / Double(previous.size)
    let estimate = previous.nsPerNode * growth * Double(size) / 1e9 * Double(min(reps, 3))
    if estimate > 30 { return String(format: "est. %.0f s for %d runs (quadratic)", estimate, min(reps, 3)) }
    return nil
}
