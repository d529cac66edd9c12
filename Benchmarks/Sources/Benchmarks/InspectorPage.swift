import Foundation
import OresRedux

// `--inspector-page`: a large recording's page, measured once. The state holds a catalog of about
// 1 MB; each of 100,000 steps (by default) changes one item of it and a counter, so the page must
// stay small (one patch per step) and open quickly; `.ci/inspector-page-benchmark.py` times it in
// headless Chromium.

private struct Item: Equatable, Sendable {
    var id: Int
    var title: String
    var summary: String
    var views: Int
}

private struct CatalogState: Equatable, Sendable {
    var items: [Item]
    var lastViewed = -1
    var total = 0
}

private struct View: Action { let id: Int }

private let catalogReducer = Reducer<CatalogState>.on(View.self) { state, action in
    state.items[action.id].views += 1
    state.lastViewed = action.id
    state.total += 1
}

/// The page benchmark's script (`.ci/inspector-page-benchmark.py`), found from this file's path.
private let pageBenchmarkScript = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".ci/inspector-page-benchmark.py")

func inspectorPage(_ arguments: [String]) async -> Int32 {
    let directory =
        arguments.first.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-inspector-\(getpid())")
    let steps = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
    let items = (0..<5_000).map { index in
        Item(
            id: index, title: "Item \(index): " + String(repeating: "t", count: 40),
            summary: String(repeating: "s", count: 140), views: 0)
    }
    var options = InspectorOptions<CatalogState>()
    options.maximumSteps = steps
    let inspector = InspectorRecorder<CatalogState>(options: options)
    let store = Store(
        initialState: CatalogState(items: items), reducer: catalogReducer, middleware: [inspector.middleware],
        options: inspector.storeOptions())
    let clock = ContinuousClock()

    let dispatchTime = clock.measure {
        for step in 0..<steps { store.dispatch(View(id: (step * 7_919) % items.count)) }
    }
    // Reading the recording describes what the background worker has not described yet.
    let describeTime = clock.measure { _ = inspector.recording }
    let url = directory.appendingPathComponent("inspector-\(steps).html")
    let writingTime: Duration
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        writingTime = try clock.measure {
            try inspector.writeHTML(to: url, title: "\(steps) steps over a 1 MB state")
        }
    } catch {
        print("could not write \(url.path): \(error)")
        return 1
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let stateSize = items.reduce(0) { $0 + $1.title.utf8.count + $1.summary.utf8.count + 16 }
    print("inspector page: \(url.path)")
    print("  state: \(items.count) items, about \(stateSize / 1_000) kB of text; \(steps) steps")
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
