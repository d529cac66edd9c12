import Foundation
import OresRedux

/// Serves the inspector page of a running app on loopback, and streams to it every step as the app
/// commits it and every run's nodes as they start and end. From the page a person can pause and
/// resume recording, jump the app back to a recorded state, dispatch a recorded action again, and
/// export the recording (the offline page, or Redux DevTools' format).
///
/// Opt in, in debug builds, with one call, then make the app's store with it:
///
/// ```swift
/// #if DEBUG
/// let live = try LiveInspector<AppState>(registry: ActionCodingRegistry(Increment.self))
/// // prints: inspector: http://127.0.0.1:PORT/?token=...
/// let store = live.makeStore(initialState: AppState(), reducer: appReducer)
/// #endif
/// ```
///
/// The server listens on `127.0.0.1` only unless ``LiveInspectorOptions/address`` names another
/// address, on a port of its own choosing unless ``LiveInspectorOptions/port`` names one. Every
/// request must carry the URL's token, a random 128-bit value compared in constant time; `Host` must
/// name this server (DNS rebinding), an `Origin` must be its own, no CORS header is ever sent, and
/// ``LiveInspectorOptions`` bounds connections, request sizes, times and each page's queue. Its I/O
/// runs on a thread of its own; the app's dispatching threads only note each step and, at most once
/// per update, write a byte to wake it.
///
/// **Time travel meets runs in flight by leaving them running**: a jump replaces the state through
/// the store's pipeline (the action ``JumpedToStep``, a step of its own in the recording), and the
/// sync actions a run applies later apply on top of the jumped state, as any action would. Cancel
/// runs from the app if that is what a jump should mean.
///
/// The server stops with ``stop()`` or when the inspector is released.
public final class LiveInspector<State: Sendable>: Sendable {
    /// The page's address, with its token: `http://127.0.0.1:PORT/?token=...`. Anyone who has it
    /// can watch and drive the app: keep it to yourself.
    public let url: URL

    /// The recorder the page shows: what was recorded so far, also as an offline page.
    public let recorder: InspectorRecorder<State>

    let session: LiveSession<State>
    let server: LiveServer

