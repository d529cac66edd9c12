import Foundation
import OresRedux
import Testing

/// The small app the owner tests tell their stories with: a log-in screen's chain, a composer's
/// post, a presented game, and gates the tests open to let calls go on.
enum OwnerStories {
    struct GameState: Sendable, Equatable {
        var loaded: [String] = []
    }

    struct AppState: Sendable, Equatable {
        /// Every sync action the reducer applied, by name, in order.
        var applied: [String] = []
        var game: GameState?
    }

    /// A sync action that only leaves its name in `AppState.applied`.
    struct Note: Action, CustomStringConvertible {
        var text: String
        init(_ text: String) { self.text = text }
        var description: String { text }
    }

    struct OpenGame: Action {}
    struct CloseGame: Action {}
    struct GameLoaded: Action {
        var level: String
    }

    static let reducer = Reducer<AppState> { state, action in
        switch action {
        case is OpenGame: state.game = GameState()
        case is CloseGame: state.game = nil
        case let loaded as GameLoaded: state.game?.loaded.append(loaded.level)
        default: break
        }
        state.applied.append(String(describing: action))
    }

    /// A store whose diagnostics go to `diagnostics`, and whose middleware calls `onAction` first.
    static func makeStore(
        diagnostics: Recorder<StoreDiagnostic> = Recorder(),
        onAction: @escaping @Sendable (any Action) -> Void = { _ in }
    ) -> Store<AppState> {
        Store(
            initialState: AppState(), reducer: reducer,
            middleware: [
                Middleware { action, _, next in
                    onAction(action)
                    next(action)
                }
            ],
            options: StoreOptions(onDiagnostic: { diagnostics.record($0) }))
    }

    /// Values recorded from any thread, in order.
    final class Recorder<Value: Sendable>: Sendable {
        private let values = LockedValue<[Value]>([])
        init() {}
        func record(_ value: Value) { values.withLock { $0.append(value) } }
        var all: [Value] { values.withLock { $0 } }
    }

    /// A gate async calls wait at until a test opens it; a call waiting here ends with
    /// `CancellationError` when its task is cancelled. `arrived` opens when the first call arrives.
    final class Gate: Sendable {
        private struct Waiting {
            var isOpen = false
            var next = 0
            var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
            var cancelledEarly: Set<Int> = []
            var arrivals = 0
            var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
        }

        private let waiting = LockedValue(Waiting())

        init() {}

        func open() {
            let waiters = waiting.withLock { waiting in
                waiting.isOpen = true
                defer { waiting.waiters = [:] }
                return Array(waiting.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Waits until the gate is open, or throws `CancellationError` if the task is cancelled first.
        func pass() async throws {
            let id = waiting.withLock { waiting -> Int in
                waiting.next += 1
                return waiting.next
            }
            let arrived = waiting.withLock { waiting -> [CheckedContinuation<Void, Never>] in
                waiting.arrivals += 1
                defer { waiting.arrivalWaiters = [] }
                return waiting.arrivalWaiters
            }
            for waiter in arrived { waiter.resume() }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let result = waiting.withLock { waiting -> Result<Void, any Error>? in
                        if waiting.cancelledEarly.contains(id) { return .failure(CancellationError()) }
                        if waiting.isOpen { return .success(()) }
                        waiting.waiters[id] = continuation
                        return nil
                    }
                    if let result { continuation.resume(with: result) }
                }
            } onCancel: {
                let waiter = waiting.withLock { waiting -> CheckedContinuation<Void, any Error>? in
                    if let waiter = waiting.waiters.removeValue(forKey: id) { return waiter }
                    waiting.cancelledEarly.insert(id)
                    return nil
                }
                waiter?.resume(throwing: CancellationError())
            }
        }

        /// Returns once `count` calls arrived at the gate.
        func arrivals(_ count: Int) async {
            while true {
                let enough = waiting.withLock { $0.arrivals >= count }
                if enough { return }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = waiting.withLock { waiting -> Bool in
                        if waiting.arrivals >= count { return true }
                        waiting.arrivalWaiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
        }
    }

    /// An async call that waits at `gate`, then answers its name.
    struct Call<State: Sendable>: AsyncAction {
        var name: String
        var gate: Gate
        init(_ name: String, _ gate: Gate) {
            self.name = name
            self.gate = gate
        }
        func run(_ context: ActionContext<State>) async throws -> String {
            try await gate.pass()
            return name
        }
    }

    /// An async call that answers at once.
    struct Quick<State: Sendable>: AsyncAction {
        var name: String
        func run(_ context: ActionContext<State>) async throws -> String {
            await Task.yield()
            return name
        }
    }

    /// Applies `text`: the screen's own sync node.
    static func note(_ text: String) -> Note { Note(text) }
}
