import Foundation
import OresRedux

// `--inspector-write [STEPS]`: what writing a recording's page costs against recording it. A store
// whose state holds a catalog of about 1 MB records STEPS steps (10,000 by default), each changing one
// item of it; then the page is written. Writing must cost no more than recording, in a release build
// and in a debug one (where apps run an inspector): a smaller STEPS keeps a debug run short.

struct CatalogItem: Equatable, Sendable {
    var id: Int
    var title: String
    var summary: String
    var views: Int
}

struct CatalogState: Equatable, Sendable {
    var items: [CatalogItem]
    var lastViewed = -1
    var total = 0
}

struct ViewItem: Action { let id: Int }

private let catalogReducer = Reducer<CatalogState>.on(ViewItem.self) { state, action in
    state.items[action.id].views += 1
    state.lastViewed = action.id
    state.total += 1
}

/// A store whose state holds a catalog of about 1 MB (5,000 items), with an inspector recording it:
/// each step views one item, so it changes one item of the catalog and two counters.
struct RecordedCatalog {
    static let itemCount = 5_000
    let inspector: InspectorRecorder<CatalogState>
    let store: Store<CatalogState>
    /// The bytes of text the catalog holds, with 16 for each item's numbers.
    let stateSize: Int

    /// - Parameter steps: the most steps the recording keeps.
    init(keeping steps: Int) {
        let items = (0..<Self.itemCount).map { index in
            CatalogItem(
                id: index, title: "Item \(index): " + String(repeating: "t", count: 40),
                summary: String(repeating: "s", count: 140), views: 0)
        }
        var options = InspectorOptions<CatalogState>()
        options.maximumSteps = steps
        inspector = InspectorRecorder<CatalogState>(options: options)
        store = Store(
            initialState: CatalogState(items: items), reducer: catalogReducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        stateSize = items.reduce(0) { $0 + $1.title.utf8.count + $1.summary.utf8.count + 16 }
    }

    /// Writes the recording's page to `url`, timed: how long it took and the file's size in bytes,
    /// or `nil` (having said why) when it could not.
    func writePage(to url: URL, steps: Int) -> (time: Duration, bytes: Int)? {
        do {
            let time = try ContinuousClock().measure {
                try inspector.writeHTML(to: url, title: "\(steps) steps over a 1 MB state")
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            return (time, bytes)
        } catch {
            print("could not write \(url.path): \(error)")
            return nil
        }
    }

    /// Dispatches `steps` steps, each viewing one item, spread over the catalog.
    func view(steps: Int) {
        for step in 0..<steps { store.dispatch(ViewItem(id: (step * 7_919) % Self.itemCount)) }
    }
}

func inspectorPageWriting(_ arguments: [String]) async -> Int32 {
    guard let steps = arguments.isEmpty ? 10_000 : Int(arguments[0]), steps > 0 else {
        print("usage: --inspector-write [STEPS]")
        return 2
    }
    let catalog = RecordedCatalog(keeping: steps)
    let clock = ContinuousClock()

    // Recording ends when every step is described: reading the recording describes what the
    // background worker has not.
    let recordTime = clock.measure {
        catalog.view(steps: steps)
        _ = catalog.inspector.recording
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-write-\(getpid()).html")
    defer { try? FileManager.default.removeItem(at: url) }
    guard let (writeTime, size) = catalog.writePage(to: url, steps: steps) else { return 1 }
    #if DEBUG
        let build = "debug"
    #else
        let build = "release"
    #endif
    print(
        "inspector page writing (\(build) build): \(steps) steps over a state of about \(catalog.stateSize / 1_000) kB")
    print("  recording (dispatching, then describing what the worker had not): \(recordTime)")
    print("  writing the page (\(size / 1_000) kB): \(writeTime)")
    print(String(format: "  writing / recording: %.2f", writeTime / recordTime))
    return 0
}
