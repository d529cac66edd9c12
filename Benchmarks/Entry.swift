import Foundation

let usage = """
    OresRedux benchmarks: the store and its graph executor, measured against baselines in the same run.

    usage: swift run -c release Benchmarks [options]

    options:
      --quick                a reduced set (graphs up to 10k nodes, fewer repetitions), well under a minute
      --json PATH            also write every figure (scenario, size, ns/op median/min/max, baseline, ratio)
                             as JSON to PATH
      --only LIST            comma-separated groups to run: dispatch, graph, memory (default: all)
      --help                 this text

    Each scenario runs warm-up repetitions, then timed ones; figures are the median and the min..max of
    the timed repetitions, in nanoseconds per operation (per dispatch, per subscriber, per node).
    Ratios are ours / baseline's: below 1x is faster than the baseline. Targets print PASS or MISS and
    are informational: the exit status is 0 whatever they say.

    Scenarios:
      dispatch   sync dispatch with 0, 1, 100 and 3000 subscribers vs the same reducer called in a bare
                 loop; per-subscriber notify and unchanged-select costs; subscribe and cancel at 300,
                 3000 and 30000 subscriptions (cancel must be O(1)).
      graph      chain, wide (root, N-2 middle nodes, sink) and layered random (~4 prerequisites, seeded)
                 graphs of 1k, 10k, 100k and 1M nodes, all sync and all async: build, dispatch + wait,
                 vs Kahn's algorithm, OperationQueue(max=1) (up to 100k nodes) and a Task per node.
      memory     peak resident memory per node of each large graph, each in a fresh child process
                 (this binary re-executed with --memory-probe <shape> <nodes> <sync|async|tasks>).
    """

/// Runs what the arguments ask for and returns the exit status.
func runBenchmarks(_ arguments: [String]) async -> Int32 {
    if arguments.first == "--memory-probe" {
        return await memoryProbe(Array(arguments.dropFirst()))
    }
    if arguments.first == "--profile-case" {
        return await profileCase(Array(arguments.dropFirst()))
    }
    var quick = false
    var jsonPath: String?
    var groups: Set<String> = ["dispatch", "graph", "memory"]
    var index = 0
    while index < arguments.count {
        switch arguments[index] {
        case "--quick":
            quick = true
        case "--json":
            index += 1
            guard index < arguments.count else {
                print("--json needs a path\n\n\(usage)")
                return 2
            }
            jsonPath = arguments[index]
        case "--only":
            index += 1
            guard index < arguments.count else {
                print("--only needs a list\n\n\(usage)")
                return 2
            }
            groups = Set(arguments[index].split(separator: ",").map(String.init))
        case "--help", "-h":
            print(usage)
            return 0
        default:
            print("unknown option \(arguments[index])\n\n\(usage)")
            return 2
        }
        index += 1
    }

    #if DEBUG
    print("warning: a debug build; run with `swift run -c release Benchmarks` for meaningful figures")
    #endif
    let mode = quick ? "quick" : "full"
    print("OresRedux benchmarks (\(mode)), \(ProcessInfo.processInfo.activeProcessorCount) cores; "
          + "ns per operation, median and min..max of the timed repetitions")
    let start = benchClock.now
    let report = Report()
    if groups.contains("dispatch") { benchDispatch(report, quick: quick) }
    if groups.contains("graph") { await benchGraphs(report, quick: quick) }
    if groups.contains("memory") { benchMemory(report, quick: quick) }
    report.printTargets()
    let seconds = (benchClock.now - start).nanoseconds / 1e9
    print(String(format: "\nwall time: %.1f s", seconds))
    if let jsonPath {
        do {
            try report.writeJSON(to: jsonPath, mode: mode, seconds: seconds)
            print("JSON written to \(jsonPath)")
        } catch {
            print("could not write \(jsonPath): \(error)")
            return 1
        }
    }
    return 0
}
