import Foundation
import OresRedux

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

/// Median, quartiles and extremes of a set of samples.
struct Stats: Codable {
    var median: Double
    var lowerQuartile: Double
    var upperQuartile: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        precondition(!sorted.isEmpty)
        func quantile(_ q: Double) -> Double {
            let position = q * Double(sorted.count - 1)
            let low = Int(position.rounded(.down))
            let high = Swift.min(low + 1, sorted.count - 1)
            let fraction = position - Double(low)
            return sorted[low] + (sorted[high] - sorted[low]) * fraction
        }
        median = quantile(0.5)
        lowerQuartile = quantile(0.25)
        upperQuartile = quantile(0.75)
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    /// The same figures for every sample divided by `divisor` (a positive number keeps their order).
    func divided(by divisor: Double) -> Stats {
        precondition(divisor > 0)
        var stats = self
        stats.median /= divisor
        stats.lowerQuartile /= divisor
        stats.upperQuartile /= divisor
        stats.min /= divisor
        stats.max /= divisor
        return stats
    }
}

/// How much work one timed sample does and how many samples a comparison takes.
struct Budget {
    /// Pairs of (ours, baseline) after `warmupPairs` untimed ones; each pair's ratio is one sample
    /// of the figure.
    var pairs: Int
    var warmupPairs: Int
    /// Within a pair, each side runs this many times, alternating with the other side, and its
    /// fastest run counts: a run that lost its core to another process does not decide the ratio.
    var runsPerSide: Int
    /// The wall time one run should last; operations per run are calibrated to it.
    var sampleNanoseconds: Double

    static let quick = Budget(pairs: 15, warmupPairs: 1, runsPerSide: 3, sampleNanoseconds: 2_000_000)
    static let full = Budget(pairs: 31, warmupPairs: 2, runsPerSide: 3, sampleNanoseconds: 5_000_000)
}

/// One figure: ours against a baseline, both timed in this process, pair by pair.
struct Paired: Codable {
    var group: String
    var scenario: String
    var baseline: String
    var unit: String
    var operationsPerSample: Int
    /// ns per operation of ours and of the baseline, over all pairs.
    var ours: Stats
    var theirs: Stats
    /// ours / baseline, one ratio per pair: what to read, since both sides of a pair ran under the
    /// same machine load.
    var ratio: Stats
    /// ours - baseline in ns per operation, one difference per pair.
    var difference: Stats
}

/// Times `ours` and `baseline` alternately and returns one ratio per pair. A pair is A B A B A B
/// (B A B A B A for every other pair, so neither side always goes first); each side's fastest run
/// in the pair gives its time. `body(ops)` must do `ops` operations.
func comparePaired(
    _ group: String, _ scenario: String, baseline baselineName: String, unit: String = "ns/op",
    budget: Budget, ours: (Int) async -> Void, baseline: (Int) async -> Void
) async -> Paired {
    await comparePairedMeasured(
        group, scenario, baseline: baselineName, unit: unit, budget: budget,
        ours: { ops in
            let start = benchClock.now
            await ours(ops)
            return (benchClock.now - start).nanoseconds
        },
        baseline: { ops in
            let start = benchClock.now
            await baseline(ops)
            return (benchClock.now - start).nanoseconds
        })
}

/// As ``comparePaired(_:_:baseline:unit:budget:ours:baseline:)``, but each body times itself and
/// returns the nanoseconds its `ops` operations took: for a body with untimed work after its
/// operations (emptying a recorder's queue, so that it is not left to the other side's run).
func comparePairedMeasured(
    _ group: String, _ scenario: String, baseline baselineName: String, unit: String = "ns/op",
    budget: Budget, ours: (Int) async -> Double, baseline: (Int) async -> Double
) async -> Paired {
    func time(_ body: (Int) async -> Double, _ ops: Int) async -> Double {
        await body(ops)
    }
    // Calibrate on the slower of the two, so that neither run is shorter than the budget asks.
    var ops = 1
    while ops < 1 << 24 {
        let slower = max(await time(ours, ops), await time(baseline, ops))
        if slower >= budget.sampleNanoseconds / 4 {
            ops = max(1, Int(Double(ops) * budget.sampleNanoseconds / max(slower, 1)))
            break
        }
        ops *= 4
    }
    var oursSamples: [Double] = []
    var theirSamples: [Double] = []
    var ratios: [Double] = []
    var differences: [Double] = []
    for pair in 0..<(budget.warmupPairs + budget.pairs) {
        var a = Double.infinity
        var b = Double.infinity
        for _ in 0..<budget.runsPerSide {
            if pair % 2 == 0 {
                a = min(a, await time(ours, ops))
                b = min(b, await time(baseline, ops))
            } else {
                b = min(b, await time(baseline, ops))
                a = min(a, await time(ours, ops))
            }
        }
        guard pair >= budget.warmupPairs else { continue }
        oursSamples.append(a / Double(ops))
        theirSamples.append(b / Double(ops))
        ratios.append(a / b)
        differences.append((a - b) / Double(ops))
    }
    return Paired(
        group: group, scenario: scenario, baseline: baselineName, unit: unit, operationsPerSample: ops,
        ours: Stats(oursSamples), theirs: Stats(theirSamples), ratio: Stats(ratios),
        difference: Stats(differences))
}

/// The sync form of ``comparePaired(_:_:baseline:unit:budget:ours:baseline:)``, for bodies with
/// nothing to await (so no suspension point sits inside the timed loop).
func comparePairedSync(
    _ group: String, _ scenario: String, baseline baselineName: String, unit: String = "ns/op",
    budget: Budget, ours: (Int) -> Void, baseline: (Int) -> Void
) async -> Paired {
    await comparePaired(
        group, scenario, baseline: baselineName, unit: unit, budget: budget,
        ours: { ours($0) }, baseline: { baseline($0) })
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

// MARK: - Formatting

func flush() {
    fflush(nil)  // all streams: naming `stdout` is not concurrency-safe in Swift 6
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
}

/// A duration in nanoseconds, in the unit that reads best.
func formatNanoseconds(_ value: Double) -> String {
    if value.isNaN { return "n/a" }
    if abs(value) >= 1_000_000 { return String(format: "%.2f ms", value / 1_000_000) }
    if abs(value) >= 10_000 { return String(format: "%.1f µs", value / 1_000) }
    if abs(value) >= 1_000 { return String(format: "%.2f µs", value / 1_000) }
    if abs(value) >= 100 { return String(format: "%.0f ns", value) }
    return String(format: "%.1f ns", value)
}

func formatRatio(_ ratio: Double) -> String {
    if ratio.isNaN { return "n/a" }
    return ratio >= 10 ? String(format: "%.1fx", ratio) : String(format: "%.2fx", ratio)
}

func formatCount(_ count: Int) -> String {
    if count >= 1_000_000, count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
    if count >= 1_000, count % 1_000 == 0 { return "\(count / 1_000)k" }
    return "\(count)"
}
