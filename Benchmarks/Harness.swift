import Foundation
import OresRedux

// MARK: - The workload shared by the store and every baseline

/// The benchmark state: a counter the reducer changes, and a field no action touches (what the
/// `select` subscribers read, so their value never changes).
struct BenchState: Sendable, Equatable {
    var count = 0
    var label = 7
}

struct Increment: Action {
    var amount: Int
}

/// An async node that does nothing but answer: what is measured is the executor around it.
struct Trivial: AsyncAction {
    func run(_ context: ActionContext<BenchState>) async throws -> Int { 1 }
}

/// The one reducer every scenario uses, hidden from the optimizer so that the bare loop cannot see
/// through the closure either (the store only ever sees it as a stored closure).
func makeReducer() -> Reducer<BenchState> {
    opaque(Reducer<BenchState>.on(Increment.self) { $0.count += $1.amount })
}

// MARK: - Keeping the optimizer honest

nonisolated(unsafe) var blackholeSink = 0

/// Consumes a value so that the work that produced it cannot be deleted.
@inline(never)
func blackhole(_ value: Int) {
    blackholeSink &+= value
}

/// Returns its argument through a call the optimizer cannot look into.
@inline(never) @_optimize(none)
func opaque<T>(_ value: T) -> T {
    value
}

// MARK: - Timing

let benchClock = ContinuousClock()

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

struct Stats: Codable {
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        precondition(!sorted.isEmpty)
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    init(median: Double, min: Double, max: Double) {
        self.median = median
        self.min = min
        self.max = max
    }
}

/// Runs `body` `warmup` times untimed, then `reps` times timed; each sample is ns per operation.
func measure(warmup: Int, reps: Int, ops: Int, _ body: () -> Void) -> Stats {
    for _ in 0..<warmup { body() }
    var samples: [Double] = []
    for _ in 0..<reps {
        let elapsed = benchClock.measure(body)
        samples.append(elapsed.nanoseconds / Double(ops))
    }
    return Stats(samples)
}

/// The async form of ``measure(warmup:reps:ops:_:)``.
func measureAsync(warmup: Int, reps: Int, ops: Int, _ body: () async -> Void) async -> Stats {
    for _ in 0..<warmup { await body() }
    var samples: [Double] = []
    for _ in 0..<reps {
        let start = benchClock.now
        await body()
        samples.append((benchClock.now - start).nanoseconds / Double(ops))
    }
    return Stats(samples)
}

// MARK: - A seeded generator, so every run builds the same random graphs

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Results

struct Comparison: Codable {
    var baseline: String
    var baselineNs: Double
    /// Ours divided by the baseline's: below 1 means faster than the baseline.
    var ratio: Double
}

struct Record: Codable {
    var scenario: String
    var size: Int?
    var unit: String
    var nsPerOp: Stats
    var comparisons: [Comparison]
    var note: String?
}

struct TargetCheck: Codable {
    var target: String
    var measured: String
    var pass: Bool
}

struct MemoryRecord: Codable {
    var scenario: String
    var size: Int
    var bytesPerNodeBuild: Double
    var bytesPerNodePeak: Double
    var peakDeltaBytes: Int
}

/// Collects the figures, prints each one as it is measured, and writes them as JSON at the end.
final class Report {
    var records: [Record] = []
    var memory: [MemoryRecord] = []
    var targets: [TargetCheck] = []
    var notes: [String] = []

    func section(_ title: String) {
        print("")
        print("== \(title) " + String(repeating: "=", count: max(0, 96 - title.count)))
        print(pad("scenario", 40) + lpad("size", 9) + lpad("median", 11) + lpad("min..max", 22) + "  "
              + "unit / vs baseline")
        flush()
    }

    @discardableResult
    func add(_ scenario: String, size: Int? = nil, unit: String = "ns/op", _ stats: Stats,
             against baselines: [(String, Double)] = [], note: String? = nil) -> Record {
        let comparisons = baselines.map { Comparison(baseline: $0.0, baselineNs: $0.1, ratio: stats.median / $0.1) }
        let record = Record(scenario: scenario, size: size, unit: unit, nsPerOp: stats, comparisons: comparisons,
                            note: note)
        records.append(record)
        var line = pad(scenario, 40) + lpad(size.map(formatCount) ?? "-", 9) + lpad(format(stats.median), 11)
            + lpad(format(stats.min) + ".." + format(stats.max), 22) + "  " + unit
        if let note { line += "  (\(note))" }
        print(line)
        for comparison in comparisons {
            var text = String(repeating: " ", count: 84) + "vs \(comparison.baseline) "
                + "\(format(comparison.baselineNs)) \(unit): \(formatRatio(comparison.ratio))"
            if comparison.ratio < 1 { text += String(format: " (%.1fx faster)", 1 / comparison.ratio) }
            print(text)
        }
        flush()
        return record
    }

    func skip(_ scenario: String, size: Int, reason: String) {
        notes.append("\(scenario) @\(size): skipped, \(reason)")
        print(pad(scenario, 40) + lpad(formatCount(size), 9) + "  skipped: \(reason)")
        flush()
    }

    func check(_ target: String, _ measured: String, _ pass: Bool) {
        targets.append(TargetCheck(target: target, measured: measured, pass: pass))
    }

    func printTargets() {
        print("")
        print("== Targets (informational) " + String(repeating: "=", count: 70))
        for target in targets {
            print((target.pass ? "PASS  " : "MISS  ") + pad(target.target, 52) + target.measured)
        }
        let passed = targets.filter(\.pass).count
        print("\(passed)/\(targets.count) targets met")
        flush()
    }

    func writeJSON(to path: String, mode: String, seconds: Double) throws {
        struct Document: Codable {
            var mode: String
            var toolchain: String
            var cores: Int
            var wallSeconds: Double
            var results: [Record]
            var memory: [MemoryRecord]
            var targets: [TargetCheck]
            var notes: [String]
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let document = Document(mode: mode, toolchain: "swift (\(build) build)",
                                cores: ProcessInfo.processInfo.activeProcessorCount, wallSeconds: seconds,
                                results: records, memory: memory, targets: targets, notes: notes)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(document).write(to: URL(fileURLWithPath: path))
    }
}

// MARK: - Formatting

func flush() {
    fflush(nil)   // all streams: naming `stdout` is not concurrency-safe in Swift 6
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
}

func format(_ value: Double) -> String {
    if value.isNaN { return "n/a" }
    if abs(value) >= 100_000 { return String(format: "%.0f", value) }
    if abs(value) >= 100 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}

func formatRatio(_ ratio: Double) -> String {
    String(format: "%.3gx", ratio)
}

func formatCount(_ count: Int) -> String {
    if count >= 1_000_000, count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
    if count >= 1_000, count % 1_000 == 0 { return "\(count / 1_000)k" }
    return "\(count)"
}
