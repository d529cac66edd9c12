/// The order of a generated test's lines: when each step is sent or received, each async call
/// answered, each run or async action dispatched and each cancelled run cancelled.
///
/// It asserts no order the store does not promise. When no two async calls of the recording could
/// end in either order (a chain of calls, runs one after another), stubs answer every call at once:
/// each step is then released in the order the graph and the pipeline decide, which is the recorded
/// one. Otherwise every async type is held and the test answers each call itself, in the order the
/// recording saw the calls end, and receives what an answer released before it gives the next one:
/// two branches whose ends the graph does not order then end in the recorded order every time.
///
/// A run's dispatch goes where the run started: at the step count its start was delivered at, but
/// never after its own first step nor after a run or async action that started later (they are
/// numbered in the order they start), since the store may deliver a start after steps applied
/// meanwhile. A run with cancelled nodes is cancelled after the answers it got before the cancel,
/// and before the steps recorded after it.
struct GeneratedTestSchedule {
    enum Item: Equatable {
        /// The step at this index of the recording's steps.
        case step(Int)
        /// The answer at this index of ``answers``.
        case answer(Int)
        /// The run at this index of the recording's runs.
        case dispatchRun(Int)
        /// The async action at this index of the recording's async actions.
        case dispatchAction(Int)
        /// The run at this index of the recording's runs is cancelled here.
        case cancel(Int)
    }

    /// A recorded answer of an async call: a node's response or error, or an async action's.
    struct Answer {
        let type: String
        let end: InspectorNodeEnd
        /// The run and node, for a graph node.
        let run: Int?
        let node: Int?
        /// Tries of the node that failed before this answer.
        let earlierTries: Int
    }

    /// Every answer, in the order the recording saw the calls end.
    let answers: [Answer]
    /// Whether the test holds every async type and answers the calls itself (otherwise stubs do).
    let holds: Bool
    /// The async types to hold, in the order the runs' nodes and the async actions name them.
    let heldTypes: [String]
    /// The runs the test cancels.
    let cancelledRuns: Set<Int>
    /// The test's lines, in order.
    let items: [Item]

    /// A run, as a step's origin names it: its store and its number there.
    struct RunKey: Hashable {
        let store: Int
        let id: UInt64
    }

