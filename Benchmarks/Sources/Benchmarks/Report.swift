import AllocationCounter
import Foundation

/// Allocation calls per operation, ours and the baseline's, counted in this process.
struct AllocationRecord: Codable {
    var scenario: String
    var baseline: String
    var ours: Double
    var theirs: Double
}

/// A regression guard: a figure watched for change, not a target.
struct GuardRecord: Codable {
    var scenario: String
    var value: String
    var note: String
}

/// Collects the figures, prints each one as it is measured, then a Markdown table and JSON.
final class Report {
    var paired: [Paired] = []
    var allocations: [AllocationRecord] = []
    var guards: [GuardRecord] = []
    var goals: [GoalRecord] = []
    /// The floor under a goal, where one is measured: the same calls on the fewest tasks a run could
    /// use, with no graph, against the goal's baseline (see Floors.swift). The median ratio.
    var floors: [Goal: Double] = [:]
    /// Why a goal has no figure in this run, when it was asked for but could not be measured.
    var unmeasured: [Goal: String] = [:]
    /// Earlier projects' targets, still watched: what the target was, what was measured, met or not.
    var watched: [(target: String, measured: String, pass: Bool)] = []

    func section(_ title: String) {
        print("")
        print("== \(title) " + String(repeating: "=", count: max(0, 100 - title.count)))
        flush()
    }

    @discardableResult
    func add(_ result: Paired) -> Paired {
        paired.append(result)
        let ratio = result.ratio
        print(
            pad(result.scenario, 46) + lpad(formatNanoseconds(result.ours.median), 10) + "  vs "
                + pad(result.baseline, 34) + lpad(formatNanoseconds(result.theirs.median), 10)
                + "  = " + lpad(formatRatio(ratio.median), 6)
                + "  (IQR \(formatRatio(ratio.lowerQuartile))-\(formatRatio(ratio.upperQuartile)), "
                + "min-max \(formatRatio(ratio.min))-\(formatRatio(ratio.max)))")
        flush()
        return result
    }

    func add(_ record: AllocationRecord) {
        allocations.append(record)
        print(
            pad(record.scenario, 46) + lpad(String(format: "%.1f", record.ours), 10) + "  vs "
                + pad(record.baseline, 34) + lpad(String(format: "%.1f", record.theirs), 10) + "  allocations per run")
        flush()
    }

    func add(_ record: GuardRecord) {
        guards.append(record)
        print(pad(record.scenario, 46) + "  " + record.value + (record.note.isEmpty ? "" : "  (\(record.note))"))
        flush()
    }

    /// Records an earlier target that is not a row of the issue's table.
    func check(_ target: String, _ measured: String, _ pass: Bool) {
        watched.append((target, measured, pass))
    }

    /// Records a goal's figure with its spread: the median and interquartile range of `stats`.
    func record(_ goal: Goal, _ stats: Stats, note: String = "") {
        goals.append(
            GoalRecord(
                goal: goal, median: stats.median, lowerQuartile: stats.lowerQuartile,
                upperQuartile: stats.upperQuartile, note: note))
    }

    /// Records a goal's figure that has no spread to show (a mean over many runs, one probe).
    func record(_ goal: Goal, _ value: Double, note: String) {
        goals.append(GoalRecord(goal: goal, median: value, note: note))
    }

    /// Records the floor under `goal`: what its scenario costs with no executor at all.
    func recordFloor(_ goal: Goal, _ stats: Stats) {
        floors[goal] = stats.median
    }

    /// Records a floor that has no spread to show (a count of allocations).
    func recordFloor(_ goal: Goal, _ value: Double) {
        floors[goal] = value
    }

    /// `floor 11.2x`, or nothing when the goal has no floor in this run.
    func floorText(_ goal: Goal) -> String {
        floors[goal].map { "floor " + goal.unit.format($0) } ?? ""
    }

    func cannotMeasure(_ goal: Goal, _ why: String) {
        unmeasured[goal] = why
    }

    /// Each goal of the issue's table with its figure from this run, or why there is none.
    func goalRows(groups: Set<String>) -> [(goal: Goal, record: GoalRecord?, why: String)] {
        Goal.allCases.map { goal in
            let record = goals.last { $0.goal == goal }
            let why =
                unmeasured[goal]
                ?? (groups.contains(goal.group) ? "not measured" : "not measured: group \(goal.group) not run")
            return (goal, record, why)
        }
    }

