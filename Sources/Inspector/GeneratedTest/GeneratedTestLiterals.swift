/// Recorded values as Swift source for a generated test, cut values included.
///
/// A value the test builds (the initial state, a sent or dispatched action, an answer) is written as
/// a literal; a part the recording cut is written as a stand-in that compiles, with a comment that
/// says what was cut: a string cut at `maximumStringLength` as the part kept; a value cut at
/// `maximumDepth` as its type's empty value (`0`, `false`, `""`, `[]`, `[:]`, `nil`) when the type is
/// one of the standard library's, else as a whole value of the same type recorded elsewhere. A
/// state change that holds a cut value is not asserted in that field (`notAsserting:`), with a
/// comment naming the field and the cut.
struct GeneratedTestLiterals {
    /// Why a value is not whole.
    struct Cuts: OptionSet, Hashable {
        let rawValue: Int
        static let depth = Cuts(rawValue: 1)
        static let length = Cuts(rawValue: 2)

        /// `cut at maximumDepth`, `cut at maximumStringLength`, or both.
        var reason: String {
            var limits: [String] = []
            if contains(.depth) { limits.append("maximumDepth") }
            if contains(.length) { limits.append("maximumStringLength") }
            return "cut at " + limits.joined(separator: " and ")
        }
    }

    /// A state change: assignments of the top-level fields that are asserted, and the fields that
    /// are not, with why.
    struct Change {
        var assignments: [String] = []
        var unasserted: [(field: String, reason: String)] = []
    }

    /// For each type a value was cut at, the shortest whole value of it recorded elsewhere.
    private let whole: [String: String]

    init(_ recording: InspectorRecording) {
        var values = [recording.base]
        for step in recording.steps {
            values.append(step.action)
            for edit in step.patch.edits {
                switch edit {
                case .replace(_, let value): values.append(value)
                case .splice(_, let hunks):
                    for hunk in hunks {
                        values += hunk.inserting
                        values += hunk.insertingEntries.flatMap { [$0.key, $0.value] }
                    }
                }
            }
        }
        let ends = recording.runs.flatMap { $0.nodes.compactMap(\.end) } + recording.asyncActions.compactMap(\.end)
        values += ends.flatMap { [$0.response, $0.error].compactMap { $0 } }
        values += recording.asyncActions.map(\.action)

        var cutTypes: Set<String> = []
        for value in values { Self.collectCutTypes(value, into: &cutTypes) }
        var whole: [String: String] = [:]
        if !cutTypes.isEmpty {
            let writer = GeneratedTestLiterals(whole: [:])
            for value in values {
                Self.collectWhole(value, of: cutTypes, writer: writer, into: &whole)
            }
        }
        self.whole = whole
    }

    private init(whole: [String: String]) {
        self.whole = whole
    }

    private static func collectCutTypes(_ value: InspectorValue, into types: inout Set<String>) {
        switch value {
        case .truncated(let type):
            if defaultLiteral(of: type) == nil { types.insert(type) }
        case .dictionary(_, let entries):
            for entry in entries {
                collectCutTypes(entry.key, into: &types)
                collectCutTypes(entry.value, into: &types)
            }
        default:
            for child in value.children { collectCutTypes(child, into: &types) }
        }
    }

    /// Registers every whole value of one of `types` inside `value`; returns whether `value` is whole.
    @discardableResult
    private static func collectWhole(
        _ value: InspectorValue, of types: Set<String>, writer: GeneratedTestLiterals,
        into found: inout [String: String]
    ) -> Bool {
        var isWhole: Bool
        switch value {
        case .string(_, let truncatedFrom): isWhole = truncatedFrom == nil
        case .truncated, .redacted: isWhole = false
        case .leaf, .none: isWhole = true
        case .dictionary(_, let entries):
            isWhole = true
            for entry in entries {
                let key = collectWhole(entry.key, of: types, writer: writer, into: &found)
                let value = collectWhole(entry.value, of: types, writer: writer, into: &found)
                isWhole = isWhole && key && value
            }
        case .structure, .enumCase, .collection:
            isWhole = true
            for child in value.children {
                isWhole = collectWhole(child, of: types, writer: writer, into: &found) && isWhole
            }
        }
        if isWhole, types.contains(value.typeName) {
            let literal = writer.expression(value)
            if let known = found[value.typeName], known.count <= literal.count {
                return isWhole
            }
            found[value.typeName] = literal
        }
        return isWhole
    }

