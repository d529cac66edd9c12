/// The rows of the target table of issue 23 ("A graph costs what its tasks cost"), in its order.
///
/// Every run prints all of them, measured or not (a group left out with `--only` says so), so that
/// tuning reads one report. Each goal is met when its median is at or under its limit.
enum Goal: String, CaseIterable, Codable {
    case chainReturningAtOnce
    case chainSuspendingOnce
    case readmeGraph
    case readmeAllocations
    case asyncFanNode
    case emptyGraph
    case syncDispatch
    case notifyPerSubscriber
    case selectPerSubscriber
    case syncNodeGrowth
    case memoryPerFinishedNode
    case largeStateDispatch
    case largeStateSelectDispatch

    /// What the figure is, in the words.
    var figure: String {
        switch self {
        case .chainReturningAtOnce:
            "chain of \(targetChainLength) async nodes / the calls in one task + dispatch, return at once"
        case .chainSuspendingOnce: "the same chain, calls that suspend once / the same by hand"
        case .readmeGraph: "README log-in graph, built each run / async let + dispatch"
        case .readmeAllocations: "allocations per run of the README graph"
        case .asyncFanNode: "async fan node / a Task per node (\(targetFanWidth) nodes)"
        case .emptyGraph: "empty graph (dispatch + wait) / one dispatch"
        case .syncDispatch: "sync dispatch, no subscriber / the reducer in a bare loop"
        case .notifyPerSubscriber: "notify per subscriber (10 subscribers against none)"
        case .selectPerSubscriber: "unchanged select per subscriber (10 against none)"
        case .syncNodeGrowth: "guard: a sync node, 100k / 10k nodes (worst shape)"
        case .memoryPerFinishedNode: "guard: memory per finished node (worst shape)"
        case .largeStateDispatch: "guard: dispatch, 1M-item / 10-item state, no subscriber"
        case .largeStateSelectDispatch: "guard: dispatch, 1M-item / 10-item state, a select"
        }
    }

    var limit: Double {
        switch self {
        case .chainReturningAtOnce: 20
        case .chainSuspendingOnce: 1.5
        case .readmeGraph: 2
        case .readmeAllocations: 15
        case .asyncFanNode: 1.3
        case .emptyGraph: 5
        case .syncDispatch: 2
        case .notifyPerSubscriber: 8
        case .selectPerSubscriber: 11
        case .syncNodeGrowth: 1.5
        case .memoryPerFinishedNode: 300
        // A copy of the state per dispatch would make these thousands of times one; within the
        // flat-growth guard's margin, the cost does not depend on the state's size.
        case .largeStateDispatch, .largeStateSelectDispatch: 1.5
        }
    }

    var unit: GoalUnit {
        switch self {
        case .readmeAllocations: .allocations
        case .notifyPerSubscriber, .selectPerSubscriber: .nanoseconds
        case .memoryPerFinishedNode: .bytes
        default: .ratio
        }
    }

    /// The `--only` group that measures it.
    var group: String {
        switch self {
        case .chainReturningAtOnce, .chainSuspendingOnce, .readmeGraph, .asyncFanNode, .emptyGraph: "graph"
        case .readmeAllocations: "allocations"
        case .syncDispatch, .notifyPerSubscriber, .selectPerSubscriber: "dispatch"
        case .syncNodeGrowth, .largeStateDispatch, .largeStateSelectDispatch: "guards"
        case .memoryPerFinishedNode: "memory"
        }
    }

    var target: String {
        let bound = "<= " + unit.formatLimit(limit)
        switch self {
        case .largeStateDispatch, .largeStateSelectDispatch: return bound + " (O(1))"
        default: return bound
        }
    }
}

/// The chain: ten async nodes, then the dispatch their answers lead to.
let targetChainLength = 10

/// Nodes in the fan whose cost per node is set against a `Task` per node: enough that the graph's
/// fixed cost is a rounding error beside them, few enough that a run stays short.
let targetFanWidth = 100

enum GoalUnit: String, Codable {
    case ratio
    case nanoseconds
    case allocations
    case bytes

    func format(_ value: Double) -> String {
        switch self {
        case .ratio: formatRatio(value)
        case .nanoseconds: formatNanoseconds(value)
        case .allocations: value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.1f", value)
        case .bytes: String(format: "%.0f B", value)
        }
    }

    /// A limit as the issue writes it: no more digits than it has.
    func formatLimit(_ value: Double) -> String {
        let digits = String(format: "%g", value)
        switch self {
        case .ratio: return digits + "x"
        case .nanoseconds: return digits + " ns"
        case .allocations: return digits
        case .bytes: return digits + " B"
        }
    }
}

/// What one run measured for a goal: the median, its interquartile range where the figure has a
/// spread, and how it was taken.
struct GoalRecord: Codable {
    var goal: Goal
    var median: Double
    var lowerQuartile: Double?
    var upperQuartile: Double?
    var note: String

    var met: Bool { median <= goal.limit }

    var measured: String {
        let unit = goal.unit
        var text = unit.format(median)
        if let lowerQuartile, let upperQuartile {
            text += " (IQR \(unit.format(lowerQuartile))-\(unit.format(upperQuartile)))"
        }
        return note.isEmpty ? text : text + ", " + note
    }
}