    /// Starts serving the page, and prints its URL once (unless ``LiveInspectorOptions/printsURL``
    /// is false).
    /// - Parameters:
    ///   - recording: what the recorder redacts and keeps (see `InspectorOptions`).
    ///   - registry: the action types the page may dispatch again; an action is sent through its
    ///     JSON coding and back, so a step whose action type is not registered cannot be dispatched
    ///     again.
    ///   - options: where to listen, and the limits.
    /// - Throws: `LiveInspectorError.cannotListen` when the address or port cannot be bound.
    public init(
        recording: InspectorOptions<State> = InspectorOptions(),
        registry: ActionCodingRegistry = ActionCodingRegistry(),
        options: LiveInspectorOptions = LiveInspectorOptions()
    ) throws(LiveInspectorError) {
        var bytes: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 { bytes.append(generator.next()) }
        let token = bytes.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
        let recorder = InspectorRecorder<State>(options: recording)
        do {
            let waker = try LiveWaker()
            let session = LiveSession(recorder: recorder, registry: registry, options: options, waker: waker)
            let server = try LiveServer(options: options, token: token, backend: session, waker: waker)
            self.session = session
            self.server = server
        } catch {
            throw .cannotListen(String(describing: error))
        }
        self.recorder = recorder
        var host = options.address
        if host == "0.0.0.0" { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        if host.contains(":") { host = "[\(host)]" }
        url = URL(string: "http://\(host):\(server.port)/?token=\(token)")!
        server.start()
        if options.printsURL {
            // Written at once, even when standard output is a pipe, and without taking the C
            // library's stream locks (a thread blocked in readLine() holds stdin's).
            FileHandle.standardOutput.write(Data("inspector: \(url.absoluteString)\n".utf8))
        }
    }

    deinit {
        server.stop()
    }

    /// Makes a store whose every step the page shows: its reducer also applies ``JumpedToStep``
    /// (and ignores ``RecordingResumed``), the recorder's middleware is added after `middleware`,
    /// and its events go to the recorder after `options.onEvent`. The page's jumps and dispatches
    /// go to the store made last; the inspector does not keep it alive. As with the recorder, the
    /// stores are recorded one after the other: two stores dispatching at once on different threads
    /// would interleave their steps, and a jump or dispatch could pick the other store's state.
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: the app's reducer.
    ///   - middleware: the app's middleware, in order.
    ///   - options: the app's store options.
    public func makeStore(
        initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = [],
        options: StoreOptions = StoreOptions()
    ) -> Store<State> {
        let wrapped = Reducer<State> { state, action in
            if let jump = action as? JumpedToStep {
                if let jumped = jump.state as? State { state = jumped }
                return
            }
            if action is RecordingResumed { return }
            reducer(&state, action)
        }
        // The app's observer first, as the recorder would call it; then the recorder, unless paused.
        let observer = options.onEvent
        var base = options
        base.onEvent = nil
        var storeOptions = recorder.storeOptions(base)
        let recorded = storeOptions.onEvent
        let session = self.session
        storeOptions.onEvent = { event in
            observer?(event)
            if !session.kept.withLock({ $0.paused }) { recorded?(event) }
            session.waker.changed()
        }
        let store = Store(
            initialState: initialState, reducer: wrapped, middleware: middleware + [session.middleware],
            options: storeOptions)
        session.kept.withLock { kept in
            kept.store = store
            if kept.initial == nil { kept.initial = initialState }
        }
        return store
    }

    /// Whether recording is paused (from Swift or from the page).
    public var isPaused: Bool { session.kept.withLock { $0.paused } }

    /// Stops recording: the app goes on, its actions and its runs' events are not recorded.
    public func pauseRecording() {
        _ = session.setPaused(true)
    }

    /// Records again. If actions reached the reducer while paused, ``RecordingResumed`` is
    /// dispatched (on the calling thread, before this returns): its step's diff is everything they
    /// changed.
    public func resumeRecording() {
        if let (store, resumed) = session.setPaused(false) { store.dispatch(resumed) }
    }

    /// Jumps the store made last to the state after recorded step `step` (0: the first store's
    /// initial state), on the calling thread, as the page's "Jump here" does; see ``JumpedToStep``.
    /// - Throws: ``LiveInspectorError/notKept(step:oldestKept:)`` for a step older than the newest
    ///   ``LiveInspectorOptions/maximumKeptSteps``; ``LiveInspectorError/noStore`` when no store
    ///   made by ``makeStore(initialState:reducer:middleware:options:)`` is alive.
    public func jump(toStep step: Int) throws(LiveInspectorError) {
        let (store, jump) = try session.jump(toStep: step)
        store.dispatch(jump)
    }

    /// Dispatches the action of recorded step `step` again, into the store made last, on the
    /// calling thread, after a round trip through the registry's JSON coding, as the page's
    /// "Dispatch again" does.
    /// - Throws: ``LiveInspectorError/coding(_:)`` when the action's type is not registered;
    ///   ``LiveInspectorError/notKept(step:oldestKept:)``, ``LiveInspectorError/noStore`` as for
    ///   ``jump(toStep:)``.
    public func dispatchAgain(step: Int) throws(LiveInspectorError) {
        let (store, action) = try session.redispatch(step: step)
        store.dispatch(action)
    }

    /// Closes every connection and stops listening. The recorder and the stores go on.
    public func stop() {
        server.stop()
    }

    /// The server's counts, for tests.
    package var serverStatistics: LiveServerStatistics { server.currentStatistics }
}

/// Why the live inspector could not do what was asked, in a sentence for a person.
public enum LiveInspectorError: Error, Sendable, CustomStringConvertible {
    /// The server could not listen (the address is not this machine's, the port is taken...).
    case cannotListen(String)
    /// No store made by ``LiveInspector/makeStore(initialState:reducer:middleware:options:)`` is
    /// alive.
    case noStore
    /// The step's state and action are no longer kept (only the newest
    /// ``LiveInspectorOptions/maximumKeptSteps`` are), or there is no such step.
    case notKept(step: Int, oldestKept: Int?)
    /// The step's action is the inspector's own (a jump, a resume), not the app's.
    case notAnAppAction(String)
    /// The action could not go through the registry's JSON coding: usually, its type is not
    /// registered.
    case coding(ActionCodingError)

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .cannotListen(let reason): "the live inspector cannot listen: \(reason)"
        case .noStore: "no store made by the live inspector is alive"
        case .notKept(let step, let oldest):
            "step \(step) has no state and action kept: only the newest steps keep them"
                + (oldest.map { " (the oldest kept is step \($0))" } ?? "")
                + ", and a step that marks where another store begins has none"
        case .notAnAppAction(let type): "\(type) is the inspector's own action; it cannot be dispatched again"
        case .coding(let error): "the action cannot be dispatched again: \(error)"
        }
    }
}
