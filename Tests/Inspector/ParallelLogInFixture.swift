import Foundation
import OresRedux

@testable import OresRedux

/// The recording that issue 30 measured: a log-in whose profile, feed and ads load in parallel, the
/// ads failing into a banner, the feed failing once and answering on retry, and a second run of the
/// same graph cancelled once signed in.
extension InspectorApp {
    struct LoadProfile: AsyncAction {
        let token: String
        let script: LogInScript
        func run(_ context: ActionContext<AppState>) async throws -> Profile { try await script.profile() }
    }

    struct LoadFeed: AsyncAction {
        let token: String
        let script: LogInScript
        func run(_ context: ActionContext<AppState>) async throws -> [Post] { try await script.feed() }
    }

    struct LoadAds: AsyncAction {
        let token: String
        let script: LogInScript
        func run(_ context: ActionContext<AppState>) async throws -> [String] { try await script.ads() }
    }

    /// The log-in graph and the node a recording waits for before it cancels.
    struct LogInGraph {
        let graph: ActionGraph<AppState>
        let signedIn: Node<Void>
    }

    /// Log in; then the profile, the feed (retried once) and the ads in parallel; a banner when the
    /// ads fail; home once the profile and the feed are there.
    static func logInGraph(script: LogInScript = LogInScript(hangs: false)) -> LogInGraph {
        var graph = ActionGraph<AppState>()
        let session = graph.run(LogIn(user: "ada", password: "lovelace"))
        let signedIn = graph.send(after: session) { session in SignedIn(session: session) }
        let profile = graph.run(after: session) { session in LoadProfile(token: session.token, script: script) }
        let feed = graph.run(after: session) { session in LoadFeed(token: session.token, script: script) }
        let ads = graph.run(after: session) { session in LoadAds(token: session.token, script: script) }
        graph.setRetry(.retry(1, backoff: .constant(.milliseconds(2))), for: feed)
        graph.setFallback(for: ads) { _ in ShowBanner(message: "no ads today") }
        graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
        return LogInGraph(graph: graph, signedIn: signedIn)
    }

    /// Records the story of issue 30: a sync dispatch; run #1 of ``logInGraph(script:)``, in which the
    /// ads fail at once and the feed fails once, then answers only after the ends of the profile and
    /// the ads were delivered (so the recording is the same every time); two edits; run #2 of the same
    /// graph, cancelled once `SignedIn` was applied, while its three calls hang; a last dispatch.
    /// - Parameters:
    ///   - options: the recorder's options.
    ///   - adsFirst: whether the ads end before the profile (`true`), after it (`false`), or in either
    ///     order (`nil`).
    static func recordParallelLogIn(
        options: InspectorOptions<AppState> = InspectorOptions(), adsFirst: Bool? = nil
    ) async throws -> InspectorRecording {
        let inspector = InspectorRecorder<AppState>(options: options)
        let live = LogInScript(hangs: false, adsFirst: adsFirst)
        var base = StoreOptions()
        base.onEvent = { event in live.observe(event) }
        let store = Store(
            initialState: AppState(), reducer: reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions(base))
        store.dispatch(StartLoading())
        let first = logInGraph(script: live)
        _ = try await withDeadline(10, "run #1") { await store.dispatch(first.graph).wait() }
        store.dispatch(AddPost(post: Post(id: 3, text: "middle"), at: 1))
        store.dispatch(Tag(name: "swift", count: 2))

        let second = logInGraph(script: LogInScript(hangs: true))
        let run = store.dispatch(second.graph)
        _ = try await withDeadline(10, "run #2's SignedIn") { await run.outcome(of: second.signedIn) }
        run.cancel()
        _ = try await withDeadline(10, "run #2") { await run.wait() }
        store.dispatch(Nothing())
        return inspector.recording
    }
}

/// What the calls of ``InspectorApp/logInGraph(script:)`` do while a real store is recorded.
///
/// Answering: the profile at once, the ads fail at once, the feed fails its first call and answers
/// its second once the ends of the profile and the ads were delivered to ``observe(_:)``; with
/// `adsFirst`, the profile (or the ads) also waits until the other one's end was delivered. Hanging:
/// every call waits until its task is cancelled.
final class LogInScript: Sendable {
    let hangs: Bool
    let adsFirst: Bool?
    private let feedCalls = LockedValue(0)
    private let ended = LockedValue<Set<String>>([])
    private let feedGate = CallGate()
    private let profileEnded = CallGate()
    private let adsEnded = CallGate()
    private let never = CallGate()

    init(hangs: Bool, adsFirst: Bool? = nil) {
        self.hangs = hangs
        self.adsFirst = adsFirst
    }

    func profile() async throws -> InspectorApp.Profile {
        if hangs { try await never.wait() }
        if adsFirst == true { try await adsEnded.wait() }
        return InspectorApp.Profile(name: "Ada")
    }

    func ads() async throws -> [String] {
        if hangs { try await never.wait() }
        if adsFirst == false { try await profileEnded.wait() }
        throw InspectorApp.Offline()
    }

    func feed() async throws -> [InspectorApp.Post] {
        if hangs { try await never.wait() }
        let call = feedCalls.withLock { calls in
            calls += 1
            return calls
        }
        if call == 1 { throw InspectorApp.Offline() }
        try await feedGate.wait()
        return [InspectorApp.Post(id: 1, text: "hello"), InspectorApp.Post(id: 2, text: "world")]
    }

    /// Opens the feed's second call once the profile's and the ads' ends were delivered.
    func observe(_ event: StoreEvent) {
        guard case .nodeFinished(_, let node) = event else { return }
        if node.label == "LoadProfile" { profileEnded.open() }
        if node.label == "LoadAds" { adsEnded.open() }
        let both = ended.withLock { ended in
            ended.insert(node.label)
            return ended.isSuperset(of: ["LoadProfile", "LoadAds"])
        }
        if both { feedGate.open() }
    }
}

/// A one-way gate for fake calls: `wait()` returns once the gate is open, and throws
/// `CancellationError` when its task is cancelled first.
final class CallGate: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelledEarly: Set<Int> = []
    }

    private let state = LockedValue(State())

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    func wait() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    if state.isOpen { return .success(()) }
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiting[id] = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                guard let continuation = state.waiting.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil as CheckedContinuation<Void, any Error>?
                }
                return continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }
}
