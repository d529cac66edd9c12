import Foundation
import OresRedux
import OresReduxTesting
import Testing

/// The attempts a resumed durable run's events report: the numbers its journal goes on with.
@Suite("Events of a resumed run")
struct ResumedRunEventStories {
    struct Uploads: Codable, Sendable { var url: String? }
    struct Draft: Codable, Sendable { var photo: String }
    struct Offline: Error {}

    /// Fails while `failing` says so, then answers.
    struct Upload: AsyncAction {
        let failing: Failing
        func run(_ context: ActionContext<Uploads>) async throws -> String {
            if failing.now { throw Offline() }
            return "https://cdn/p.jpg"
        }
    }

    final class Failing: Sendable {
        private let lock = NSLock()
        // nonisolated(unsafe): read and written only under `lock`.
        nonisolated(unsafe) private var value: Bool
        init(_ value: Bool) { self.value = value }
        var now: Bool { lock.withLock { value } }
    }

    final class Starts: Sendable {
        private let lock = NSLock()
        // nonisolated(unsafe): read and written only under `lock`.
        nonisolated(unsafe) private var attempts: [Int] = []
        func append(_ attempt: Int) { lock.withLock { attempts.append(attempt) } }
        var all: [Int] { lock.withLock { attempts } }
    }

    /// A launch: a store whose events log the upload's attempts, and its durable runs on `journal`.
    static func launch(_ journal: InMemoryRunJournal, failing: Bool) -> (DurableRuns<Uploads>, Starts, Store<Uploads>) {
        let starts = Starts()
        var options = StoreOptions()
        options.onEvent = { event in
            if case .nodeStarted(_, let start) = event, start.label == "upload" { starts.append(start.attempt) }
        }
        let store = Store(initialState: Uploads(), reducer: Reducer<Uploads>.combine(), options: options)
        let durable = DurableRuns(store: store, journal: journal)
        let upload = Upload(failing: Failing(failing))
        durable.register("upload", parameters: Draft.self) { _ in
            var graph = ActionGraph<Uploads>()
            let uploaded = graph.run(upload)
            graph.setLabel("upload", for: uploaded)
            graph.setDurable(uploaded, inDoubt: .rerunWithSameKey)
            graph.setRetry(.retry(2), for: uploaded)
            return graph
        }
        return (durable, starts, store)
    }

    @Test("a run stopped after its first attempt failed reports attempt 2 when resumed, as its journal does")
    func resumedAttemptsContinue() async throws {
        let journal = InMemoryRunJournal()
        journal.stop(at: .attemptEnded(node: "upload", attempt: 1))
        let (first, firstStarts, firstStore) = Self.launch(journal, failing: true)
        try await withDeadline(10, "the first launch") {
            let run = try await first.start("upload", runID: "u-1", parameters: Draft(photo: "p.jpg"))
            await run.wait()
            await first.flush()
        }
        #expect(journal.hasStopped)
        #expect(firstStarts.all.first == 1)
        _ = firstStore

        let (second, starts, store) = Self.launch(journal.reopened(), failing: false)
        let outcomes = try await withDeadline(10, "the resumed run") {
            let report = await second.resumeUnfinished()
            var outcomes: [OutcomeKind?] = []
            for resumed in report.resumed { outcomes.append(await resumed.run.wait()[0].outcome) }
            await second.flush()
            return outcomes
        }
        #expect(outcomes == [.succeeded])
        #expect(starts.all == [2], "the journal's attempt 1 failed: the resumed run's first attempt is 2")
        _ = store
    }
}
