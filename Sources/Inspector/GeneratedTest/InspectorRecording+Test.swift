extension InspectorRecording {
    /// Swift Testing code for a `TestStore` that replays the recording: a bug seen in the inspector
    /// becomes a regression test in one paste.
    ///
    /// The test sends each step that no graph node applied, with the state change it made;
    /// dispatches each async action dispatched on its own, and each graph run (from `graph`), where
    /// it started; receives each step a graph node applied, with its state change; and ends with
    /// `finish()`. A state change is written as an assignment of each top-level field it touched.
    /// Values are written as Swift literals (`Profile(name: "Ada")`, `.loaded`, `[1, 2]`), which
    /// compile when the types have their memberwise initializers; a redacted value is written as a
    /// placeholder to fill in.
    ///
    /// What it asserts, and what it does not:
    /// - **Sync nodes ready together** are received in the order they were added to the graph, as the
    ///   store promises; every other step in the order it was recorded, where that order is decided.
    /// - **Two async branches' ends are not ordered** by the graph, so the test orders them itself.
    ///   When no two async calls of the recording could end in either order (a chain, runs one after
    ///   another), each async type is stubbed with its recorded answers and answers at once;
    ///   otherwise each type is held (`store.hold`) and the test answers each call in the order the
    ///   recording saw the calls end, and receives what an answer released before it gives the next.
    ///   Calls of one type in flight together take their answers oldest call first.
    /// - **A cancelled run** is dispatched as `let runN = store.dispatch(...)`, given the answers its
    ///   calls got before the cancel, then cancelled with `runN.cancel()` where the recording saw it,
    ///   and its nodes' outcomes are asserted.
    /// - **A cut value** (past ``InspectorOptions/maximumDepth`` or
    ///   ``InspectorOptions/maximumStringLength``) that the test builds is written as a stand-in that
    ///   compiles, with a comment: a string as its part kept, another value as its type's empty value
    ///   (`0`, `""`, `[]`, `nil`) or as a whole value of its type recorded elsewhere. A state field
    ///   that holds a cut value is not asserted: it is named in `notAsserting:`, with a comment.
    /// - A node retried after failing is answered with its last answer (the recording keeps no
    ///   other), with a comment that says so.
    ///
    /// A step dispatched by an async action or a subscriber (rather than by the app) is written as a
    /// `send`: change it to a `receive`. A recording in which an inspector changed the app's state (a
    /// live inspector's jump or resumption after a pause) is replayed from after the last such step,
    /// from the state it left. The test imports `OresRedux`, `OresReduxTesting` and `Testing`; add
    /// the module that defines the app's types.
    /// - Parameters:
    ///   - name: the test function's name.
    ///   - reducer: the expression of the app's reducer.
    ///   - initialState: the expression of the state before the first step; by default the recorded
    ///     state as a literal.
    ///   - graph: the expression that builds the graph of a run, given the run's number and its
    ///     nodes' names; `nil` (the default) writes a comment where the run was dispatched.
    public func generatedTest(
        named name: String = "replaysTheRecording", reducer: String = "appReducer", initialState: String? = nil,
        graph: (_ run: Int, _ nodes: [String]) -> String? = { _, _ in nil }
    ) -> String {
        generatedTest(named: name, reducer: reducer, initialState: initialState, graph: graph, limit: .max) ?? ""
    }

    /// ``generatedTest(named:reducer:initialState:graph:)``, or `nil` as soon as it passes `limit`
    /// bytes (the page's Test tab stops there instead of writing a test it would not show).
    func generatedTest(
        named name: String = "replaysTheRecording", reducer: String = "appReducer", initialState: String? = nil,
        graph: (_ run: Int, _ nodes: [String]) -> String? = { _, _ in nil }, limit: Int
    ) -> String? {
        if let (rest, cut) = afterLastInspectorStep() {
            return rest.generatedTest(
                named: name, reducer: reducer, initialState: initialState, graph: graph, limit: limit,
                header: [
                    "    // Starts after step \(cut.number) (\(cut.actionType)), where an inspector changed the app's "
                        + "state:",
                    "    // a test cannot send that, so it replays what came after, from the state it left.",
                ])
        }
        return generatedTest(
            named: name, reducer: reducer, initialState: initialState, graph: graph, limit: limit, header: [])
    }

    /// The test of `generatedTest(named:reducer:initialState:graph:limit:)`, with `header` lines
    /// before the store is made.
    private func generatedTest(
        named name: String, reducer: String, initialState: String?,
        graph: (_ run: Int, _ nodes: [String]) -> String?, limit: Int, header: [String]
    ) -> String? {
        let literals = GeneratedTestLiterals(self)
        let schedule = GeneratedTestSchedule(self)
        let initial = initialState ?? literals.expression(base)
        var lines = ["import OresRedux", "import OresReduxTesting", "import Testing", ""]
        lines.append("@Test func \(name)() async throws {")
        lines += header
        lines.append("    let store = TestStore(initialState: \(initial), reducer: \(reducer))")
        if schedule.holds {
            lines += schedule.heldTypes.map { "    let \(Self.heldName($0)) = store.hold(\($0).self)" }
        } else {
            lines += stubLines(literals)
        }

        // Each step's state change, from the state before it in the recorded order, worked out when
        // the walk first needs it: a walk that stops at `limit` pays nothing for the steps after.
        var changes: [GeneratedTestLiterals.Change] = []
        var state = base
        var cuts = StateCuts(base)
        func change(_ index: Int) -> GeneratedTestLiterals.Change {
            while changes.count <= index {
                let patch = steps[changes.count].patch
                cuts.apply(patch, to: &state)
                changes.append(literals.change(to: state, patch: patch, cuts: cuts))
            }
            return changes[index]
        }
        let graphs = runs.map { run in graph(Int(run.start.id), run.nodes.map(\.label)) }

        var size = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        var counted = lines.count
        for item in schedule.items {
            for line in lines[counted...] { size += line.utf8.count + 1 }
            counted = lines.count
            if size > limit { return nil }
            switch item {
            case .step(let index):
                lines += stepLines(steps[index], change(index), literals)
            case .answer(let index):
                let answer = schedule.answers[index]
                if answer.earlierTries > 0 {
                    lines.append(
                        "    // \(answer.type): \(answer.earlierTries) earlier tries failed; the recording keeps each "
                            + "node's last answer only")
                }
                let held = Self.heldName(answer.type)
                if answer.end.outcome == .failed {
                    lines.append("    \(held).fail(with: \(literals.expression(answer.end.error ?? .redacted)))")
                } else {
                    lines.append("    \(held).respond(with: \(answer.end.response.map(literals.expression) ?? "()"))")
                }
            case .dispatchRun(let index):
                let run = runs[index]
                let binding = schedule.cancelledRuns.contains(index) ? "let \(Self.runName(run)) = " : ""
                if let expression = graphs[index] {
                    lines.append("    \(binding)store.dispatch(\(expression))")
                } else {
                    let names = run.nodes.map(\.label).joined(separator: ", ")
                    lines.append(
                        "    // run #\(run.start.id) was dispatched here: \(binding)store.dispatch(<its graph: \(names)>)"
                    )
                }
            case .dispatchAction(let index):
                lines.append("    store.dispatch(\(literals.expression(asyncActions[index].action)))")
            case .cancel(let index):
                let run = runs[index]
                let name = Self.runName(run)
                let outcomes = run.nodes.map { $0.end.map { "." + $0.outcome.rawValue } ?? "nil" }
                let comment = graphs[index] == nil ? "// " : ""
                lines.append("    \(comment)\(name).cancel()")
                lines.append(
                    "    \(comment)#expect(await \(name).wait().map(\\.outcome) == [\(outcomes.joined(separator: ", "))])"
                )
            }
        }
        lines.append("    try await store.finish()")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A step: a comment where another store starts, else a `send` (a step no run applied) or a
    /// `receive`, with its state change.
    private func stepLines(
        _ step: InspectorStep, _ change: GeneratedTestLiterals.Change, _ literals: GeneratedTestLiterals
    ) -> [String] {
        if step.startsStore {
            return ["    // \(step.actionType) starts here: a new TestStore would replay it from its state"]
        }
        var lines: [String] = []
        var arguments = ""
        if !change.unasserted.isEmpty {
            let fields = change.unasserted.map { "\($0.field) (\($0.reason))" }
            lines.append("    // not asserted: " + fields.joined(separator: ", "))
            arguments = ", notAsserting: [" + change.unasserted.map { "\\.\($0.field)" }.joined(separator: ", ") + "]"
        }
        let head =
            step.origin == nil
            ? "try store.send(\(literals.expression(step.action))\(arguments))"
            : "try await store.receive(\(step.actionType).self\(arguments))"
        let update = change.assignments
        if update.isEmpty {
            lines.append("    \(head)")
        } else if update.count == 1, head.count + update[0].count <= 96 {  // fits a line indented by 12
            lines.append("    \(head) { \(update[0]) }")
        } else {
            lines.append("    \(head) {")
            lines += update.map { "        " + $0 }
            lines.append("    }")
        }
        return lines
    }

    /// The name of the `HeldCalls` of `type`: `logInCalls` for `LogIn`.
    static func heldName(_ type: String) -> String {
        let name = type.filter { $0.isLetter || $0.isNumber || $0 == "_" }
        guard let first = name.first else { return "calls" }
        return first.lowercased() + name.dropFirst() + "Calls"
    }

    /// The name of a cancelled run's `GraphRun`: `run2`, or `run2InStore3` past the first store.
    static func runName(_ run: InspectorRun) -> String {
        run.start.store > 1 ? "run\(run.start.id)InStore\(run.start.store)" : "run\(run.start.id)"
    }

    /// One stub per async action type, with its recorded answers in order.
    private func stubLines(_ literals: GeneratedTestLiterals) -> [String] {
        var order: [String] = []
        var answers: [String: [InspectorNodeEnd]] = [:]
        func add(_ type: String, _ end: InspectorNodeEnd?) {
            guard let end, end.outcome == .succeeded || end.outcome == .failed, !type.isEmpty else { return }
            if answers[type] == nil { order.append(type) }
            answers[type, default: []].append(end)
        }
        var ends: [(at: Int, type: String, end: InspectorNodeEnd?)] = []
        for run in runs {
            for node in run.nodes where node.kind == .async {
                ends.append((node.end?.seq ?? .max, node.typeName, node.end))
            }
        }
        for action in asyncActions { ends.append((action.end?.seq ?? .max, action.name, action.end)) }
        for end in ends.sorted(by: { $0.at < $1.at }) { add(end.type, end.end) }

        var retried: [String: Int] = [:]
        for run in runs {
            for node in run.nodes where node.kind == .async && node.attempts.count > 1 {
                retried[node.typeName, default: 0] += node.attempts.count - 1
            }
        }
        return order.flatMap { type -> [String] in
            let list = answers[type] ?? []
            let note = retried[type].map {
                "    // \(type): \($0) earlier tries failed; the recording keeps each node's last answer only"
            }
            return (note.map { [$0] } ?? []) + [stub(type, list, literals)]
        }
    }

    private func stub(_ type: String, _ list: [InspectorNodeEnd], _ literals: GeneratedTestLiterals) -> String {
        func answer(_ end: InspectorNodeEnd) -> String {
            end.outcome == .failed
                ? ".failure(\(literals.expression(end.error ?? .redacted)))"
                : ".success(\(end.response.map(literals.expression) ?? "()"))"
        }
        if Set(list.map(answer)).count == 1, let first = list.first {
            if first.outcome == .failed {
                return "    store.stub(\(type).self, throwing: \(literals.expression(first.error ?? .redacted)))"
            }
            return "    store.stub(\(type).self, with: \(first.response.map(literals.expression) ?? "()"))"
        }
        let results = list.map(answer).joined(separator: ", ")
        return "    store.stub(\(type).self, sequence: [\(results)])"
    }
}

extension InspectorRecording {
    /// What a generated test replays of a recording in which an inspector changed the app's state
    /// (a step whose action is an ``InspectorSessionAction``: a jump, a resumption after a pause),
    /// which a test cannot send: the steps after the last such step, from the state it left. Runs and
    /// async actions that started before it are not the test's; a later step one of those runs
    /// applied is kept as a step no run applied (the test sends it). `nil` when no step is an
    /// inspector's.
    func afterLastInspectorStep() -> (recording: InspectorRecording, cut: InspectorStep)? {
        guard let last = steps.lastIndex(where: \.isInspectors) else { return nil }
        let cut = steps[last]
        var state = base
        for step in steps[...last] { step.patch.apply(to: &state) }
        func startedAfterCut(_ start: InspectorStart) -> Bool {
            (start.store, start.at) >= (cut.store, cut.number)
        }
        let keptRuns = runs.filter { startedAfterCut($0.start) }
        let keptKeys = Set(keptRuns.map { GeneratedTestSchedule.RunKey(store: $0.start.store, id: $0.start.id) })
        let rest = steps[(last + 1)...].map { step in
            var step = step
            if let origin = step.origin,
                !keptKeys.contains(GeneratedTestSchedule.RunKey(store: step.store, id: origin.run.rawValue))
            {
                step.origin = nil
            }
            return step
        }
        let recording = InspectorRecording(
            stateType: stateType, base: state, steps: rest, droppedSteps: droppedSteps + last + 1,
            maximumSteps: maximumSteps, runs: keptRuns, asyncActions: asyncActions.filter { startedAfterCut($0.start) },
            droppedRuns: droppedRuns, droppedAsyncActions: droppedAsyncActions)
        return (recording, cut)
    }
}
