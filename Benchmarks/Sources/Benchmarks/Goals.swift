/// The rows of the target table ("A graph costs what its floor costs"), in the order the targets
/// were set.
///
/// Every run prints all of them, measured or not (a group left out with `--only` says so), so that
/// tuning reads one report. Each goal is met when its median is at or under its limit; a limit set
/// against a floor is taken against the floor measured in the same run.
enum Goal: String, CaseIterable, Codable {
    case readmeGraph
    case readmeAllocations
    case emptyGraph
    case chainSuspendingOnce
    case chainReturningAtOnce
    case asyncFanNode
    case syncDispatch
    case notifyPerSubscriber
    case selectPerSubscriber
    case syncNodeGrowth
    case memoryPerFinishedNode
    case largeStateDispatch
    case largeStateSelectDispatch

    /// What the figure is, in the words of the table that set it.
    var figure: String {
        switch self {
        case .readmeGraph: "README log-in graph, built each run / async let + dispatch"
        case .readmeAllocations: "allocations per run of the README graph"
        case .emptyGraph: "empty graph (dispatch + wait) / one dispatch"
        case .chainSuspendingOnce:
            "chain of \(targetChainLength) async nodes, calls that suspend once / the calls in one task + dispatch"
        case .chainReturningAtOnce: "the same chain, calls that return at once / the same by hand"
        case .asyncFanNode: "\(targetFanWidth) independent async nodes / a Task per call"
        case .syncDispatch: "sync dispatch, no subscriber / the reducer in a bare loop"
        case .notifyPerSubscriber: "notify per subscriber (10 subscribers against none)"
        case .selectPerSubscriber: "unchanged select per subscriber (10 against none)"
        case .syncNodeGrowth: "guard: a sync node, largest / 10k nodes (worst shape)"
        case .memoryPerFinishedNode: "guard: memory per finished node (worst shape)"
        case .largeStateDispatch: "guard: dispatch, 1M-item / 10-item state, no subscriber"
        case .largeStateSelectDispatch: "guard: dispatch, 1M-item / 10-item state, a select"
        }
    }

    var limit: GoalLimit {
        switch self {
        // Building the graph is part of the figure (it is built each run), so it is part of the floor.
        case .readmeGraph: .floorTimes(1.5)
        case .readmeAllocations: .atMost(30)
        case .emptyGraph: .atMost(5)
        case .chainSuspendingOnce: .atMost(1.5)
        case .chainReturningAtOnce: .floorTimes(1.5)
        case .asyncFanNode: .atMost(1.3)
        case .syncDispatch: .atMost(2)
        case .notifyPerSubscriber: .atMost(8)
        case .selectPerSubscriber: .atMost(10)
        case .syncNodeGrowth: .atMost(1.5)
        case .memoryPerFinishedNode: .atMost(300)
        // A copy of the state per dispatch would make these thousands of times one; within the
        // flat-growth guard's margin, the cost does not depend on the state's size.
        case .largeStateDispatch, .largeStateSelectDispatch: .atMost(1.5)
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

    /// The limit as the table writes it; a limit set against a floor shows what it came to in this
    /// run (`floor`, `nil` when the floor was not measured).
    func target(floor: Double?) -> String {
        switch limit {
        case .atMost(let bound):
            let text = "<= " + unit.formatLimit(bound)
            switch self {
            case .largeStateDispatch, .largeStateSelectDispatch: return text + " (O(1))"
            default: return text
            }
        case .floorTimes(let factor):
            let text = "<= " + GoalUnit.ratio.formatLimit(factor) + " the floor"
            return floor.map { text + " (" + unit.format($0 * factor) + ")" } ?? text
        }
    }

    /// The limit in this run: `nil` for a limit set against a floor that was not measured.
    func resolvedLimit(floor: Double?) -> Double? {
        switch limit {
        case .atMost(let bound): bound
        case .floorTimes(let factor): floor.map { $0 * factor }
        }
    }
}

/// What a goal's median is held to.
enum GoalLimit {
    /// A fixed bound, in the goal's unit.
    case atMost(Double)
    /// A multiple of the goal's floor (the same calls with no executor), measured in the same run.
    case floorTimes(Double)
}

/// The target chain: ten async nodes, then the dispatch their answers lead to.
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

    /// A limit as the table writes it: no more digits than it has.
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

    var measured: String {
        let unit = goal.unit
        var text = unit.format(median)
        if let lowerQuartile, let upperQuartile {
            text += " (IQR \(unit.format(lowerQuartile))-\(unit.format(upperQuartile)))"
        }
        return note.isEmpty ? text : text + ", " + note
    }
}
