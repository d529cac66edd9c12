import Foundation
import OresRedux
import OresReduxTesting
import Testing

/// The small app the graph tests tell their stories with: a user logs in, the app fetches a profile
/// and a feed, and the home screen is shown; plus a probe that records what ran, in order, and gates
/// the tests open to let async actions go on.
///
/// Everything lives in this namespace so that names never clash with other test files.
enum GraphStories {
    // MARK: State, actions, store

    struct Profile: Sendable, Equatable {
        var name: String
    }

    struct Post: Sendable, Equatable {
        var title: String
    }

    struct AppState: Sendable, Equatable {
        /// Every sync action the reducer applied, by name, in order.
        var applied: [String] = []
        var total = 0
        var profile: Profile?
        var feed: [Post]?
        var banner: String?
    }

    /// A sync action that only leaves its name in `AppState.applied`.
    struct Note: Action, CustomStringConvertible {
        var text: String
        init(_ text: String) { self.text = text }
        var description: String { text }
    }

    /// A sync action that adds to `AppState.total`.
    struct Add: Action, CustomStringConvertible {
        var amount: Int
        init(_ amount: Int) { self.amount = amount }
        var description: String { "Add(\(amount))" }
    }

    struct ShowHome: Action, CustomStringConvertible {
        var profile: Profile
        var feed: [Post]
        var description: String { "ShowHome" }
    }

    struct ShowBanner: Action, CustomStringConvertible {
        var text: String
        var description: String { "ShowBanner(\(text))" }
    }

