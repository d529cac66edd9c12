import Foundation
import OresRedux

// `--inspector-page`: a large recording's page, measured once. The state holds a catalog of about
// 1 MB; each of 10,000 steps changes one item of it and a counter, so the page must stay small
// (one patch per step) and open quickly.

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

func inspectorPage(_ arguments: [String]) async -> Int32 {
    let directory =
        arguments.first.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-inspector-\(getpid())")
    let steps = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let items = (0..<5_000).map { index in
        Item(
            id: index, title: "Item \(index): " + String(repeating: "t", count: 40),
            summary: String(repeating: "s", count: 140), views: 0)
    }
    let inspector = InspectorRecorder<CatalogState>()
    let store = Store(
        initialState: CatalogState(items: items), reducer: catalogReducer, middleware: [inspector.middleware],
        options: inspector.storeOptions())
    let clock = ContinuousClock()

    let recordingTime = clock.measure {
        for step in 0..<steps { store.dispatch(View(id: (step * 7_919) % items.count)) }
    }
    let url = directory.appendingPathComponent("inspector-10k.html")
    let writingTime: Duration
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        writingTime = try clock.measure { try inspector.writeHTML(to: url, title: "10,000 steps over a 1 MB state") }
    } catch {
        print("could not write \(url.path): \(error)")
        return 1
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let stateSize = items.reduce(0) { $0 + $1.title.utf8.count + $1.summary.utf8.count + 16 }
    print("inspector page: \(url.path)")
    print("  state: \(items.count) items, about \(stateSize / 1_000) kB of text; \(steps) steps")
    print("  recording: \(recordingTime) (\(recordingTime / steps) per step)")
    print("  writing the page: \(writingTime)")
    print("  file size: \(size / 1_000) kB")

    return firstRenderInChromium(url)
}

/// Opens the page at `url` in headless Chromium (`/usr/bin/chromium`, as Debian installs it) and
/// prints how long it took to draw; 0 when it did or when there is no Chromium, 1 on a failure.
private func firstRenderInChromium(_ url: URL) -> Int32 {
    #if os(macOS) || os(Linux)
        let clock = ContinuousClock()
        let chromium = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: chromium) else {
            print("  first render: not measured (no \(chromium))")
            return 0
        }
        // The page stamps `data-render-ms` (performance.now() once it has drawn the last step) on its
        // body; --dump-dom prints the DOM after the load, stamp included.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900",
            "--dump-dom", url.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = clock.now
        do { try process.run() } catch {
            print("  first render: could not start \(chromium): \(error)")
            return 1
        }
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let wall = start.duration(to: clock.now)
        guard let range = dom.range(of: #"data-render-ms=""#) else {
            print("  first render: the page did not finish rendering (no data-render-ms in the DOM)")
            return 1
        }
        let milliseconds = dom[range.upperBound...].prefix { $0 != "\"" }
        print("  first render in headless Chromium: \(milliseconds) ms after navigation start")
        print("  chromium --dump-dom, start to exit: \(wall)")
        return 0
    #else
        print("  first render: not measured (a child process, which only macOS and Linux can start)")
        return 0
    #endif
}