    func printTargets(groups: Set<String>) {
        section("Issue 23's targets (informational: the exit status is 0 whatever they say)")
        print(pad("", 9) + pad("figure", 86) + pad("target", 16) + "measured: median (IQR)")
        let rows = goalRows(groups: groups)
        for row in rows {
            let status = row.record.map { $0.met ? "MET" : "NOT MET" } ?? "-"
            let floor = floorText(row.goal)
            print(
                pad(status, 9) + pad(row.goal.figure, 86) + pad(row.goal.target, 16)
                    + (row.record?.measured ?? row.why) + (floor.isEmpty ? "" : "; " + floor))
        }
        let measured = rows.compactMap(\.record)
        print("\(measured.filter(\.met).count)/\(measured.count) met, \(rows.count - measured.count) not measured")
        print(
            "A floor is the same calls on the fewest tasks a run could use, with no graph, against the same "
                + "baseline: what the runtime charges before the executor does anything.")
        print(
            "The ns figures are absolute and move with the machine's load. Ratios move less, but where ours hands "
                + "work between threads more often than its baseline (the chains above all), a busy machine's "
                + "slower wake-ups raise them too.")
        if !watched.isEmpty {
            section("Earlier targets, still watched")
            for target in watched {
                print((target.pass ? "MET      " : "NOT MET  ") + pad(target.target, 60) + target.measured)
            }
            print("\(watched.filter(\.pass).count)/\(watched.count) met")
        }
        flush()
    }

    /// The table the README takes as is: every paired figure and every allocation count.
    func printMarkdown(command: String, groups: Set<String>) {
        section("Markdown for the README")
        print("")
        print(
            "Produced by `\(command)` (\(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "\(buildKind) build). Ours and the baseline run alternately in one process; each "
                + "pair of samples (the fastest of three runs a side) gives one ratio, ours / baseline: "
                + "the median, then the interquartile range. Times are medians.")
        print("")
        print("| figure | target | measured: median (IQR) | met | floor: the calls alone, no graph |")
        print("|---|---|---|---|---|")
        for row in goalRows(groups: groups) {
            let met = row.record.map { $0.met ? "yes" : "no" } ?? "-"
            let floor = floors[row.goal].map { row.goal.unit.format($0) } ?? "-"
            print(
                "| \(row.goal.figure) | \(row.goal.target) | \(row.record?.measured ?? row.why) | \(met) | \(floor) |")
        }
        print("")
        print("| scenario | OresRedux | baseline | ratio (median, IQR) |")
        print("|---|---|---|---|")
        for result in paired {
            let ratio = result.ratio
            print(
                "| \(result.scenario) | \(formatNanoseconds(result.ours.median)) "
                    + "| \(result.baseline) \(formatNanoseconds(result.theirs.median)) "
                    + "| \(formatRatio(ratio.median)) (\(formatRatio(ratio.lowerQuartile))-\(formatRatio(ratio.upperQuartile))) |"
            )
        }
        if !allocations.isEmpty {
            print("")
            print("| allocations per run | OresRedux | baseline |")
            print("|---|---|---|")
            for record in allocations {
                print(
                    "| \(record.scenario) | \(String(format: "%.1f", record.ours)) "
                        + "| \(record.baseline) \(String(format: "%.1f", record.theirs)) |")
            }
        }
        if !guards.isEmpty {
            print("")
            print("| per subscriber, and regression guards | figure |")
            print("|---|---|")
            for record in guards {
                print("| \(record.scenario) | \(record.value)\(record.note.isEmpty ? "" : " (\(record.note))") |")
            }
        }
        flush()
    }

    var buildKind: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    func writeJSON(to path: String, mode: String, seconds: Double) throws {
        struct Target: Codable {
            var target: String
            var measured: String
            var met: Bool
        }
        struct GoalFigure: Codable {
            var figure: String
            var target: String
            var limit: Double
            var unit: GoalUnit
            var record: GoalRecord?
            var met: Bool?
            var floor: Double?
        }
        struct Document: Codable {
            var mode: String
            var build: String
            var cores: Int
            var wallSeconds: Double
            var allocationCounting: Bool
            var paired: [Paired]
            var allocations: [AllocationRecord]
            var guards: [GuardRecord]
            var goals: [GoalFigure]
            var watched: [Target]
        }
        let document = Document(
            mode: mode, build: buildKind, cores: ProcessInfo.processInfo.activeProcessorCount,
            wallSeconds: seconds, allocationCounting: allocation_counter_available() != 0,
            paired: paired, allocations: allocations, guards: guards,
            goals: Goal.allCases.map { goal in
                let record = goals.last { $0.goal == goal }
                return GoalFigure(
                    figure: goal.figure, target: goal.target, limit: goal.limit, unit: goal.unit, record: record,
                    met: record?.met, floor: floors[goal])
            },
            watched: watched.map { Target(target: $0.target, measured: $0.measured, met: $0.pass) })
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(document).write(to: URL(fileURLWithPath: path))
    }
}