    /// An error with a reason a test can compare.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var reason: String
        init(_ reason: String) { self.reason = reason }
        var description: String { "Failure(\(reason))" }
    }

    typealias Graph = ActionGraph<AppState>

    static let reducer = Reducer<AppState> { state, action in
        state.applied.append(String(describing: action))
        switch action {
        case let add as Add: state.total += add.amount
        case let home as ShowHome:
            state.profile = home.profile
            state.feed = home.feed
        case let banner as ShowBanner: state.banner = banner.text
        default: break
        }
    }

    /// A store whose middleware records `mw <action>` in `probe` for every sync action it sees.
    static func makeStore(probe: Probe, clock: VirtualClock? = nil) -> Store<AppState> {
        let seen = Middleware<AppState> { action, _, next in
            probe.record("mw \(action)")
            next(action)
        }
        if let clock {
            return Store(
                initialState: AppState(), reducer: reducer, middleware: [seen],
                options: StoreOptions(clock: clock))
        }
        return Store(initialState: AppState(), reducer: reducer, middleware: [seen])
    }

    // MARK: Async actions

    /// An async action a test controls: it records `start <name>` when called, waits for `gate` (if
    /// any), then records `end <name>` and answers, or records `threw <name>` and throws. When its task
    /// is cancelled while it waits it records `cancelled <name>` (seen through
    /// `withTaskCancellationHandler`) and throws `CancellationError`, unless it ignores cancellation.
    struct Call<Response: Sendable>: AsyncAction {
        typealias State = AppState

        let name: String
        let probe: Probe
        var gate: Latch?
        var ignoresCancellation = false
        /// Builds the answer from the attempt number (1 for the first call of `run` with this name).
        let answer: @Sendable (_ attempt: Int) throws -> Response

        func run(_ context: ActionContext<AppState>) async throws -> Response {
            let attempt = probe.record("start \(name)")
            if let gate {
                if ignoresCancellation {
                    await withTaskCancellationHandler {
                        await gate.wait()
                    } onCancel: {
                        probe.record("cancelled \(name)")
                    }
                } else {
                    try await withTaskCancellationHandler {
                        try await gate.waitUnlessCancelled()
                    } onCancel: {
                        probe.record("cancelled \(name)")
                    }
                }
            }
            do {
                let response = try answer(attempt)
                probe.record("end \(name)")
                return response
            } catch {
                probe.record("threw \(name)")
                throw error
            }
        }
    }

    /// An async action that answers `value` (after `gate`, if given).
    static func call<R: Sendable>(
        _ name: String, _ probe: Probe, answering value: R,
        gate: Latch? = nil
    ) -> Call<R> {
        Call(name: name, probe: probe, gate: gate) { _ in value }
    }

    /// An async action that throws `Failure(name)` (after `gate`, if given).
    static func failing<R: Sendable>(
        _ name: String, _ probe: Probe, as type: R.Type = Int.self,
        gate: Latch? = nil
    ) -> Call<R> {
        Call(name: name, probe: probe, gate: gate) { _ in throw Failure(name) }
    }

    /// An async action that never answers unless cancelled.
    static func hanging<R: Sendable>(_ name: String, _ probe: Probe, as type: R.Type = Int.self) -> Call<R> {
        Call(name: name, probe: probe, gate: Latch()) { _ in throw Failure("\(name) should never answer") }
    }

    /// A keyed async action: dispatches with the same key share one call of `run`.
    struct FetchFeed: KeyedAsyncAction {
        typealias State = AppState
        let userID: Int
        let probe: Probe
        let gate: Latch
        var fails = false
        var key: Int { userID }

        func run(_ context: ActionContext<AppState>) async throws -> [Post] {
            probe.record("start FetchFeed(\(userID))")
            try await gate.waitUnlessCancelled()
            if fails { throw Failure("feed \(userID)") }
            return [Post(title: "post of \(userID)")]
        }
    }

    // MARK: Probe and latch

    /// A thread-safe event log that a test can also wait on.
    final class Probe: @unchecked Sendable {
        // @unchecked: every `var` is read and written only under `lock`.
        private let lock = NSLock()
        private var events: [String] = []
        private var counts: [String: Int] = [:]
        private var waiters: [(event: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        init() {}

        /// Appends `event`; returns how many times it has been recorded, this time included.
        @discardableResult
        func record(_ event: String) -> Int {
            record(together: [event])
        }

        /// Appends `events` at once: no reader sees some of them without the others.
        /// Returns how many times the first has been recorded, this time included.
        @discardableResult
        func record(together batch: [String]) -> Int {
            lock.lock()
            var first = 0
            for event in batch {
                events.append(event)
                let count = counts[event, default: 0] + 1
                counts[event] = count
                if first == 0 { first = count }
            }
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard counts[waiter.event, default: 0] >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            lock.unlock()
            for continuation in ready { continuation.resume() }
            return first
        }

        /// Everything recorded so far, in order.
        var log: [String] {
            lock.lock()
            defer { lock.unlock() }
            return events
        }

        func count(_ event: String) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return counts[event, default: 0]
        }

        /// The position of the first `event` in the log, if any.
        func position(of event: String) -> Int? {
            log.firstIndex(of: event)
        }

        /// Suspends until `event` has been recorded `count` times.
        func waitFor(_ event: String, count: Int = 1) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if counts[event, default: 0] >= count {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append((event, count, continuation))
                lock.unlock()
            }
        }
    }

    /// A one-shot gate: closed until `open()`, then open forever.
    /// A call that ignores cancellation: it answers when `answer` opens, then dispatches `note`
    /// through its own context (what a stale answer does when nothing drops it).
    struct StubbornCall<State: Sendable>: AsyncAction {
        let answer: Latch
        let note: any Action
        let started = Latch()
        let finished = Latch()
        func run(_ context: ActionContext<State>) async throws {
            started.open()
            await answer.wait()
            context.dispatch(note)
            finished.open()
        }
    }

    final class Latch: @unchecked Sendable {
        // @unchecked: every `var` is read and written only under `lock`.
        private let lock = NSLock()
        private var opened = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var cancellable: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        private var cancelledEarly: Set<UInt64> = []
        private var nextID: UInt64 = 0

        init() {}

        var isOpen: Bool {
            lock.lock()
            defer { lock.unlock() }
            return opened
        }

        func open() {
            lock.lock()
            opened = true
            let plain = waiters
            let throwing = Array(cancellable.values)
            waiters = []
            cancellable = [:]
            lock.unlock()
            for waiter in plain { waiter.resume() }
            for waiter in throwing { waiter.resume() }
        }

        /// Waits for `open()`, whatever happens to the waiting task.
        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if opened {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append(continuation)
                lock.unlock()
            }
        }

        /// Waits for `open()`; throws `CancellationError` as soon as the waiting task is cancelled.
        func waitUnlessCancelled() async throws {
            let id: UInt64 = {
                lock.lock()
                defer { lock.unlock() }
                nextID += 1
                return nextID
            }()
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    lock.lock()
                    if opened {
                        lock.unlock()
                        continuation.resume()
                    } else if cancelledEarly.remove(id) != nil {
                        lock.unlock()
                        continuation.resume(throwing: CancellationError())
                    } else {
                        cancellable[id] = continuation
                        lock.unlock()
                    }
                }
            } onCancel: {
                lock.lock()
                let waiter = cancellable.removeValue(forKey: id)
                if waiter == nil { cancelledEarly.insert(id) }
                lock.unlock()
                waiter?.resume(throwing: CancellationError())
            }
        }
    }

    /// A value set once from outside, read from inside actions (e.g. the run, to cancel it).
    final class Box<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `stored` is read and written only under `lock`.
        private let lock = NSLock()
        private var stored: Value?

        init(_ value: Value? = nil) { stored = value }

        var value: Value? {
            get {
                lock.lock()
                defer { lock.unlock() }
                return stored
            }
            set {
                lock.lock()
                stored = newValue
                lock.unlock()
            }
        }
    }
}