    init(_ recording: InspectorRecording) {
        let steps = recording.steps
        let runs = recording.runs
        let actions = recording.asyncActions

        // The answers, in the order the calls ended.
        var found: [Answer] = []
        for (runIndex, run) in runs.enumerated() {
            for node in run.nodes where node.kind == .async && !node.typeName.isEmpty {
                guard let end = node.end, end.outcome == .succeeded || end.outcome == .failed else { continue }
                found.append(
                    Answer(
                        type: node.typeName, end: end, run: runIndex, node: node.index,
                        earlierTries: max(0, node.attempts.count - 1)))
            }
        }
        for action in actions {
            guard let end = action.end, end.outcome == .succeeded || end.outcome == .failed else { continue }
            found.append(Answer(type: action.name, end: end, run: nil, node: nil, earlierTries: 0))
        }
        let answers = found.enumerated().sorted { ($0.element.end.seq, $0.offset) < ($1.element.end.seq, $1.offset) }
            .map(\.element)
        var answerOf: [RunKey: [Int: Int]] = [:]
        for (index, answer) in answers.enumerated() {
            guard let run = answer.run, let node = answer.node else { continue }
            answerOf[RunKey(store: runs[run].start.store, id: runs[run].start.id), default: [:]][node] = index
        }

        var heldTypes: [String] = []
        let calls = runs.flatMap { run in run.nodes.filter { $0.kind == .async }.map(\.typeName) } + actions.map(\.name)
        for type in calls where !type.isEmpty && !heldTypes.contains(type) {
            heldTypes.append(type)
        }

        // Each node's async ancestors, per run.
        let ancestors = runs.map(Self.asyncAncestors)
        var runIndex: [RunKey: Int] = [:]
        for (index, run) in runs.enumerated() { runIndex[RunKey(store: run.start.store, id: run.start.id)] = index }

        let cancelledRuns = Set(
            runs.indices.filter { runs[$0].nodes.contains { $0.end?.outcome == .cancelled } })
        let holds =
            !cancelledRuns.isEmpty || Self.anyConcurrentCalls(runs: runs, actions: actions, ancestors: ancestors)

        // What each graph step waits for: its run, the answers it needs, and the cancel.
        var stepRun: [Int?] = Array(repeating: nil, count: steps.count)
        var triggers: [[Int]] = Array(repeating: [], count: steps.count)
        var needsCancel: [Bool] = Array(repeating: false, count: steps.count)
        var firstStep: [Int: Int] = [:]
        for (index, step) in steps.enumerated() {
            guard let origin = step.origin, !step.startsStore else { continue }
            let key = RunKey(store: step.store, id: origin.run.rawValue)
            guard let run = runIndex[key] else { continue }
            stepRun[index] = run
            if firstStep[run] == nil { firstStep[run] = index }
            let answered = answerOf[key] ?? [:]
            switch origin.kind {
            case .node:
                if let node = origin.node, ancestors[run].indices.contains(node) {
                    triggers[index] = ancestors[run][node].compactMap { answered[$0] }
                }
            case .fallback:
                if let node = origin.node, ancestors[run].indices.contains(node) {
                    triggers[index] = (ancestors[run][node] + [node]).compactMap { answered[$0] }
                }
            case .cancelAction:
                needsCancel[index] = cancelledRuns.contains(run)
            }
        }

        // Where each dispatch and cancel goes: after the step with this number.
        let firstNumber = (steps.first?.number ?? 1) - 1
        let lastNumber = steps.last?.number ?? firstNumber
        func clamped(_ number: Int) -> Int { min(max(number, firstNumber), lastNumber) }
        var starts: [(store: Int, id: UInt64, item: Item, at: Int)] = []
        for (index, run) in runs.enumerated() {
            var at = run.start.at
            if let first = firstStep[index] { at = min(at, steps[first].number - 1) }
            starts.append((run.start.store, run.start.id, .dispatchRun(index), at))
        }
        for (index, action) in actions.enumerated() {
            starts.append((action.start.store, action.start.id, .dispatchAction(index), action.start.at))
        }
        starts.sort { ($0.store, $0.id) < ($1.store, $1.id) }
        var placed: [Int: [Item]] = [:]
        var startAt: [Int: Int] = [:]
        var earliestLater: (store: Int, at: Int)?
        for start in starts.reversed() {
            var at = start.at
            if let later = earliestLater, later.store == start.store { at = min(at, later.at) }
            earliestLater = (start.store, at)
            if case .dispatchRun(let run) = start.item { startAt[run] = clamped(at) }
            placed[clamped(at), default: []].insert(start.item, at: 0)
        }
        var cancelSeq: [Int: Int] = [:]
        for run in cancelledRuns.sorted() {
            let ends = runs[run].nodes.compactMap(\.end).filter { $0.outcome == .cancelled }
            cancelSeq[run] = ends.map(\.seq).min() ?? .max
            var at = ends.map(\.at).min() ?? lastNumber
            if let action = steps.indices.first(where: { stepRun[$0] == run && needsCancel[$0] }) {
                at = min(at, steps[action].number - 1)
            }
            placed[max(clamped(at), startAt[run] ?? firstNumber), default: []].append(.cancel(run))
        }

        // The walk: steps in recorded order; before a graph step, the answers it needs (the one that
        // ended last, last); before any answer, dispatch or cancel, every step already released.
        var items: [Item] = []
        var emitted = Array(repeating: false, count: steps.count)
        var answered = Array(repeating: false, count: answers.count)
        var dispatched = Array(repeating: false, count: runs.count)
        var cancelled = Array(repeating: false, count: runs.count)
        var stepsOfRun: [Int: [Int]] = [:]
        for index in steps.indices { if let run = stepRun[index] { stepsOfRun[run, default: []].append(index) } }
        var pending = Set<Int>()  // the steps of the runs dispatched so far, not yet emitted

        func released(_ index: Int) -> Bool {
            guard let run = stepRun[index], dispatched[run], !needsCancel[index] || cancelled[run] else { return false }
            return triggers[index].allSatisfy { answered[$0] }
        }
        func emit(_ index: Int) {
            emitted[index] = true
            pending.remove(index)
            items.append(.step(index))
        }
        func flush() {
            guard holds else { return }
            for index in pending.sorted() where released(index) { emit(index) }
        }
        func answer(_ index: Int) {
            guard !answered[index] else { return }
            flush()
            answered[index] = true
            items.append(.answer(index))
        }
        func cancel(_ run: Int) {
            guard !cancelled[run] else { return }
            if holds {
                for index in answers.indices
                where answers[index].run == run && answers[index].end.seq < cancelSeq[run, default: .max] {
                    answer(index)
                }
            }
            flush()
            cancelled[run] = true
            items.append(.cancel(run))
        }
        func place(after number: Int) {
            for item in placed[number] ?? [] {
                switch item {
                case .dispatchRun(let run):
                    flush()
                    dispatched[run] = true
                    pending.formUnion((stepsOfRun[run] ?? []).filter { !emitted[$0] })
                    items.append(item)
                case .dispatchAction:
                    flush()
                    items.append(item)
                case .cancel(let run):
                    cancel(run)
                case .step, .answer:
                    break
                }
            }
        }

        place(after: firstNumber)
        for (index, step) in steps.enumerated() {
            if !emitted[index] {
                if holds, let run = stepRun[index] {
                    if needsCancel[index] { cancel(run) }
                    let needed = triggers[index].filter { !answered[$0] }
                    if let last = needed.max() {
                        let others = needed.filter { $0 != last }.sorted {
                            (answers[$0].run ?? .max, answers[$0].node ?? .max) < (
                                answers[$1].run ?? .max, answers[$1].node ?? .max
                            )
                        }
                        for other in others { answer(other) }
                        answer(last)
                    }
                }
                if !emitted[index] { emit(index) }
            }
            place(after: step.number)
        }
        if holds {
            for index in answers.indices { answer(index) }
            flush()
        }

        self.answers = answers
        self.holds = holds
        self.heldTypes = holds ? heldTypes : []
        self.cancelledRuns = cancelledRuns
        self.items = items
    }

