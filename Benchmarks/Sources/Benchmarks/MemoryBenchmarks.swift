import Foundation
import OresRedux

/// Peak resident memory of this process, in bytes (Linux: VmHWM; Darwin: `ru_maxrss`); -1 if unknown.
func peakResidentBytes() -> Int {
    #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
            return (Int(String(digits)) ?? -1) * 1024
        }
        return -1
    #elseif canImport(Darwin)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return -1 }
        return Int(usage.ru_maxrss)  // bytes on Darwin (Linux counts kilobytes here)
    #else
        return -1
    #endif
}

/// What a child process measures: `--memory-probe <chain|wide|layered> <nodes> <sync|async|tasks>`.
///
/// The shape (the input adjacency) is made before the first reading, so only what the store (or the
/// Task-per-node baseline) allocates counts. Prints one line: `MEMORY <before> <after build> <after wait>`.
func memoryProbe(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3, let kind = Shape.Kind(rawValue: arguments[0]), let size = Int(arguments[1]),
        ["sync", "async", "tasks"].contains(arguments[2])
    else {
        print("usage: --memory-probe <chain|wide|layered> <nodes> <sync|async|tasks>")
        return 2
    }
    let shape = Shape(kind, count: size)
    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    let before = peakResidentBytes()
    var afterBuild = before
    switch arguments[2] {
    case "tasks":
        let total = await taskPerNode(shape)
        precondition(total == size)
    default:
        let graph = arguments[2] == "async" ? buildAsyncGraph(shape) : buildSyncGraph(shape)
        afterBuild = peakResidentBytes()
        let run = store.dispatch(graph)
        let report = await run.wait()
        precondition(report.count(of: .succeeded) == size)
    }
    let afterRun = peakResidentBytes()
    print("MEMORY \(before) \(afterBuild) \(afterRun)")
    flush()
    return 0
}

/// Runs one probe in a fresh child process (this same binary, re-executed).
func runMemoryProbe(kind: Shape.Kind, size: Int, mode: String) -> (before: Int, build: Int, peak: Int)? {
    #if os(macOS) || os(Linux)
        #if os(Linux)
            let executable =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
        #else
            let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--memory-probe", kind.rawValue, "\(size)", mode]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            print("memory probe failed to start: \(error)")
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(data: data, encoding: .utf8)?.split(separator: "\n").first(where: {
                $0.hasPrefix("MEMORY ")
            })
        else {
            print("memory probe \(kind.rawValue) \(size) \(mode) failed (status \(process.terminationStatus))")
            return nil
        }
        let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard fields.count == 3 else { return nil }
        return (fields[0], fields[1], fields[2])
    #else
        print("memory probe: needs a child process, which only macOS and Linux can start")
        return nil
    #endif
}

func benchMemory(_ report: Report, quick: Bool) {
    report.section("Regression guards: peak resident memory per node, each graph in a fresh child process")
    let size = quick ? 100_000 : 1_000_000
    let modes = quick ? ["sync"] : ["tasks", "sync", "async"]
    var worst: (name: String, bytes: Double)?
    for mode in modes {
        for kind in Shape.Kind.allCases {
            let name = mode == "tasks" ? "a Task per node, \(kind.rawValue)" : "\(mode) \(kind.rawValue)"
            guard let probe = runMemoryProbe(kind: kind, size: size, mode: mode) else { continue }
            let peak = Double(probe.peak - probe.before) / Double(size)
            var value = String(format: "%.0f B per node at %@ (peak)", peak, formatCount(size))
            // Nodes that finish as the run goes leave a peak that is what finished nodes keep. In an
            // async wide graph every middle node is in flight at once, each holding its task, so its
            // peak is a guard of its own, not a figure of finished nodes.
            if mode != "tasks" {
                value += String(format: ", %.0f after building", Double(probe.build - probe.before) / Double(size))
                let finishesAsItGoes = !(mode == "async" && kind == .wide)
                if finishesAsItGoes, peak > worst?.bytes ?? -1 { worst = (name, peak) }
            }
            report.add(GuardRecord(scenario: "memory, \(name)", value: value, note: ""))
        }
    }
    if let worst {
        report.record(
            .memoryPerFinishedNode, worst.bytes, note: "\(worst.name) at \(formatCount(size)), peak, one probe")
    }
}
