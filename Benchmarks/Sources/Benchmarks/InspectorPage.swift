import Foundation
import OresRedux

// `--inspector-page`: a large recording's page, measured once. The state holds a catalog of about
// 1 MB (`RecordedCatalog`); each of 100,000 steps (by default) changes one item of it and counters, so the page must
// stay small (one patch per step) and open quickly; `.ci/inspector-page-benchmark.py` times it in
// headless Chromium.

/// The page benchmark's script (`.ci/inspector-page-benchmark.py`), found from this file's path.
private let pageBenchmarkScript = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".ci/inspector-page-benchmark.py")

func inspectorPage(_ arguments: [String]) async -> Int32 {
    let directory =
        arguments.first.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-inspector-\(getpid())")
    let steps = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let catalog = RecordedCatalog(keeping: steps)
    let clock = ContinuousClock()

    let dispatchTime = clock.measure {
        catalog.view(steps: steps)
    }
    // Reading the recording describes what the background worker has not described yet.
    let describeTime = clock.measure { _ = catalog.inspector.recording }
    let url = directory.appendingPathComponent("inspector-\(steps).html")
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
        print("could not create \(directory.path): \(error)")
        return 1
    }
    guard let (writingTime, size) = catalog.writePage(to: url, steps: steps) else { return 1 }
    print("inspector page: \(url.path)")
    print("  state: \(RecordedCatalog.itemCount) items, about \(catalog.stateSize / 1_000) kB of text; \(steps) steps")
    print("  dispatching with the recorder: \(dispatchTime) (\(dispatchTime / steps) per step)")
    print("  then describing what the worker had not: \(describeTime)")
    print("  writing the page: \(writingTime)")
    print("  file size: \(size / 1_000) kB")

    return timedInChromium(url)
}

/// Times the page at `url` in headless Chromium with the selenium script (see its header); 0 when
/// it did or when there is no Chromium, the script's status otherwise.
private func timedInChromium(_ url: URL) -> Int32 {
    #if os(macOS) || os(Linux)
        // The page's own figures, timed in headless Chromium by the selenium script (see its header).
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.fileExists(atPath: pageBenchmarkScript.path)
        else {
            print(
                "  in the browser: not measured (needs /usr/bin/chromium, chromedriver and \(pageBenchmarkScript.path))"
            )
            return 0
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [pageBenchmarkScript.path, url.path]
        do { try process.run() } catch {
            print("  in the browser: could not start \(python): \(error)")
            return 1
        }
        process.waitUntilExit()
        return process.terminationStatus
    #else
        print("  in the browser: not measured (a child process, which only macOS and Linux can start)")
        return 0
    #endif
}
