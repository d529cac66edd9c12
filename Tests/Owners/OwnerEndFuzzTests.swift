import Foundation
import OresRedux
import Testing

/// Owners ended at random moments, while their runs go on and another thread dispatches, checked
/// against what the policies promise: every run ends; nothing cancelled is ever applied; a screen's
/// sync node applies after the end returned only if it was being applied at that moment (one per
/// run at most); what finishes with its dependents is applied in the usual order; the graph's
/// cancel action is applied once, as the run's last action, when the end cancelled part of a run
/// that had started, and never otherwise (an end before the start sends none; nor does an end
/// that found only the node being applied left, which completes).
@Suite("Owners ended at random moments")
struct OwnerEndFuzzTests {
    typealias AppState = OwnerStories.AppState
    typealias Note = OwnerStories.Note
    typealias Quick = OwnerStories.Quick<AppState>

    /// One run's nodes (the `index`th its owner dispatched): a screen's chain (a, b), a kept answer (c, its screen node d), a post and
    /// the list that learns of it (e, f).
    struct Chains {
        let run: GraphRun<AppState>
        let owner: Int
        let index: Int
        let a: Node<String>, b: Node<Void>, c: Node<String>, d: Node<Void>, e: Node<String>, f: Node<Void>
    }

    static func graph(owner: Int, run: Int) -> (ActionGraph<AppState>, (GraphRun<AppState>) -> Chains) {
        var graph = ActionGraph<AppState>()
        let tag = "o\(owner) r\(run)"
        let a = graph.run(Quick(name: "a"))
        let b = graph.send(after: a) { _ in Note("b \(tag)") }
        let c = graph.run(Quick(name: "c"))
        let d = graph.send(after: c) { _ in Note("d \(tag)") }
        let e = graph.run(Quick(name: "e"))
        let f = graph.send(after: e) { _ in Note("f \(tag)") }
        graph.setOwnerEndPolicy(.finish, for: c)
        graph.setOwnerEndPolicy(.finishWithDependents, for: e)
        graph.setCancelAction(Note("cancel \(tag)"))
        return (graph, { Chains(run: $0, owner: owner, index: run, a: a, b: b, c: c, d: d, e: e, f: f) })
    }

    @Test("every run ends, nothing cancelled applies, what outlives its owner applies in order", arguments: 0..<4)
    func ownersEndedAtRandom(seed: UInt64) async throws {
        for round in 0..<8 {
            var random = SplitMix64(seed: seed &* 1000 &+ UInt64(round))
            let sequence = LockedValue(0)
            let applied = LockedValue<[String: Int]>([:])
            let appliedCount = LockedValue<[String: Int]>([:])
            let store = OwnerStories.makeStore(onAction: { action in
                guard let note = action as? Note else { return }
                let at = sequence.withLock {
                    $0 += 1; return $0
                }
                applied.withLock { $0[note.text] = at }
                appliedCount.withLock { $0[note.text, default: 0] += 1 }
            })
            let ownerCount = 3
            let owners = (0..<ownerCount).map { store.makeOwner("Screen \($0)") }
            let endedAt = LockedValue<[Int: Int]>([:])
            let yields = (0..<ownerCount).map { _ in Int(random.next() % 12) }

            async let noise: Void = onThread {
                for index in 0..<200 { store.dispatch(Note("noise \(index)")) }
            }
            async let chains: [Chains] = withTaskGroup(of: [Chains].self) { group in
                for owner in 0..<ownerCount {
                    group.addTask {
                        (0..<3).map { run in
                            let (graph, chains) = Self.graph(owner: owner, run: run)
                            return chains(owners[owner].dispatch(graph))
                        }
                    }
                    group.addTask {
                        for _ in 0..<yields[owner] { await Task.yield() }
                        owners[owner].end()
                        let at = sequence.withLock {
                            $0 += 1; return $0
                        }
                        endedAt.withLock { $0[owner] = at }
                        return []
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            let runs = await chains
            await noise
            let reports = try await withDeadline(10, "every run of round \(round)") {
                var reports: [GraphReport] = []
                for chain in runs { reports.append(await chain.run.wait()) }
                return reports
            }

            let appliedAt = applied.withLock { $0 }
            let counts = appliedCount.withLock { $0 }
            let ends = endedAt.withLock { $0 }
            for (chain, report) in zip(runs, reports) {
                let tag = "o\(chain.owner) r\(chain.index)"
                let end = ends[chain.owner]!
                for (node, text) in [(chain.b.index, "b"), (chain.d.index, "d"), (chain.f.index, "f")] {
                    let at = appliedAt["\(text) \(tag)"]
                    if report[node].outcome == .cancelled {
                        #expect(at == nil, "cancelled \(text) \(tag) was applied")
                    } else {
                        #expect(report[node].outcome == .succeeded && at != nil)
                    }
                }
                let late = [chain.b.index, chain.d.index].filter { node in
                    let text = node == chain.b.index ? "b" : "d"
                    return (appliedAt["\(text) \(tag)"] ?? 0) > end
                }
                #expect(late.count <= 1, "only the node in hand at the end completes after it")
                let cancelAction = counts["cancel \(tag)"]
                // Dispatched after its owner ended: refused, nothing ran.
                if report.allSatisfy({ $0.outcome == .cancelled }) {
                    #expect(cancelAction == nil, "a refused run sends no cancel action (\(tag))")
                    continue
                }
                // `a` is a root: it started with the run, unless the owner ended before the start
                // (then nothing of the run had run, and there is nothing to undo).
                let started = report[chain.a.index].start != nil
                let last = ["b", "d", "f"].compactMap { appliedAt["\($0) \(tag)"] }.max() ?? 0
                if !started {
                    #expect(cancelAction == nil, "an end before \(tag)'s start sends no cancel action")
                } else if report.contains(where: { $0.outcome == .cancelled }) {
                    #expect(cancelAction == 1, "the end cancelled part of \(tag): its cancel action, once")
                    #expect((appliedAt["cancel \(tag)"] ?? 0) > last, "the cancel action is \(tag)'s last action")
                } else {
                    // Nothing was cancelled (the end found at most the run's last sync node being
                    // applied, which completes): nothing to undo.
                    #expect(cancelAction == nil, "the end cancelled nothing of \(tag): no cancel action")
                }
                #expect(report[chain.e.index].outcome == .succeeded, "the post always finishes")
                #expect(report[chain.f.index].outcome == .succeeded, "and the list always learns of it")
                #expect(report[chain.c.index].outcome == .succeeded, "the kept answer always finishes")
            }
        }
    }
}
