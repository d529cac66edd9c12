import Foundation
import OresReduxTesting
import Testing

@testable import OresRedux

// A durable sync node's mark is numbered with the commit that first holds the node's action, so that
// a state saved at any commit carries exactly the marks of what it holds. The mark is numbered before
// the action enters the pipeline, as the store's commit count plus one: exact because the run applies
// it on the thread that holds the pipeline (no other commit can come between), `next` cannot escape a
// middleware, and what a middleware dispatches is queued behind the action. These tests hold that
// against middleware that swallows an action, dispatches before passing it on, or passes it on twice,
// with another task dispatching meanwhile.

private struct LogState: Equatable, Sendable {
    var log: [String] = []
}

private struct Swallowed: Action {}
private struct Marked: Action {}
private struct Noise: Action { let from: String }

private struct NoParameters: Codable, Sendable {}

private func name(of action: any Action) -> String {
    switch action {
    case is Swallowed: "swallowed"
    case is Marked: "marked"
    case let noise as Noise: noise.from
    default: "\(type(of: action))"
    }
}

/// Drops `Swallowed`; dispatches a `Noise` before passing `Marked` on, then passes it on twice.
private let meddling = Middleware<LogState> { action, context, next in
    switch action {
    case is Swallowed:
        return
    case is Marked:
        context.dispatch(Noise(from: "queued by the middleware"))
        next(action)
        next(action)
    default:
        next(action)
    }
}

/// What a subscriber saw at one commit: as `StatePersistence` saves it, the state with the marks the
/// store holds at that moment, and the marks numbered at or below the commit.
private struct Seen: Sendable {
    var commit: UInt64
    var log: [String]
    var marksNow: DurableMarks
    var marksUpToCommit: DurableMarks
}

private func nodes(_ marks: DurableMarks) -> Set<String> {
    Set(marks.marks.map(\.node))
}

@Suite("Durable marks ride their action's first commit")
struct DurableMarkCommitTests {
    @Test("whatever middleware does around a durable sync node, each state's marks are exactly what it holds")
    func marksMatchCommits() async throws {
        for round in 0..<20 {
            let store = Store(
                initialState: LogState(),
                reducer: Reducer { state, action in state.log.append(name(of: action)) },
                middleware: [meddling])
            let seen = LockedValue<[Seen]>([])
            let subscription = store.subscribe { state in
                let commit = store.commitCount
                let marksNow = store.durableMarks()
                let marksUpToCommit = store.durableMarks(upTo: commit)
                // A finished run's marks leave the store outside any commit, from the thread that
                // ends its journal: two readings that straddle that are not one state's marks.
                guard store.durableMarks() == marksNow else { return }
                let entry = Seen(commit: commit, log: state.log, marksNow: marksNow, marksUpToCommit: marksUpToCommit)
                seen.withLock { $0.append(entry) }
            }
            defer { subscription.cancel() }
            let durable = DurableRuns(store: store, journal: InMemoryRunJournal())
            durable.register("meddled", parameters: NoParameters.self) { _ in
                var graph = ActionGraph<LogState>()
                let swallowed = graph.send(Swallowed())
                graph.setLabel("swallowed", for: swallowed)
                graph.setLabel("marked", for: graph.send(Marked(), after: swallowed))
                graph.setLabel("last", for: graph.send(Noise(from: "last node"), after: swallowed))
                return graph
            }
            let noise = Task.detached {
                for index in 0..<50 { store.dispatch(Noise(from: "other task \(index)")) }
            }
            try await withDeadline(10, "round \(round)'s run") {
                let run = try await durable.start("meddled", runID: "run-\(round)", parameters: NoParameters())
                await run.wait()
                await noise.value
            }

            // A finished run's marks leave the store together (its journal entry is removed).
            let beforeTheRunEnded = seen.withLock { $0 }.filter { state in
                !(state.marksNow.isEmpty && state.log.contains("marked") && state.log.contains("last node"))
            }
            #expect(beforeTheRunEnded.contains { nodes($0.marksNow).contains("marked") })
            for state in beforeTheRunEnded {
                #expect(
                    state.marksUpToCommit == state.marksNow,
                    "commit \(state.commit): the marks numbered up to it are the marks its state was saved with")
                #expect(
                    nodes(state.marksNow).contains("marked") == state.log.contains("marked"),
                    "commit \(state.commit): the mark of `marked` is there exactly when its action is")
                #expect(
                    nodes(state.marksNow).contains("last") == state.log.contains("last node"),
                    "commit \(state.commit): the mark of `last` is there exactly when its action is")
                if state.log.contains("marked") || state.log.contains("last node") {
                    #expect(
                        nodes(state.marksNow).contains("swallowed"),
                        "a state after the swallowed node's dependents holds its mark (it was applied: dropped)")
                }
            }
        }
    }
}
