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
    var targets: [(target: String, measured: String, pass: Bool)] = []

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

    func check(_ target: String, _ measured: String, _ pass: Bool) {
        targets.append((target, measured, pass))
    }

    func printTargets() {
        section("The issue's targets (informational: the exit status is 0 whatever they say)")
        for target in targets {
            print((target.pass ? "MET     " : "NOT MET ") + pad(target.target, 60) + target.measured)
        }
        print("\(targets.filter(\.pass).count)/\(targets.count) met")
        flush()
    }

    /// The table the README takes as is: every paired figure and every allocation count.
    func printMarkdown(command: String) {
        section("Markdown for the README")
        print("")
        print(
            "Produced by `\(command)` (\(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "\(buildKind) build). Ours and the baseline run alternately in one process; each "
                + "pair of samples (the fastest of three runs a side) gives one ratio, ours / baseline: "
                + "the median, then the interquartile range. Times are medians.")
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
        struct Document: Codable {
            var mode: String
            var build: String
            var cores: Int
            var wallSeconds: Double
            var allocationCounting: Bool
            var paired: [Paired]
            var allocations: [AllocationRecord]
            var guards: [GuardRecord]
            var targets: [Target]
        }
        let document = Document(
            mode: mode, build: buildKind, cores: ProcessInfo.processInfo.activeProcessorCount,
            wallSeconds: seconds, allocationCounting: allocation_counter_available() != 0,
            paired: paired, allocations: allocations, guards: guards,
            targets: targets.map { Target(target: $0.target, measured: $0.measured, met: $0.pass) })
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(document).write(to: URL(fileURLWithPath: path))
    }
}
