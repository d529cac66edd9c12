import Foundation
import OresRedux
import OresReduxLive
import Testing

@testable import OresReduxLive

// The live inspector from Swift: time travel, pause and resume, dispatching again through the
// registry, what the page is streamed, and the HTTP parser. The server's defences against hostile
// clients are LiveHostileClientTests (Python sockets).

struct LiveCounter: Equatable, Sendable {
    var total = 0
    var log: [Int] = []
}

struct LiveAdd: Action, Codable, Equatable {
    var amount: Int
}

/// Not registered: cannot be dispatched again.
struct LiveNote: Action {
    var text: String
}

let liveCounterReducer = Reducer<LiveCounter>.combine(
    .on(LiveAdd.self) { state, action in
        state.total += action.amount
        state.log.append(action.amount)
    },
    .on(LiveNote.self) { _, _ in })

/// An async action that waits until the test lets it go, and says when it started.
struct LiveHeldFetch: AsyncAction {
    typealias State = LiveCounter
    let started: AsyncStream<Void>.Continuation
    let release: AsyncStream<Int>

    func run(_ context: ActionContext<LiveCounter>) async throws -> Int {
        started.yield()
        for await value in release { return value }
        throw CancellationError()
    }
}

func quietLiveOptions() -> LiveInspectorOptions {
    var options = LiveInspectorOptions()
    options.printsURL = false
    return options
}

