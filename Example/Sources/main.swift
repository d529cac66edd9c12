import Foundation
import OresRedux

// swift run Example [--base-url URL] [--timeout SECONDS] [--trace DIR]
// swift run Example --resume
// swift run Example --inspect [--inspect-for SECONDS]
//
// Four short stories of one log-in screen, each a graph: log in, then fetch the profile and the
// feed in parallel with the token, then show home with both in one state update. A fifth searches
// the feed as the user types; a sixth closes the screen mid-chain (ClosingScreen.swift); a
// seventh keeps server data that two screens show in a query cache (ServerData.swift).
// `--resume` tells another: a durable run killed mid-chain and resumed on the next launch
// (Resume.swift).

let usage = """
    usage: swift run Example [--base-url URL] [--timeout SECONDS] [--trace DIR] [--help]
           swift run Example --resume
           swift run Example --inspect [--inspect-for SECONDS]

    Runs seven scenarios of a log-in screen built as an OresRedux action graph:
      1. log in -> profile and feed in parallel -> one update with both
      2. the feed fails: a fallback banner, home skipped, the profile still shown
      3. the feed is flaky: a retry with back-off succeeds on the second try
      4. the user leaves while loading: the run is cancelled
      5. searching the feed as the user types: debounce and take-latest
      6. the user closes the screen mid-chain: the feed is cancelled, the sent post finishes
      7. server data: one feed for two screens, optimistic posts, a poll that answers too late

    options:
      --base-url URL  make real HTTP requests (URLSession) to a server serving
                      Example/fixtures (e.g. python3 -m http.server -d Example/fixtures);
                      by default an embedded fake API answers with realistic latency
      --timeout SECONDS  the longest each call may take (default 5); a call that
                      takes longer fails that call, not the whole Example
      --trace DIR     where to write each run's pictures: Mermaid (.mmd), Graphviz (.dot)
                      and a Chrome trace (.trace.json, opens in ui.perfetto.dev);
                      default: trace-out
      --resume        instead, a durable run (upload photo -> create post -> notify)
                      killed with SIGKILL while creating the post, and resumed on the
                      next launch: which calls were not repeated, which were repeated
                      with the same idempotency key
      --inspect       instead, serve the inspector live on loopback (prints its URL)
                      and run the four log-in scenarios while the page watches; press
                      Return to run them again; stops at end of input or Ctrl-C
      --inspect-for SECONDS  with --inspect: stop after this long
      --help          show this text
    """

var baseURL: URL?
var callTimeout = Duration.seconds(5)
var traceDirectory = URL(fileURLWithPath: "trace-out")
var resumeOnly = false
var inspectLive = false
var inspectSeconds: Double?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--resume":
        resumeOnly = true
    case "--inspect":
        inspectLive = true
    case "--inspect-for":
        guard let value = arguments.popFirst(), let seconds = Double(value), seconds > 0 else {
            print("--inspect-for needs a number of seconds\n\n\(usage)")
            exit(2)
        }
        inspectLive = true
        inspectSeconds = seconds
    case "--resume-first-launch":
        // Hidden: the first launch of `--resume`, run as a child process; it is killed mid-run.
        guard let value = arguments.popFirst() else { exit(2) }
        await resumeFirstLaunch(folder: URL(fileURLWithPath: value, isDirectory: true))
    case "--record-journal":
        // Hidden: records the journal fixture a test replays (see recordJournalFixture in Resume.swift).
        guard let value = arguments.popFirst() else { exit(2) }
        exit(recordJournalFixture(into: URL(fileURLWithPath: value, isDirectory: true)) ? 0 : 1)
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--base-url":
        guard let value = arguments.popFirst(), let url = URL(string: value) else {
            print("--base-url needs a URL\n\n\(usage)")
            exit(2)
        }
        baseURL = url
    case "--timeout":
        guard let value = arguments.popFirst(), let seconds = Double(value), seconds > 0 else {
            print("--timeout needs a number of seconds\n\n\(usage)")
            exit(2)
        }
        callTimeout = .milliseconds(Int64(seconds * 1000))
    case "--trace":
        guard let value = arguments.popFirst() else {
            print("--trace needs a directory\n\n\(usage)")
            exit(2)
        }
        traceDirectory = URL(fileURLWithPath: value)
    default:
        print("unknown option \(argument)\n\n\(usage)")
        exit(2)
    }
}

if resumeOnly {
    exit(await resumeScenario() ? 0 : 1)
}

@MainActor
func api(brokenFeed: Bool = false) -> any API {
    if let baseURL { return HTTPAPI(baseURL: baseURL, brokenFeed: brokenFeed, timeout: callTimeout) }
    return FakeAPI(brokenFeed: brokenFeed)
}

