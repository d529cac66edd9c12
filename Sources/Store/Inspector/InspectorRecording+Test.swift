extension InspectorRecording {
    /// Swift Testing code for a `TestStore` that replays the recording: a bug seen in the inspector
    /// becomes a regression test in one paste.
    ///
    /// The test stubs every async action type with the responses (or errors) it recorded, in order;
    /// sends each step that no graph node applied, with the state change it made; dispatches each
    /// async action dispatched on its own, and each graph run (from `graph`); receives each step a
    /// graph node applied, with its state change; and ends with `finish()`. A state change is written
    /// as an assignment of each top-level field it touched. Values are written as Swift literals
    /// (`Profile(name: "Ada")`, `.loaded`, `[1, 2]`), which compile when the types have their
    /// memberwise initializers; a redacted value is written as a placeholder to fill in.
    ///
    /// A step dispatched by an async action or a subscriber (rather than by the app) is written as a
    /// `send`: change it to a `receive`.
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
        var lines = [
            "import OresRedux",
            "import OresReduxTesting",
            "import Testing",
            "",
            "@Test func \(name)() async throws {",
            "    let store = TestStore(initialState: \(initialState ?? Self.literal(base)), reducer: \(reducer))",
        ]
        lines += stubLines()

        // The app's dispatches, by the step they came after.
        var dispatches: [Int: [String]] = [:]
        for action in asyncActions {
            dispatches[action.startAt, default: []].append("store.dispatch(\(Self.literal(action.action)))")
        }
        for run in runs {
            let names = run.nodes.map(\.label)
            let line =
                graph(Int(run.id), names).map { "store.dispatch(\($0))" }
                ?? "// run #\(run.id) was dispatched here: store.dispatch(<its graph: \(names.joined(separator: ", "))>)"
            dispatches[run.startAt, default: []].append(line)
        }
        var state = base
        let firstNumber = (steps.first?.number ?? 1) - 1
        lines += dispatches[firstNumber, default: []].map { "    " + $0 }
        var size = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        var counted = lines.count
        for step in steps {
            for line in lines[counted...] { size += line.utf8.count + 1 }
            counted = lines.count
            if size > limit { return nil }
            let next = step.patch.applied(to: state)
            let update = Self.assignments(from: state, to: next, patch: step.patch)
            let head: String
            if step.startsStore {
                lines.append("    // \(step.actionType) starts here: a new TestStore would replay it from its state")
                lines += dispatches[step.number, default: []].map { "    " + $0 }
                state = next
                continue
            } else if step.origin == nil {
                head = "try store.send(\(Self.literal(step.action)))"
            } else {
                head = "try await store.receive(\(step.actionType).self)"
            }
            if update.isEmpty {
                lines.append("    \(head)")
            } else if update.count == 1, head.count + update[0].count <= 96 {  // fits a line indented by 12
                lines.append("    \(head) { \(update[0]) }")
            } else {
                lines.append("    \(head) {")
                lines += update.map { "        " + $0 }
                lines.append("    }")
            }
            lines += dispatches[step.number, default: []].map { "    " + $0 }
            state = next
        }
        lines.append("    try await store.finish()")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// One stub per async action type, with its recorded answers in order.
    private func stubLines() -> [String] {
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
                ends.append((node.end?.at ?? .max, node.typeName, node.end))
            }
        }
        for action in asyncActions { ends.append((action.end?.at ?? .max, action.name, action.end)) }
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
            return (note.map { [$0] } ?? []) + [stub(type, list)]
        }
    }

    private func stub(_ type: String, _ list: [InspectorNodeEnd]) -> String {
        if Set(list.map(Self.answer)).count == 1, let first = list.first {
            if first.outcome == .failed {
                return "    store.stub(\(type).self, throwing: \(Self.literal(first.error ?? .redacted)))"
            }
            return "    store.stub(\(type).self, with: \(first.response.map(Self.literal) ?? "()"))"
        }
        let results = list.map(Self.answer).joined(separator: ", ")
        return "    store.stub(\(type).self, sequence: [\(results)])"
    }

    private static func answer(_ end: InspectorNodeEnd) -> String {
        end.outcome == .failed
            ? ".failure(\(literal(end.error ?? .redacted)))" : ".success(\(end.response.map(literal) ?? "()"))"
    }

    /// `$0.field = value` for each top-level field the patch touched (or `$0 = value` for a state
    /// that has no fields).
    static func assignments(from old: InspectorValue, to new: InspectorValue, patch: InspectorPatch) -> [String] {
        var touched: [Int] = []
        var elements: [Int: [Int]] = [:]  // for each touched field, the elements its edits name
        var wholeFields: Set<Int> = []
        var whole = false
        for edit in patch.edits {
            let path: [Int] =
                switch edit {
                case .replace(let path, _), .splice(let path, _): path
                }
            guard let first = path.first else {
                whole = true
                continue
            }
            if !touched.contains(first) { touched.append(first) }
            if case .replace = edit, path.count > 1 {
                elements[first, default: []].append(path[1])
            } else {
                wholeFields.insert(first)  // a splice, or the field itself: assign the field
            }
        }
        guard case .structure(_, let fields) = new, !whole else {
            return patch.isEmpty ? [] : ["$0 = \(literal(new))"]
        }
        return touched.sorted().flatMap { index -> [String] in
            guard fields.indices.contains(index), let label = fields[index].label else { return [] }
            let value = fields[index].value
            // A large array changed in a few elements: assign those elements, not the whole array.
            if case .collection(let type, let items) = value, type.hasPrefix("Array<"),
                !wholeFields.contains(index), let changed = elements[index], items.count > 16
            {
                return Set(changed).sorted().filter { items.indices.contains($0) }.map {
                    "$0.\(label)[\($0)] = \(literal(items[$0]))"
                }
            }
            return ["$0.\(label) = \(literal(value))"]
        }
    }

    /// `value` as Swift source.
    static func literal(_ value: InspectorValue) -> String {
        switch value {
        case .string(let string, _):
            return SwiftLiteral.string(string)
        case .leaf(_, let text):
            return text
        case .structure(let type, let fields):
            let arguments = fields.map { field in (field.label.map { $0 + ": " } ?? "") + literal(field.value) }
            return (type.hasPrefix("(") ? "" : type) + "(" + arguments.joined(separator: ", ") + ")"
        case .enumCase(_, let name, let fields):
            if fields.isEmpty { return "." + name }
            let arguments = fields.map { field in (field.label.map { $0 + ": " } ?? "") + literal(field.value) }
            return "." + name + "(" + arguments.joined(separator: ", ") + ")"
        case .collection(_, let elements):
            return "[" + elements.map(literal).joined(separator: ", ") + "]"
        case .dictionary(_, let entries):
            if entries.isEmpty { return "[:]" }
            return "[" + entries.map { literal($0.key) + ": " + literal($0.value) }.joined(separator: ", ") + "]"
        case .none:
            return "nil"
        case .redacted:
            return "<#redacted#>"
        case .truncated(let type):
            return "<#\(type)#>"
        }
    }
}
