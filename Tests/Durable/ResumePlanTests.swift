import Foundation
import Testing

@testable import OresRedux

// The resume plan, record by record: the journal's records, today's graph and the restored marks
// in; each node's fate and the records that settle it out. No store, no journal, no task.

private let runID = "run-1"
private func key(_ node: String) -> IdempotencyKey { IdempotencyKey(runID: runID, node: node) }

private func started(_ node: String, _ attempt: Int = 1, _ rule: JournalRecord.InDoubtRule? = nil) -> JournalRecord {
    .attemptStarted(node: node, attempt: attempt, key: key(node), inDoubt: rule)
}

private func ended(_ node: String, _ end: JournalRecord.AttemptEnd, attempt: Int = 1) -> JournalRecord {
    .attemptEnded(node: node, attempt: attempt, end: end)
}

private let start = JournalRecord.runStarted(
    runID: runID, graph: "g", parameters: Data(), fingerprint: "sha256:x", instance: 1)

private struct NotDecodable: Error {}

/// An async node whose responses are `Int`s journaled as their decimal text.
private func async(
    _ label: String, _ inDoubt: JournalRecord.InDoubtRule = .rerunWithSameKey, attempts: Int = 1,
    after prerequisites: [Int] = []
) -> ResumePlan.Node {
    ResumePlan.Node(
        label: label,
        kind: .async(
            .init(
                inDoubt: inDoubt, maxAttempts: attempts,
                decode: { data in
                    guard let value = Int(String(decoding: data, as: UTF8.self)) else {
                        return .failure(.responseNotDecodable(node: label, reason: "not a number"))
                    }
                    return .success(wrapResponse(value))
                })),
        prerequisites: prerequisites)
}

private func sync(_ label: String, after prerequisites: [Int] = []) -> ResumePlan.Node {
    ResumePlan.Node(label: label, kind: .sync, prerequisites: prerequisites)
}

private func plan(
    _ records: [JournalRecord], _ nodes: [ResumePlan.Node], applied: Set<String> = [],
    fallbacksApplied: Set<String> = []
) -> ResumePlan {
    ResumePlan(records: [start] + records, nodes: nodes, applied: applied, fallbacksApplied: fallbacksApplied)
}

/// A fate, spelled for comparison.
private func spelled(_ fate: ResumePlan.Fate) -> String {
    switch fate {
    case .runs: "runs"
    case .continues(let next, let failed): "continues at \(next), \(failed) failed"
    case .replayed(.success(let value), _):
        "succeeded" + (value.map { " \(unwrapResponse($0, as: Int.self))" } ?? "")
    case .replayed(.failure(let error), let sendsFallback):
        "failed: \(error)" + (sendsFallback ? " (fallback)" : "")
    case .cancelled: "cancelled"
    case .asking(let attempt, _): "asking about \(attempt)"
    }
}

private func spelled(_ plan: ResumePlan) -> [String] { plan.fates.map(spelled) }

@Suite("Durable runs: the resume plan, record by record")
struct ResumePlanTests {
    @Test("a node never started runs as in a new run; a sync node the state holds is replayed")
    func notStarted() {
        let plan = plan([], [async("a"), sync("s", after: [0]), sync("t")], applied: ["t"])
        #expect(spelled(plan) == ["runs", "runs", "succeeded"])
        #expect(plan.endedBefore == ["t"])
        #expect(plan.settlements.isEmpty)
        #expect(plan.inDoubt.isEmpty)
    }

