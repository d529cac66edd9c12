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
    /// What a floor is made of, where it is more than the calls alone (building the graph too).
    var floorNotes: [Goal: String] = [:]
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

    /// Records an earlier target that is not a row of the target table.
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
    func recordFloor(_ goal: Goal, _ stats: Stats, note: String = "") {
        recordFloor(goal, stats.median, note: note)
    }

    /// Records a floor that has no spread to show (a count of allocations).
    func recordFloor(_ goal: Goal, _ value: Double, note: String = "") {
        floors[goal] = value
        floorNotes[goal] = note.isEmpty ? nil : note
    }

    /// `11.2x`, `24 (10 calls + 14 building)`, or `-` when the goal has no floor in this run.
    func floorText(_ goal: Goal) -> String {
        guard let floor = floors[goal] else { return "-" }
        return goal.unit.format(floor) + (floorNotes[goal].map { " (\($0))" } ?? "")
    }

    func cannotMeasure(_ goal: Goal, _ why: String) {
        unmeasured[goal] = why
    }

    /// One row of the target table, as this run measured it.
    struct GoalRow {
        var goal: Goal
        var record: GoalRecord?
        /// Why there is no record.
        var why: String
        /// The limit, a floor's multiple resolved against this run's floor.
        var target: String
        /// `nil` when not measured, or when the limit depends on a floor that was not.
        var met: Bool?
    }

    /// Each goal of the target table with its figure from this run, or why there is none.
    func goalRows(groups: Set<String>) -> [GoalRow] {
        Goal.allCases.map { goal in
            let record = goals.last { $0.goal == goal }
            let why =
                unmeasured[goal]
                ?? (groups.contains(goal.group) ? "not measured" : "not measured: group \(goal.group) not run")
            let limit = goal.resolvedLimit(floor: floors[goal])
            let met = record.flatMap { record in limit.map { record.median <= $0 } }
            return GoalRow(goal: goal, record: record, why: why, target: goal.target(floor: floors[goal]), met: met)
        }
    }

    func printTargets(groups: Set<String>) {
        section("Targets (informational: the exit status is 0 whatever they say)")
        print(pad("", 9) + pad("figure", 96) + pad("target", 28) + "measured: median (IQR)")
        let rows = goalRows(groups: groups)
        for row in rows {
            let status = row.met.map { $0 ? "MET" : "NOT MET" } ?? "-"
            let floor = floorText(row.goal)
            print(
                pad(status, 9) + pad(row.goal.figure, 96) + pad(row.target, 28)
                    + (row.record?.measured ?? row.why) + (floor == "-" ? "" : "; floor " + floor))
        }
        let measured = rows.filter { $0.record != nil }
        print(
            "\(measured.filter { $0.met == true }.count)/\(measured.count) met, "
                + "\(rows.count - measured.count) not measured")
        print(
            "A floor is the same calls on the fewest tasks a run could use, with no graph, against the same "
                + "baseline: what the runtime charges before the executor does anything (a sync dispatch's, the "
                + "reducer under the lock and thread-local read any thread-safe dispatch takes). A target set "
                + "against a floor is taken against the floor measured in this run.")
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
        print("| figure | target | measured: median (IQR) | met | floor: the calls with no executor, this run |")
        print("|---|---|---|---|---|")
        for row in goalRows(groups: groups) {
            let met = row.met.map { $0 ? "yes" : "no" } ?? "-"
            print(
                "| \(row.goal.figure) | \(row.target) | \(row.record?.measured ?? row.why) | \(met) "
                    + "| \(floorText(row.goal)) |")
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
            var limit: Double?
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
            goals: goalRows(groups: []).map { row in
                GoalFigure(
                    figure: row.goal.figure, target: row.target,
                    limit: row.goal.resolvedLimit(floor: floors[row.goal]), unit: row.goal.unit, record: row.record,
                    met: row.met, floor: floors[row.goal])
            },
            watched: watched.map { Target(target: $0.target, measured: $0.measured, met: $0.pass) })
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(document).write(to: URL(fileURLWithPath: path))
    }
}