    /// For each node of `run`, the async nodes it depends on, directly or not, in index order.
    private static func asyncAncestors(of run: InspectorRun) -> [[Int]] {
        var sets: [Set<Int>] = []
        for node in run.nodes {
            var set = Set<Int>()
            for prerequisite in node.prerequisites where prerequisite < sets.count {
                set.formUnion(sets[prerequisite])
                if run.nodes[prerequisite].kind == .async { set.insert(prerequisite) }
            }
            sets.append(set)
        }
        return sets.map { $0.sorted() }
    }

    /// Whether two async calls of the recording could have ended in either order: two async nodes of
    /// one run neither of which depends on the other, or two runs or async actions (with async work)
    /// in flight at the same time.
    private static func anyConcurrentCalls(
        runs: [InspectorRun], actions: [InspectorAsyncAction], ancestors: [[[Int]]]
    ) -> Bool {
        var spans: [(start: Int, end: Int)] = []
        for (index, run) in runs.enumerated() {
            let calls = run.nodes.filter { $0.kind == .async }.map(\.index)
            guard !calls.isEmpty else { continue }
            for (position, call) in calls.enumerated() {
                for other in calls[..<position] where !ancestors[index][call].contains(other) {
                    return true  // `other` comes first by index, so it cannot depend on `call`
                }
            }
            spans.append((run.start.seq, run.finishSeq ?? .max))
        }
        for action in actions { spans.append((action.start.seq, action.end?.seq ?? .max)) }
        spans.sort { $0.start < $1.start }
        for (previous, next) in zip(spans, spans.dropFirst()) where next.start < previous.end {
            return true
        }
        return false
    }
}
