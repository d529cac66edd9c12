import Foundation
import OresRedux
import OresReduxLive

// swift run Example --inspect: the inspector served live while the log-in scenarios run.

/// The live inspector, with `--inspect`: every scenario's store is made by it.
@MainActor var live: LiveInspector<AppState>?

/// The store of the scenario that ran last: the page's jumps and dispatches go there, so it is
/// kept alive after its scenario ends.
@MainActor var lastStore: Store<AppState>?

/// Serves the inspector live, runs the four log-in scenarios, then runs them again at each line of
/// input (Return), until input ends, Ctrl-C, or `seconds` passed. Never returns.
@MainActor
func serveLive(seconds: Double?) async -> Never {
    var recording = InspectorOptions<AppState>()
    recording.redactFields("password", "token")  // secrets stay out of the page
    var options = LiveInspectorOptions()
    options.title = "OresRedux Example: live"
    do {
        // Prints "inspector: http://127.0.0.1:PORT/?token=...".
        live = try LiveInspector(
            recording: recording,
            registry: ActionCodingRegistry(
                StartLoading.self, SignedIn.self, ProfileLoaded.self, ShowHome.self, ShowBanner.self),
            options: options)
    } catch {
        print("the live inspector could not start: \(error)")
        exit(1)
    }
    if let seconds {
        Task.detached {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            print("live: \(seconds) s passed, stopping")
            exit(0)
        }
    }
    // Input is read with read(2), not readLine(): a thread blocked in readLine() holds stdin's
    // lock, and fflush(nil) (below) would wait for it.
    let lines = AsyncStream<Void> { continuation in
        let reader = Thread {
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 {
                if byte == UInt8(ascii: "\n") { continuation.yield() }
            }
            continuation.finish()
        }
        reader.start()
    }
    var next = lines.makeAsyncIterator()
    var round = 1
    while true {
        let results = await logInScenarios()
        let passed = results.filter { $0 }.count
        print(
            "\nlive: round \(round) ran \(passed) of \(results.count) scenarios as expected; "
                + "\(live?.recorder.recording.stepCount ?? 0) steps recorded")
        print("live: press Return to run the scenarios again; end of input (Ctrl-D) or Ctrl-C stops")
        fflush(nil)  // a test reads these lines through a pipe
        round += 1
        guard await next.next() != nil else {
            print("live: end of input, stopping")
            exit(0)
        }
    }
}
