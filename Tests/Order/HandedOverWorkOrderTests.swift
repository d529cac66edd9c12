import OresRedux
import Testing

/// Semantics 9, with runs on other threads: a subscriber's or middleware's dispatch is applied
/// right after the current action, before any work that other threads or runs handed to the
/// applying thread meanwhile.
@Suite("Order: re-entrant dispatches before handed-over work")
struct HandedOverWorkOrderTests {
    struct Ping: AsyncAction {
        typealias State = Commits
        func run(_ context: ActionContext<Commits>) async throws {}
    }
    struct Trigger: Action { let id: Int }
    struct Echo: Action { let id: Int }
    struct Done: Action { let id: Int }

    /// Every commit, in order: what the reducer saw.
    struct Commits: Sendable {
        enum Commit: Equatable, Sendable {
            case trigger(Int), echo(Int), done(Int)

            var label: String {
                switch self {
                case .trigger(let id): "T\(id)"
                case .echo(let id): "E\(id)"
                case .done(let id): "D\(id)"
                }
            }
        }
        var log: [Commit] = []
    }

    static let reducer = Reducer<Commits> { state, action in
        switch action {
        case let trigger as Trigger: state.log.append(.trigger(trigger.id))
        case let echo as Echo: state.log.append(.echo(echo.id))
        case let done as Done: state.log.append(.done(done.id))
        default: break
        }
    }

    /// The graph: an async `Ping`; after it a sync `Trigger` and a second `Ping`; after that
    /// a sync `Done`. While one run applies its `Trigger`, the others' ends hand their sync nodes to
    /// the applying thread.
    static func graph(_ id: Int) -> ActionGraph<Commits> {
        var graph = ActionGraph<Commits>()
        let ping = graph.run(Ping())
        graph.send(Trigger(id: id), after: ping)
        let second = graph.run(Ping(), after: ping)
        graph.send(Done(id: id), after: second)
        return graph
    }

    /// Runs `runsPerTask` graphs, one after the other, on each of `tasks` concurrent tasks.
    ///
    /// How long they all take depends on the machine; the wait fails only when no commit was made
    /// for its window of pool time.
    static func runGraphs(on store: Store<Commits>, tasks: Int, runsPerTask: Int) async throws {
        let what = "\(tasks) tasks of \(runsPerTask) runs"
        try await withDeadline(10, what, progress: { store.state.log.count }) {
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for number in 0..<runsPerTask {
                            _ = await store.dispatch(Self.graph(task * 1_000_000 + number)).wait()
                        }
                    }
                }
            }
        }
    }

    /// The echoes that were not the commit right after their trigger.
    static func misplacedEchoes(in log: [Commits.Commit]) -> [String] {
        var misplaced: [String] = []
        for (index, commit) in log.enumerated() {
            guard case .echo(let id) = commit else { continue }
            if index == 0 || log[index - 1] != .trigger(id) {
                let before = log[max(0, index - 3)..<index].map(\.label).joined(separator: ", ")
                misplaced.append("echo \(id) at commit \(index), after \(before)")
            }
        }
        return misplaced
    }

    @Test("a subscriber's dispatch is the next commit, whatever other runs hand over meanwhile")
    func aSubscribersDispatchIsTheNextCommit() async throws {
        let tasks = 4
        let runsPerTask = stressCount(25_000, underThreadSanitizer: 500)
        let store = Store(initialState: Commits(), reducer: Self.reducer)
        let echo = store.subscribe { commits in
            if case .trigger(let id) = commits.log.last { store.dispatch(Echo(id: id)) }
        }
        try await Self.runGraphs(on: store, tasks: tasks, runsPerTask: runsPerTask)
        let log = store.state.log
        #expect(log.count == tasks * runsPerTask * 3)
        let misplaced = Self.misplacedEchoes(in: log)
        #expect(misplaced.isEmpty, "\(misplaced.count) echoes out of place, first: \(misplaced.prefix(2))")
        withExtendedLifetime(echo) {}
    }

    @Test("a middleware's dispatch is the next commit, whatever other runs hand over meanwhile")
    func aMiddlewaresDispatchIsTheNextCommit() async throws {
        let tasks = 4
        let runsPerTask = stressCount(2_500, underThreadSanitizer: 300)
        let echoTriggers = Middleware<Commits> { action, context, next in
            next(action)
            if let trigger = action as? Trigger { context.dispatch(Echo(id: trigger.id)) }
        }
        let store = Store(initialState: Commits(), reducer: Self.reducer, middleware: [echoTriggers])
        try await Self.runGraphs(on: store, tasks: tasks, runsPerTask: runsPerTask)
        let log = store.state.log
        #expect(log.count == tasks * runsPerTask * 3)
        let misplaced = Self.misplacedEchoes(in: log)
        #expect(misplaced.isEmpty, "\(misplaced.count) echoes out of place, first: \(misplaced.prefix(2))")
    }
}