@Suite("Live inspector")
struct LiveInspectorTests {
    @Test("the URL is loopback with a 128-bit token, and the page is the recording with the live script")
    func urlAndPage() throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let url = live.url.absoluteString
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        let other = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { other.stop() }
        #expect(other.url != live.url, "each inspector has its own port and token")

        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 2))
        let page = live.session.page()
        #expect(page.contains("<script id=\"inspector-live\">"))
        #expect(page.contains("connect-src 'self'"))
        #expect(!live.recorder.recording.html().contains("connect-src"), "the offline page makes no request")
    }

    @Test("a jump replaces the state through the pipeline and is a step of its own")
    func jumpIsAStep() throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        let seen = LockedValue<[Int]>([])
        let subscription = store.subscribe { state in seen.withLock { $0.append(state.total) } }
        defer { subscription.cancel() }
        store.dispatch(LiveAdd(amount: 1))
        store.dispatch(LiveAdd(amount: 2))
        store.dispatch(LiveAdd(amount: 4))

        try live.jump(toStep: 1)

        #expect(store.state == LiveCounter(total: 1, log: [1]))
        #expect(live.recorder.recording.actionTypes == ["LiveAdd", "LiveAdd", "LiveAdd", "JumpedToStep"])
        #expect(seen.withLock { $0 } == [0, 1, 3, 7, 1], "subscribers see the jump like any change")
        try live.jump(toStep: 0)
        #expect(store.state == LiveCounter(), "step 0 is the initial state")
        try live.jump(toStep: 4)
        #expect(store.state == LiveCounter(total: 1, log: [1]), "a jump step can be jumped to")
        #expect(throws: LiveInspectorError.self) { try live.jump(toStep: 99) }
    }

    /// Dispatches a run whose fetch waits for the test, then adds what it answers; returns once the
    /// fetch started, with the run and what releases the fetch.
    static func startHeldFetch(
        in store: Store<LiveCounter>
    ) async throws -> (GraphRun<LiveCounter>, AsyncStream<Int>.Continuation) {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Int>.makeStream()
        var graph = ActionGraph<LiveCounter>()
        let fetch = graph.run(LiveHeldFetch(started: startedContinuation, release: release))
        graph.send(after: fetch) { LiveAdd(amount: $0) }
        let run = store.dispatch(graph)
        try await withDeadline(10, "the held fetch to start") {
            for await _ in started { return }
        }
        return (run, releaseContinuation)
    }

    @Test("runs in flight are left running: their later commits apply on top of the jumped state")
    func jumpLeavesRunsRunning() async throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 1))
        let (run, releaseContinuation) = try await Self.startHeldFetch(in: store)
        store.dispatch(LiveAdd(amount: 100))

        try live.jump(toStep: 1)  // total 1, while the fetch is in flight
        releaseContinuation.yield(10)
        let report = try await withDeadline(10, "the run") { await run.wait() }

        #expect(report.count(of: .succeeded) == 2)
        #expect(store.state == LiveCounter(total: 11, log: [1, 10]))
        #expect(live.recorder.recording.actionTypes == ["LiveAdd", "LiveAdd", "JumpedToStep", "LiveAdd"])
    }

    @Test("pausing stops recording, not the app; resuming records what changed meanwhile as one step")
    func pauseAndResume() throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 1))
        live.pauseRecording()
        #expect(live.isPaused)
        store.dispatch(LiveAdd(amount: 2))
        store.dispatch(LiveAdd(amount: 3))
        #expect(store.state.total == 6, "the app goes on")
        #expect(live.recorder.recording.stepCount == 1)

        live.resumeRecording()
        store.dispatch(LiveAdd(amount: 4))

        #expect(!live.isPaused)
        #expect(live.recorder.recording.actionTypes == ["LiveAdd", "RecordingResumed", "LiveAdd"])
        #expect(store.state.total == 10)
        // The resumed step's state is the app's: jumping to it gives the state before the last add.
        try live.jump(toStep: 2)
        #expect(store.state == LiveCounter(total: 6, log: [1, 2, 3]))
    }

    @Test("a session's generated test starts after the inspector's last jump, from the state it jumped to")
    func generatedTestStartsAfterTheJump() async throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 1))
        let (run, releaseContinuation) = try await Self.startHeldFetch(in: store)
        try live.jump(toStep: 1)  // total 1, while the fetch is in flight
        releaseContinuation.yield(10)
        _ = try await withDeadline(10, "the run") { await run.wait() }
        store.dispatch(LiveAdd(amount: 5))

        let test = live.recorder.recording.generatedTest(reducer: "liveCounterReducer")
        #expect(!test.contains("JumpedToStep("), "the inspector's own action is not the app's to send")
        #expect(test.contains("// Starts after step 2 (JumpedToStep), where an inspector changed the app's state"))
        #expect(test.contains("TestStore(initialState: LiveCounter(total: 1, log: [1])"), "the state jumped to")
        #expect(!test.contains("LiveHeldFetch"), "the run began before the jump: not this test's")
        #expect(test.contains("try store.send(LiveAdd(amount: 10))"), "its step after the jump, as a send")
        #expect(test.contains("try store.send(LiveAdd(amount: 5))"))
    }

    @Test("a session's generated test starts after the last resume, from the app's state then")
    func generatedTestStartsAfterTheResume() throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 1))
        live.pauseRecording()
        store.dispatch(LiveAdd(amount: 2))
        live.resumeRecording()
        store.dispatch(LiveAdd(amount: 4))

        let test = live.recorder.recording.generatedTest(reducer: "liveCounterReducer")
        #expect(!test.contains("RecordingResumed("))
        #expect(test.contains("TestStore(initialState: LiveCounter(total: 3, log: [1, 2])"))
        #expect(test.contains("try store.send(LiveAdd(amount: 4))"))
        #expect(!test.contains("LiveAdd(amount: 1)"), "what came before the resume is not replayed")
    }

    @Test("dispatching again goes through the registry's coding; an unregistered type is refused")
    func dispatchAgain() throws {
        let live = try LiveInspector<LiveCounter>(
            registry: ActionCodingRegistry(LiveAdd.self), options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 5))
        store.dispatch(LiveNote(text: "not registered"))

        try live.dispatchAgain(step: 1)

        #expect(store.state == LiveCounter(total: 10, log: [5, 5]))
        #expect(live.recorder.recording.actionTypes == ["LiveAdd", "LiveNote", "LiveAdd"])
        #expect {
            try live.dispatchAgain(step: 2)
        } throws: { error in
            guard case LiveInspectorError.coding(.unregisteredType("LiveNote")) = error else { return false }
            return true
        }
        let (status, body) = live.session.command("dispatch", step: 2)
        #expect(status == 422 && body.contains("LiveNote"))
        #expect(live.session.command("jump", step: nil).status == 400)
        #expect(live.session.command("dispatch", step: 42).status == 404)
    }

    @Test("past the commands waiting to be applied, a jump or a dispatch is answered 429")
    func commandsWaitingAreBounded() throws {
        let live = try LiveInspector<LiveCounter>(
            registry: ActionCodingRegistry(LiveAdd.self), options: quietLiveOptions())
        defer { live.stop() }
        // The first command the page sends holds the store until the test lets it go, so every
        // command after it waits.
        let armed = LockedValue(false)
        let release = DispatchSemaphore(value: 0)
        let holding = Reducer<LiveCounter> { state, action in
            if armed.withLock({ armed in
                defer { armed = false }; return armed
            }) {
                _ = release.wait(timeout: .now() + 30)
            }
            liveCounterReducer(&state, action)
        }
        let store = live.makeStore(initialState: LiveCounter(), reducer: holding)
        defer { release.signal() }
        store.dispatch(LiveAdd(amount: 1))
        armed.withLock { $0 = true }

        let limit = live.session.maximumWaitingCommands
        let statuses = (0..<limit).map { index in live.session.command(index % 2 == 0 ? "dispatch" : "jump", step: 1) }
        #expect(statuses.allSatisfy { $0.status == 202 })
        let (status, body) = live.session.command("dispatch", step: 1)
        #expect(status == 429 && body.contains("again later"))
        #expect(live.session.command("jump", step: 1).status == 429)
        #expect(live.session.command("pause", step: nil).status == 200, "pause and resume are not queued behind")
        #expect(live.session.command("resume", step: nil).status == 200)
    }

    @Test("only the newest steps keep their state and action")
    func keptStepsAreBounded() throws {
        var options = quietLiveOptions()
        options.maximumKeptSteps = 3
        let live = try LiveInspector<LiveCounter>(options: options)
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        for amount in 1...10 { store.dispatch(LiveAdd(amount: amount)) }
        #expect(live.session.kept.withLock { $0.entries.count } == 3)
        #expect(throws: LiveInspectorError.self) { try live.jump(toStep: 7) }
        try live.jump(toStep: 8)
        #expect(store.state.total == 36)
    }

    @Test("each step keeps its own action and state when the recorder drops queued steps past its bound")
    func keptStepsPairByNumber() throws {
        var recording = InspectorOptions<LiveCounter>()
        recording.maximumSteps = 3
        let live = try LiveInspector<LiveCounter>(
            recording: recording, registry: ActionCodingRegistry(LiveAdd.self), options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        for amount in 1...10 { store.dispatch(LiveAdd(amount: amount)) }
        #expect(live.recorder.recording.stepCount == 3)
        try live.jump(toStep: 9)
        #expect(store.state.total == 45)
        try live.dispatchAgain(step: 8)
        #expect(store.state.total == 53 && store.state.log.last == 8)
        live.recorder.clear()
        store.dispatch(LiveAdd(amount: 100))
        store.dispatch(LiveAdd(amount: 1))
        try live.jump(toStep: 1)
        #expect(store.state.total == 153, "after clear(), step 1 is the new recording's")
    }

    @Test("a page is streamed the steps after its cursor, and the runs again only when they change")
    func updatesFollowTheCursor() async throws {
        let live = try LiveInspector<LiveCounter>(options: quietLiveOptions())
        defer { live.stop() }
        let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
        store.dispatch(LiveAdd(amount: 1))
        var graph = ActionGraph<LiveCounter>()
        graph.send(LiveAdd(amount: 2))
        let run = store.dispatch(graph)
        _ = try await withDeadline(10, "the run") { await run.wait() }

        var cursor = InspectorLiveCursor(after: 0)
        let first = try #require(live.recorder.liveUpdate(after: &cursor, limit: 1))
        #expect(first.steps == 1 && first.json.contains("\"runs\":[{\"id\":"))
        let second = try #require(live.recorder.liveUpdate(after: &cursor, limit: 10))
        #expect(second.steps == 1 && second.json.contains("\"runs\":[]"), "an unchanged run is not sent again")
        #expect(live.recorder.liveUpdate(after: &cursor, limit: 10) == nil)
        #expect(!first.json.contains("\n") && !second.json.contains("\n"), "one line: one SSE data field")
    }
}