    @Test("a journaled response replays; one that no longer decodes fails the node, its fallback owed")
    func journaledResponses() {
        let plan = plan(
            [started("a"), ended("a", .response(Data("7".utf8))), started("b"), ended("b", .response(Data("x".utf8)))],
            [async("a"), async("b")])
        #expect(
            spelled(plan) == [
                "succeeded 7",
                "failed: \(DurableRunError.responseNotDecodable(node: "b", reason: "not a number")) (fallback)",
            ])
        #expect(plan.endedBefore == ["a", "b"])
        let resumed = plan.resumed
        #expect(resumed.endedBefore.map(\.node) == [0, 1])
    }

    @Test("a failure with attempts left continues its attempts; one out of attempts replays the failure")
    func failures() {
        let records: [JournalRecord] = [
            started("a"), ended("a", .failed(description: "offline")),
            started("b"), ended("b", .failed(description: "offline")),
            started("b", 2), ended("b", .failed(description: "still offline"), attempt: 2),
        ]
        let plan = plan(records, [async("a", attempts: 3), async("b", attempts: 2)], fallbacksApplied: ["b"])
        #expect(
            spelled(plan) == [
                "continues at 2, 1 failed",
                "failed: \(DurableRunError.failedBeforeRelaunch(node: "b", description: "still offline"))",
            ])
        #expect(plan.resumed.nextAttempt == [0: 2])
        #expect(plan.resumed.failedAttempts == [0: 1])
    }

    @Test("an attempt never called is neither a failure nor in doubt")
    func notCalled() {
        let plan = plan([started("a"), ended("a", .notCalled)], [async("a")])
        #expect(spelled(plan) == ["continues at 2, 0 failed"])
        #expect(plan.inDoubt.isEmpty)
    }

    @Test("in doubt under .failInDoubt: fails in doubt and journals it, even when today's policy reruns")
    func failInDoubtIsKept() {
        // The update that turned the node's policy into .rerunWithSameKey must not repeat the call.
        let plan = plan([started("post", 1, .failInDoubt)], [async("post", .rerunWithSameKey)])
        #expect(spelled(plan) == ["failed: \(DurableRunError.inDoubt(node: "post", key: key("post"))) (fallback)"])
        #expect(plan.inDoubt == ["post"])
        #expect(
            plan.settlements.map(\.record) == [ended("post", .failedInDoubt(key: key("post")))])
    }

    @Test("in doubt under .rerunWithSameKey: runs again, even when today's policy fails in doubt")
    func rerunIsKept() {
        let plan = plan([started("a", 1, .rerunWithSameKey)], [async("a", .failInDoubt)])
        #expect(spelled(plan) == ["continues at 2, 0 failed"])
        #expect(plan.inDoubt == ["a"])
        #expect(plan.settlements.isEmpty)
    }

    @Test("in doubt, journaled by format 1 (no policy with the attempt): today's policy settles it")
    func formatOneUsesTodaysPolicy() {
        let failing = plan([started("a")], [async("a", .failInDoubt)])
        #expect(failing.settlements.map(\.record) == [ended("a", .failedInDoubt(key: key("a")))])
        let rerunning = plan([started("a")], [async("a", .rerunWithSameKey)])
        #expect(spelled(rerunning) == ["continues at 2, 0 failed"])
    }

    @Test("a call cut off by cancellation is in doubt")
    func cancelledCallIsInDoubt() {
        let plan = plan([started("a", 1, .failInDoubt), ended("a", .cancelled)], [async("a", .failInDoubt)])
        #expect(plan.inDoubt == ["a"])
        #expect(plan.settlements.count == 1)
    }

    @Test("settled in doubt by an earlier launch: replayed, not decided or journaled again")
    func settledBefore() {
        let plan = plan(
            [started("a", 1, .failInDoubt), ended("a", .failedInDoubt(key: key("a")))], [async("a", .rerunWithSameKey)])
        #expect(spelled(plan) == ["failed: \(DurableRunError.inDoubt(node: "a", key: key("a"))) (fallback)"])
        #expect(plan.inDoubt.isEmpty)
        #expect(plan.settlements.isEmpty)
    }

    @Test("in doubt under .ask: the check is listed, and each answer settles the node")
    func ask() {
        func asking() -> ResumePlan { plan([started("a", 2, .ask)], [async("a", .ask, attempts: 3)]) }
        #expect(spelled(asking()) == ["asking about 2"])
        #expect(asking().checks.map(\.node) == [0])

        var runAgain = asking()
        runAgain.answered(0, .runAgain)
        #expect(spelled(runAgain) == ["continues at 3, 0 failed"])
        #expect(runAgain.settlements.isEmpty)

        var fail = asking()
        fail.answered(0, .fail)
        #expect(fail.settlements.map(\.record) == [ended("a", .failedInDoubt(key: key("a")), attempt: 2)])

        var succeeded = asking()
        succeeded.answered(0, .succeeded(wrapResponse(5), end: .response(Data("5".utf8))))
        #expect(spelled(succeeded) == ["succeeded 5"])
        #expect(succeeded.settlements.map(\.record) == [ended("a", .response(Data("5".utf8)), attempt: 2)])

        var threw = asking()
        threw.answered(0, .failed(DurableRunError.unknownGraph("x")))
        #expect(spelled(threw) == ["failed: \(DurableRunError.unknownGraph("x")) (fallback)"])
        #expect(threw.settlements.isEmpty)
        #expect(threw.checks.isEmpty)
    }

    @Test("each replayed end keeps its place among the journal's ends; an end settled now comes after them all")
    func replayedEndsKeepTheJournalsOrder() {
        // upload, then charge and notify side by side: notify ended first, charge was in doubt.
        let nodes = [async("upload"), async("charge", .ask, after: [0]), async("notify", after: [0])]
        let records = [
            started("upload"), ended("upload", .response(Data("1".utf8))),
            started("charge", 1, .ask), started("notify"), ended("notify", .response(Data("3".utf8))),
        ]
        var resumed = plan(records, nodes)
        resumed.answered(1, .succeeded(wrapResponse(2), end: .response(Data("2".utf8))))
        let ends = resumed.resumed.endedBefore.sorted { $0.order < $1.order }
        #expect(ends.map(\.node) == [0, 2, 1], "upload, notify (ended before the relaunch), then charge (settled now)")
    }

    @Test("in doubt under .ask, and today's graph has no check for the node: not called again")
    func askWithoutCheck() {
        let plan = plan([started("a", 1, .ask)], [async("a", .rerunWithSameKey)])
        #expect(plan.checks.isEmpty)
        #expect(plan.settlements.map(\.record) == [ended("a", .failedInDoubt(key: key("a")))])
    }

    @Test("a settlement the journal could not record fails the node with the journal's error")
    func settlementNotJournaled() {
        var plan = plan([started("a", 1, .failInDoubt)], [async("a", .failInDoubt)])
        let error = JournalError.noSpace(path: "p", reason: "full")
        plan.journalFailed(0, error)
        #expect(spelled(plan) == ["failed: \(DurableRunError.journalFailed(node: "a", error)) (fallback)"])
    }

    @Test("a cancelled run: replays what ended and was saved, applies again what it applied, cancels the rest")
    func cancelledRun() {
        let records: [JournalRecord] = [
            started("a"), ended("a", .response(Data("1".utf8))), .syncApplied(node: "s", commitCount: 3),
            .syncApplied(node: "t", commitCount: 4), started("b"), .runCancelled,
        ]
        let nodes = [
            async("a"), sync("s", after: [0]), sync("t", after: [0]), async("b", after: [0]), sync("u", after: [3]),
        ]
        let plan = plan(records, nodes, applied: ["s"])
        #expect(plan.wasCancelled)
        #expect(spelled(plan) == ["succeeded 1", "succeeded", "runs", "cancelled", "cancelled"])
        #expect(plan.endedBefore == ["a", "s"])
        #expect(plan.inDoubt.isEmpty, "nothing of a cancelled run is settled")
        #expect(plan.resumed.wasCancelled)
        #expect(plan.resumed.endedBefore.filter(\.isCancelled).map(\.node) == [3, 4])
    }
}
