import AllocationCounter
import Foundation

let usage = """
    OresRedux benchmarks: what users feel, each figure against a baseline timed in the same process.

    usage: swift run -c release Benchmarks [options]

    options:
      --quick          a short version (fewer pairs, shorter samples, guards up to 100k nodes), for CI;
                       it still measures every row of the targets
      --only LIST      comma-separated groups: graph, allocations, reducer, dispatch, guards, memory,
                       durable, recorder, live, owners, query (default: all)
      --json PATH      also write every figure as JSON to PATH
      --inspector-page [DIR [STEPS]]
                       records STEPS (default 100,000) steps over a ~1 MB state, writes the
                       inspector page to DIR (default: a temporary folder), reports its size and the
                       time to record and write it, then times the page in headless Chromium with
                       .ci/inspector-page-benchmark.py (first step painted, selecting the last step,
                       a search, the DevTools export) when Debian's chromium, chromium-driver and
                       python3-selenium are installed; measured once a run, not ratios
      --inspector-write [STEPS]
                       records STEPS (default 10,000) steps over a ~1 MB state, each changing one
                       item, then writes the inspector page: the time to record, to write, and
                       their ratio (writing must cost no more); a small STEPS suits a debug build
      --profile-case NAME [COUNT] [SHAPE]
                       one scenario alone, for valgrind --tool=callgrind (see Profiling.swift)
      --help           this text

    How to read the figures. Ours and the baseline are timed alternately, a pair being A B A B A B
    (B A B A B A every other pair), each run doing enough operations to last a few milliseconds;
    each side's fastest run in the pair gives one ratio, ours / baseline, and the figure is the
    median ratio with its interquartile range (IQR) and extremes. Both sides of a pair ran under
    the same load, so the ratio holds on a busy machine where the absolute times (printed too, as
    medians of the pairs) do not. Allocations are counted in this process: the
    Benchmarks executable alone links a small C target that wraps malloc and its siblings.

    The output ends with the targets, one row each, measured or not: its figure, its target (one
    set against a floor is taken against the floor of this run), this run's median with its IQR,
    and the floor under it where one is measured.

    Groups:
      graph        the README log-in graph against `async let` + dispatch; an empty and a one-sync-node
                   graph against one dispatch; one async node against `Task { }.value`; a chain of 10
                   async nodes against the same calls awaited in one task, with calls that return at
                   once and calls that suspend once; 100 independent async nodes against a `Task`
                   each; chains, fan-outs and diamonds of 3-20 nodes against the same calls by hand
      allocations  allocation calls per run of the same graphs and of their baselines
      reducer      a 20-case `combine` of `.on` against the same cases as an `if let ... as?` chain
      dispatch     dispatch through a store (0, 1, 10 subscribers, 10 unchanged selects)
      guards       10k to 1M-node graphs: cost per node must stay flat; dispatch into a 1M-item state
                   against a 10-item one, with no subscriber and with a `select`: must not grow
      memory       peak memory per node of large graphs, each in a fresh child process
      durable      a chain of 10 durable async nodes and a sync node against the same chain plain:
                   with a FileRunJournal in a temporary folder (each record waits for its fsync) and
                   with a journal in memory; the time and allocations a durable node adds, and the
                   journal bytes it writes
      recorder     the inspector's recorder installed against the same store without it, on the
                   dispatching thread: a one-item change to a 10,000-item array (with the worker off,
                   and on), a middleware that only keeps each state (the copy-on-write floor), and a
                   change to every value of a 10,000-key dictionary; the recorder's queue is emptied
                   untimed after each of its runs
      owners       the README log-in graph dispatched through a screen's owner against the same
                   graph dispatched to the store, and a sync dispatch through an owner against
                   store.dispatch (time, and allocations per dispatch)
      query        the query cache (OresReduxQuery): a fresh entry read from the state and through
                   `fetch` against the same value in plain state, and `fetch` against a `Task` that
                   reads it; an entry's memory (heap bytes in use, glibc); collecting 10,000
                   unobserved entries; invalidating a tag observed by 100 entries (the commit, the
                   refetch, and the whole against the same 100 calls made by hand)
      live         a live inspector's "Dispatch again" (the registry's coding, the store, the
                   recorder) with the step described and its update written for a page, against a
                   dispatch into a store without the inspector; and the steps a second that makes
    """

/// Runs what the arguments ask for and returns the exit status.
func runBenchmarks(_ arguments: [String]) async -> Int32 {
    if arguments.first == "--memory-probe" {
        return await memoryProbe(Array(arguments.dropFirst()))
    }
    if arguments.first == "--inspector-page" {
        return await inspectorPage(Array(arguments.dropFirst()))
    }
    if arguments.first == "--inspector-write" { return await inspectorPageWriting(Array(arguments.dropFirst())) }
    if arguments.first == "--profile-case" {
        return await profileCase(Array(arguments.dropFirst()))
    }
    var quick = false
    var jsonPath: String?
    let allGroups = [
        "graph", "allocations", "reducer", "dispatch", "guards", "memory", "durable", "recorder", "live", "owners",
        "query",
    ]
    var groups = Set(allGroups)
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
            if let unknown = groups.first(where: { !allGroups.contains($0) }) {
                print("unknown group \(unknown)\n\n\(usage)")
                return 2
            }
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
    let command = (["swift run -c release Benchmarks"] + arguments).joined(separator: " ")
    let mode = quick ? "quick" : "full"
    let budget = quick ? Budget.quick : Budget.full
    print("OresRedux benchmarks (\(mode)): \(command)")
    print(
        "\(ProcessInfo.processInfo.activeProcessorCount) cores; \(budget.pairs) pairs per figure, "
            + "the fastest of \(budget.runsPerSide) runs a side in each pair; "
            + "ours vs baseline = ratio (IQR, min-max of the per-pair ratios); times are medians")
    let start = benchClock.now
    let report = Report()
    if groups.contains("graph") { await benchSmallGraphs(report, budget: budget, quick: quick) }
    if groups.contains("allocations") { await benchAllocations(report, quick: quick) }
    if groups.contains("reducer") { await benchReducers(report, budget: budget) }
    if groups.contains("dispatch") { await benchDispatch(report, budget: budget) }
    if groups.contains("guards") {
        await benchLargeGraphs(report, quick: quick)
        await benchLargeState(report, budget: budget)
    }
    if groups.contains("memory") { benchMemory(report, quick: quick) }
    if groups.contains("durable") { await benchDurable(report, budget: budget, quick: quick) }
    if groups.contains("recorder") { await benchRecorder(report, budget: budget) }
    if groups.contains("live") { await benchLive(report, budget: budget) }
    if groups.contains("owners") { await benchOwners(report, budget: budget, quick: quick) }
    if groups.contains("query") { await benchQueries(report, budget: budget, quick: quick) }
    report.printTargets(groups: groups)
    report.printMarkdown(command: command, groups: groups)
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