/// Runs one scenario: renders every state change as it happens, then prints the run's report.
@MainActor
func scenario(
    _ number: Int, _ title: String, api: any API, feedRetry: RetryPolicy? = nil,
    cancelAfterLogIn: Bool = false, logsEvents: Bool = false,
    expect: (GraphReport, HomeController.LogInGraph, AppState) -> Bool
) async -> Bool {
    print("\n== \(number). \(title)")
    // The app registers its live API client once, in the store; every async action reads it there.
    var dependencies = Dependencies()
    dependencies.api = api
    var options = StoreOptions(dependencies: dependencies)
    if logsEvents {
        // The app's logger: async actions and the run, node by node, which middleware never sees.
        options.onEvent = StoreEvent.logger { print("        event: \($0)") }
    }
    // Every log-in scenario is recorded into one inspector page (written after scenario 4), or, with
    // --inspect, shown live (Live.swift).
    let store =
        live?.makeStore(initialState: AppState(), reducer: appReducer, options: options)
        ?? Store(
            initialState: AppState(), reducer: appReducer, middleware: [inspector.middleware],
            options: inspector.storeOptions(options))
    lastStore = store
    let controller = HomeController(store: store)
    let start = ContinuousClock.now
    let rendering = controller.render { line in
        let elapsed = (ContinuousClock.now - start).components
        let milliseconds = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
        print(String(repeating: " ", count: max(0, 6 - String(milliseconds).count)) + "\(milliseconds) ms  \(line)")
    }
    let login = controller.logInGraph(user: "ada", password: "lovelace", callTimeout: callTimeout, feedRetry: feedRetry)
    let run = store.dispatch(login.graph)
    if cancelAfterLogIn {
        _ = try? await run.value(of: login.session)
        print("        (the user leaves the screen: run.cancel())")
        run.cancel()
    }
    let report = await run.wait()
    rendering.cancel()
    print("")
    print(report.description.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    writeTraces(report, name: "scenario-\(number)")
    if case .failed(let error) = await run.outcome(of: login.session) {
        // Every scenario starts by logging in: there is no point in going on.
        print("\nlog-in failed: \(error); the other scenarios need a session, so the Example stops here.")
        exit(1)
    }
    let asExpected = expect(report, login, store.state)
    if !asExpected { print("!! scenario \(number) did not end as expected") }
    return asExpected
}

/// Records the log-in scenarios, one store after the other, for `trace-out/inspector.html`.
let inspector = InspectorRecorder<AppState>(
    options: {
        var options = InspectorOptions<AppState>()
        options.redactFields("password", "token")  // secrets stay out of the page
        return options
    }())

/// The four log-in scenarios, one store each.
@MainActor
func logInScenarios() async -> [Bool] {
    var results: [Bool] = []
    results.append(
        await scenario(1, "Log in, then profile and feed in parallel, then one update", api: api()) {
            report, login, state in
            state.screen == .home && state.feed.count == 3 && report.count(of: .succeeded) == report.count
        })
    results.append(
        await scenario(
            2, "The feed fails: fallback banner, home skipped, profile still shown",
            api: api(brokenFeed: true), logsEvents: true
        ) { report, login, state in
            report[login.feed].outcome == .failed && report[login.home].outcome == .skipped
                && state.profile != nil && state.banner != nil && state.screen == .loading
        })
    results.append(
        await scenario(
            3, "The feed is flaky: retry with back-off succeeds on the second try",
            api: FlakyFeed(api(), failures: 1),
            feedRetry: .retry(2, backoff: .exponential(initial: .milliseconds(100)))
        ) { report, login, state in
            report[login.feed].attempts == 2 && state.screen == .home
        })
    results.append(
        await scenario(
            4, "The user leaves while loading: the run is cancelled", api: SlowFeed(base: api()),
            cancelAfterLogIn: true
        ) { report, login, state in
            report[login.session].outcome == .succeeded && report[login.home].outcome == .cancelled
                && state.session != nil && state.screen == .loading
        })
    return results
}

if inspectLive {
    await serveLive(seconds: inspectSeconds)
}

var results = await logInScenarios()

writeInspector(inspector.recording, to: traceDirectory)

// 5. Searching the feed as the user types: debounce and take-latest.
results.append(
    await {
        print("\n== 5. Searching the feed as the user types: one request, once the typing paused")
        let counting = CountingAPI(api())
        var dependencies = Dependencies()
        dependencies.api = counting
        let store = Store(
            initialState: AppState(session: Session(token: "token-ada", user: "ada")), reducer: appReducer,
            options: StoreOptions(dependencies: dependencies))
        let shown = store.subscribe({ $0.searchedFor }) { query in
            if let query { print("        shows \(store.state.searchResults.count) post(s) for \"\(query)\"") }
        }
        var last: GraphRun<AppState>?
        // The keystrokes come 80 ms apart. A busy machine may pause longer between two of them; a
        // pause as long as the debounce rightly lets the search typed before it reach the network.
        // Such a pause is counted from the clock: from before one keystroke's dispatch to after the
        // next one's, the longest the first search's debounce could have run before it was replaced.
        var longPauses = 0
        var previousStart: ContinuousClock.Instant?
        for query in ["n", "nu", "num", "numb"] {
            print("        types \"\(query)\"")
            let start = ContinuousClock.now
            last = queryChanged(to: query, in: store)
            if let previousStart, ContinuousClock.now - previousStart >= searchDebounce { longPauses += 1 }
            previousStart = start
            try? await Task.sleep(for: .milliseconds(80))  // the next keystroke
        }
        _ = await last?.wait()
        shown.cancel()
        let state = store.state
        print(
            "        \(counting.feedRequests) request(s) for 4 keystrokes; results: \(state.searchResults.map(\.text))")
        if longPauses > 0 {
            print("        (the machine paused \(longPauses) time(s) as long as the debounce between keystrokes)")
        }
        let asExpected =
            (1...1 + longPauses).contains(counting.feedRequests) && state.searchedFor == "numb"
            && state.searchResults.count == 1
        if !asExpected { print("!! scenario 5 did not end as expected") }
        return asExpected
    }())

// 6. The user closes the screen mid-chain: work that belongs to the screen ends with it.
results.append(await closingScreenScenario(api: SlowFeed(base: api())))
results.append(await serverDataScenario())

let passed = results.filter { $0 }.count
print("\nExample finished: \(passed) of \(results.count) scenarios ended as expected.")
exit(passed == results.count ? 0 : 1)