@Suite("Live inspector: the HTTP parser")
struct LiveHTTPParserTests {
    let limits = HTTPLimits(maximumHeadBytes: 1_024, maximumHeaderCount: 4)

    func parse(_ text: String) -> HTTPParse {
        HTTPRequest.parse(Array(text.utf8), limits: limits)
    }

    @Test("a request head, its query and headers")
    func complete() throws {
        guard case .complete(let request) = parse("GET /events?token=ab%2Fc&after=3 HTTP/1.1\r\nHost: x:1\r\n\r\nBODY")
        else { Issue.record("not parsed"); return }
        #expect(request.method == "GET" && request.path == "/events")
        #expect(request.query == ["token": "ab/c", "after": "3"])
        #expect(request.header("host") == "x:1" && request.headLength == 56)
    }

    @Test("incomplete until the empty line; refused when malformed or too large")
    func refusals() {
        #expect(parse("GET / HTTP/1.1\r\nHost: x") == .incomplete)
        #expect(parse("\u{1}\u{2}garbage\r\n\r\n").status == 400)
        #expect(parse("GET / HTTP/1.1\nHost: x\n\n").status == 400)
        #expect(parse("GET http://x/ HTTP/1.1\r\n\r\n").status == 400)
        #expect(parse("GET / HTTP/2\r\n\r\n").status == 400)
        #expect(parse("GET  / HTTP/1.1\r\n\r\n").status == 400)
        #expect(parse("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n").status == 400)
        #expect(parse("GET / HTTP/1.1\r\nA: \u{7F}\r\n\r\n").status == 400)
        #expect(parse("GET / HTTP/1.1\r\n" + String(repeating: "A: 1\r\n", count: 5) + "\r\n").status == 431)
        #expect(parse("GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 2_000)).status == 431)
        #expect(parse("\u{1}\u{2}x").status == nil, "a line not finished yet is not judged")
    }

