import Foundation
import OresRedux

// `--inspector-write [STEPS]`: what writing a recording's page costs against recording it. A store
// whose state holds a shelf of about 1 MB records STEPS steps (10,000 by default), each changing one
// book of it; then the page is written. Writing must cost no more than recording, in a release build
// and in a debug one (where apps run an inspector): a smaller STEPS keeps a debug run short.

private struct Book: Equatable, Sendable {
    var id: Int
    var title: String
    var blurb: String
    var loans: Int
}

private struct ShelfState: Equatable, Sendable {
    var books: [Book]
    var lastLent = -1
    var totalLoans = 0
}

private struct Lend: Action { let id: Int }

private let shelfReducer = Reducer<ShelfState>.on(Lend.self) { state, action in
    state.books[action.id].loans += 1
    state.lastLent = action.id
    state.totalLoans += 1
}

func inspectorPageWriting(_ arguments: [String]) async -> Int32 {
    guard let steps = arguments.isEmpty ? 10_000 : Int(arguments[0]), steps > 0 else {
        print("usage: --inspector-write [STEPS]")
        return 2
    }
    let books = (0..<5_000).map { index in
        Book(
            id: index, title: "Book \(index): " + String(repeating: "t", count: 40),
            blurb: String(repeating: "b", count: 140), loans: 0)
    }
    var options = InspectorOptions<ShelfState>()
    options.maximumSteps = steps
    let inspector = InspectorRecorder<ShelfState>(options: options)
    let store = Store(
        initialState: ShelfState(books: books), reducer: shelfReducer, middleware: [inspector.middleware],
        options: inspector.storeOptions())
    let clock = ContinuousClock()

    // Recording ends when every step is described: reading the recording describes what the
    // background worker has not.
    let recordTime = clock.measure {
        for step in 0..<steps { store.dispatch(Lend(id: (step * 7_919) % books.count)) }
        _ = inspector.recording
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-write-\(getpid()).html")
    defer { try? FileManager.default.removeItem(at: url) }
    let writeTime: Duration
    do {
        writeTime = try clock.measure { try inspector.writeHTML(to: url, title: "\(steps) steps over a 1 MB state") }
    } catch {
        print("could not write \(url.path): \(error)")
        return 1
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let stateSize = books.reduce(0) { $0 + $1.title.utf8.count + $1.blurb.utf8.count + 16 }
    #if DEBUG
        let build = "debug"
    #else
        let build = "release"
    #endif
    print("inspector page writing (\(build) build): \(steps) steps over a state of about \(stateSize / 1_000) kB")
    print("  recording (dispatching, then describing what the worker had not): \(recordTime)")
    print("  writing the page (\(size / 1_000) kB): \(writeTime)")
    print(String(format: "  writing / recording: %.2f", writeTime / recordTime))
    return 0
}
