/// The cut values a state holds, counted in each of its top-level parts and kept up to date edit by
/// edit as a generated test walks the recording's states: whether a field the test asserts holds a
/// cut value is then known without walking the field, so a step costs what its patch touches.
struct StateCuts {
    /// How many cut values of each kind a value holds, itself, its parts and its dictionaries' keys
    /// included.
    private struct Count {
        var depth = 0
        var length = 0

        init() {}

        init(_ value: InspectorValue) {
            switch value {
            case .string(_, let truncatedFrom): length = truncatedFrom == nil ? 0 : 1
            case .truncated: depth = 1
            case .dictionary(_, let entries):
                for entry in entries {
                    add(Count(entry.key))
                    add(Count(entry.value))
                }
            case .leaf, .none, .redacted, .structure, .enumCase, .collection:
                for child in value.children { add(Count(child)) }
            }
        }

        mutating func add(_ other: Count, times sign: Int = 1) {
            depth += sign * other.depth
            length += sign * other.length
        }

        var cuts: GeneratedTestLiterals.Cuts {
            var cuts: GeneratedTestLiterals.Cuts = []
            if depth > 0 { cuts.insert(.depth) }
            if length > 0 { cuts.insert(.length) }
            return cuts
        }
    }

    private var whole = Count()
    /// One count per top-level part: a structure's fields, a collection's elements, a dictionary's
    /// values (their keys count in `whole` only).
    private var parts: [Count] = []

    init(_ state: InspectorValue) {
        recount(state)
    }

    /// Why the state is not whole (empty when it is).
    var inWhole: GeneratedTestLiterals.Cuts { whole.cuts }

    /// Why the top-level part at `index` is not whole (empty when it is, or when there is none).
    func inPart(_ index: Int) -> GeneratedTestLiterals.Cuts {
        parts.indices.contains(index) ? parts[index].cuts : []
    }

    /// Applies `patch` to `state` (the state these counts are of), counting what each edit removes
    /// and inserts.
    mutating func apply(_ patch: InspectorPatch, to state: inout InspectorValue) {
        for edit in patch.edits {
            let path: [Int]
            switch edit {
            case .replace(let editPath, _), .splice(let editPath, _): path = editPath
            }
            let change = Self.change(edit, in: state)
            InspectorPatch(edits: [edit]).apply(to: &state)
            guard let first = path.first else {
                recount(state)  // the top-level parts themselves changed
                continue
            }
            whole.add(change.inserted)
            whole.add(change.removed, times: -1)
            if parts.indices.contains(first) {
                parts[first].add(change.inserted)
                parts[first].add(change.removed, times: -1)
            }
        }
    }

    private mutating func recount(_ state: InspectorValue) {
        whole = Count(state)
        parts = state.children.map(Count.init)
    }

    /// The cut values `edit` removes from `state` and those it inserts.
    private static func change(_ edit: InspectorPatch.Edit, in state: InspectorValue) -> (
        removed: Count, inserted: Count
    ) {
        var removed = Count()
        var inserted = Count()
        switch edit {
        case .replace(let path, let value):
            guard let old = state.part(at: path[...]) else { break }  // the edit changes nothing
            removed = Count(old)
            inserted = Count(value)
        case .splice(let path, let hunks):
            switch state.part(at: path[...]) {
            case .collection(_, let elements)?:
                for hunk in hunks {
                    for element in elements[Self.range(of: hunk, in: elements.count)] { removed.add(Count(element)) }
                    for element in hunk.inserting { inserted.add(Count(element)) }
                }
            case .dictionary(_, let entries)?:
                for hunk in hunks {
                    for entry in entries[Self.range(of: hunk, in: entries.count)] {
                        removed.add(Count(entry.key))
                        removed.add(Count(entry.value))
                    }
                    for entry in hunk.insertingEntries {
                        inserted.add(Count(entry.key))
                        inserted.add(Count(entry.value))
                    }
                }
            default:
                break  // the edit changes nothing
            }
        }
        return (removed, inserted)
    }

    private static func range(of hunk: InspectorPatch.Hunk, in count: Int) -> Range<Int> {
        min(hunk.at, count)..<min(hunk.at + hunk.removing, count)
    }
}