    @Test(
        "a command's body is JSON when its media type is exactly application/json, parameters allowed",
        arguments: [
            ("application/json", true), ("application/json; charset=utf-8", true),
            ("Application/JSON ;charset=UTF-8", true), ("application/json\t; charset=utf-8", true),
            ("application/jsonx", false), ("application/json-patch+json", false), ("application/json+x", false),
            ("text/json", false), ("application/json, text/plain", false), ("application/", false), ("", false),
            ("text/plain; x=application/json", false),
        ])
    func jsonMediaType(contentType: String, isJSON: Bool) throws {
        guard case .complete(let request) = parse("POST /pause HTTP/1.1\r\nContent-Type: \(contentType)\r\n\r\n")
        else { Issue.record("not parsed"); return }
        #expect(request.hasJSONBody == isJSON)
    }

    @Test("two Content-Types are not JSON, even when both say so")
    func twoContentTypes() throws {
        guard
            case .complete(let request) = parse(
                "POST /pause HTTP/1.1\r\nContent-Type: application/json\r\ncontent-type: application/json\r\n\r\n")
        else { Issue.record("not parsed"); return }
        #expect(!request.hasJSONBody)
    }

    @Test("the token comparison takes the expected token's length, whatever the guess")
    func constantTime() {
        #expect(LiveServer.constantTimeEqual("abcd", "abcd"))
        #expect(!LiveServer.constantTimeEqual("abce", "abcd"))
        #expect(!LiveServer.constantTimeEqual("abc", "abcd"))
        #expect(!LiveServer.constantTimeEqual("abcde", "abcd"))
        #expect(!LiveServer.constantTimeEqual("", "abcd"))
    }
}

extension HTTPParse {
    var status: Int? {
        if case .refused(let status, _) = self { return status }
        return nil
    }
}