    /// The empty value of a standard library type, by its name.
    static func defaultLiteral(of type: String) -> String? {
        switch type {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
            "Float", "Float16", "Float80", "CGFloat", "Decimal":
            return "0"
        case "Bool": return "false"
        case "String", "Substring": return "\"\""
        default:
            if type.hasPrefix("Optional<") { return "nil" }
            if type.hasPrefix("Dictionary<") { return "[:]" }
            if type.hasPrefix("Array<") || type.hasPrefix("ContiguousArray<") || type.hasPrefix("Set<") {
                return "[]"
            }
            return nil
        }
    }

    /// `value` as Swift source the test builds, each cut part written as a stand-in with a comment.
    func expression(_ value: InspectorValue) -> String {
        switch value {
        case .string(let string, let truncatedFrom):
            let literal = SwiftLiteral.string(string)
            guard let truncatedFrom else { return literal }
            return literal
                + " /* cut: the first \(string.count) of \(truncatedFrom) characters (maximumStringLength) */"
        case .leaf(_, let text):
            return text
        case .structure(let type, let fields):
            let arguments = fields.map { field in (field.label.map { $0 + ": " } ?? "") + expression(field.value) }
            return (type.hasPrefix("(") ? "" : type) + "(" + arguments.joined(separator: ", ") + ")"
        case .enumCase(_, let name, let fields):
            if fields.isEmpty { return "." + name }
            let arguments = fields.map { field in (field.label.map { $0 + ": " } ?? "") + expression(field.value) }
            return "." + name + "(" + arguments.joined(separator: ", ") + ")"
        case .collection(_, let elements):
            return "[" + elements.map(expression).joined(separator: ", ") + "]"
        case .dictionary(_, let entries):
            if entries.isEmpty { return "[:]" }
            return "[" + entries.map { expression($0.key) + ": " + expression($0.value) }.joined(separator: ", ") + "]"
        case .none:
            return "nil"
        case .redacted:
            return "<#redacted#>"
        case .truncated(let type):
            if let literal = Self.defaultLiteral(of: type) {
                return literal + " /* \(type) cut at maximumDepth: its empty value */"
            }
            if let literal = whole[type] {
                return literal + " /* \(type) cut at maximumDepth: one recorded elsewhere */"
            }
            return "<#\(type)#> /* cut at maximumDepth, and no whole \(type) was recorded: write one */"
        }
    }

    /// `$0.field = value` for each top-level field the patch touched (or `$0 = value` for a state
    /// that has no fields); a field whose new value is cut is left unasserted instead.
    func change(to new: InspectorValue, patch: InspectorPatch, cuts stateCuts: StateCuts) -> Change {
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
            guard !patch.isEmpty else { return Change() }
            let cuts = stateCuts.inWhole
            if !cuts.isEmpty { return Change(unasserted: [("self", cuts.reason)]) }
            return Change(assignments: ["$0 = \(expression(new))"])
        }
        var change = Change()
        for index in touched.sorted() {
            guard fields.indices.contains(index), let label = fields[index].label else { continue }
            let value = fields[index].value
            let cuts = stateCuts.inPart(index)
            if !cuts.isEmpty {
                change.unasserted.append((label, cuts.reason))
                continue
            }
            // A large array changed in a few elements: assign those elements, not the whole array.
            if case .collection(let type, let items) = value, type.hasPrefix("Array<"),
                !wholeFields.contains(index), let changed = elements[index], items.count > 16
            {
                change.assignments += Set(changed).sorted().filter { items.indices.contains($0) }.map {
                    "$0.\(label)[\($0)] = \(expression(items[$0]))"
                }
            } else {
                change.assignments.append("$0.\(label) = \(expression(value))")
            }
        }
        return change
    }
}
