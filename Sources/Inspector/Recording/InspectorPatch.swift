/// What changed between two states, as edits of the described state: a recording keeps one patch
/// per step instead of a state per step, and rebuilds any state by applying them in order.
///
/// A path names a part by position, one index per level (a field, an element, a dictionary entry's
/// value). A patch's edits apply in order; an element edit inside a collection uses the collection's
/// indices before its ``InspectorPatch/Edit/splice(path:hunks:)``, which comes after them.
struct InspectorPatch: Sendable, Hashable {
    /// One edit.
    enum Edit: Sendable, Hashable {
        /// The part at `path` becomes `value`.
        case replace(path: [Int], value: InspectorValue)
        /// The collection or dictionary at `path` loses and gains elements: each hunk removes
        /// `removing` elements at `at` (an index before the edit) and inserts `inserting` there.
        /// Hunks are in increasing order of `at` and do not overlap.
        case splice(path: [Int], hunks: [Hunk])
    }

    /// Elements removed and inserted at one place of a collection.
    struct Hunk: Sendable, Hashable {
        /// Where, as an index before the splice.
        var at: Int
        /// How many elements are removed there.
        var removing: Int
        /// The elements inserted there (none for a dictionary: see `insertingEntries`).
        var inserting: [InspectorValue]
        /// For a dictionary, the entries inserted there (then ``inserting`` is empty).
        var insertingEntries: [InspectorValue.DictionaryEntry]
    }

    /// The edits, in the order they apply.
    var edits: [Edit]

    /// Whether nothing changed.
    var isEmpty: Bool { edits.isEmpty }

    /// `value` with this patch applied.
    func applied(to value: InspectorValue) -> InspectorValue {
        var result = value
        apply(to: &result)
        return result
    }

    /// Applies this patch to `value` in place: a state no one else holds is changed where the edits
    /// point, not copied whole, so walking a recording's states costs what its patches touch.
    func apply(to value: inout InspectorValue) {
        for edit in edits { Self.apply(edit, to: &value) }
    }

    private static func apply(_ edit: Edit, to root: inout InspectorValue) {
        switch edit {
        case .replace(let path, let value):
            root.update(at: path[...]) { $0 = value }
        case .splice(let path, let hunks):
            root.update(at: path[...]) { target in
                switch target {
                case .collection(let type, var elements):
                    for hunk in hunks.reversed() {
                        elements.replaceSubrange(hunk.at..<(hunk.at + hunk.removing), with: hunk.inserting)
                    }
                    target = .collection(type: type, elements: elements)
                case .dictionary(let type, var entries):
                    for hunk in hunks.reversed() {
                        entries.replaceSubrange(hunk.at..<(hunk.at + hunk.removing), with: hunk.insertingEntries)
                    }
                    target = .dictionary(type: type, entries: entries)
                default:
                    break
                }
            }
        }
    }
}

extension InspectorValue {
    /// The part at `path`, as ``update(at:_:)`` finds it; `nil` for a path that leads nowhere.
    func part(at path: ArraySlice<Int>) -> InspectorValue? {
        guard let first = path.first else { return self }
        let child: InspectorValue? =
            switch self {
            case .structure(_, let fields), .enumCase(_, _, let fields):
                fields.indices.contains(first) ? fields[first].value : nil
            case .collection(_, let elements): elements.indices.contains(first) ? elements[first] : nil
            case .dictionary(_, let entries): entries.indices.contains(first) ? entries[first].value : nil
            case .string, .leaf, .none, .redacted, .truncated: nil
            }
        return child?.part(at: path.dropFirst())
    }

    /// Changes the part at `path` with `body`; a path that leads nowhere changes nothing.
    mutating func update(at path: ArraySlice<Int>, _ body: (inout InspectorValue) -> Void) {
        guard let first = path.first else { return body(&self) }
        let rest = path.dropFirst()
        switch self {
        case .structure(let type, var fields) where fields.indices.contains(first):
            self = .redacted  // drop the reference, so the fields below are not copied
            fields[first].value.update(at: rest, body)
            self = .structure(type: type, fields: fields)
        case .enumCase(let type, let name, var fields) where fields.indices.contains(first):
            self = .redacted
            fields[first].value.update(at: rest, body)
            self = .enumCase(type: type, name: name, fields: fields)
        case .collection(let type, var elements) where elements.indices.contains(first):
            self = .redacted
            elements[first].update(at: rest, body)
            self = .collection(type: type, elements: elements)
        case .dictionary(let type, var entries) where entries.indices.contains(first):
            self = .redacted
            entries[first].value.update(at: rest, body)
            self = .dictionary(type: type, entries: entries)
        default:
            break
        }
    }
}

/// Computes the patch from one state to the next, value by value through `Mirror`: a part that is
/// `Equatable` and equal is skipped without being described, so a large state that changed in one
/// place costs little more than that place.
struct PatchBuilder {
    let describer: Describer
    /// Past this many elements on both sides of a collection's changed middle, elements are
    /// compared position by position instead of aligned (alignment costs their product).
    var alignmentLimit = 4_000_000

    func patch(from old: Any, to new: Any) -> InspectorPatch {
        var edits: [InspectorPatch.Edit] = []
        diff(old, new, path: [], depth: 0, into: &edits)
        return InspectorPatch(edits: edits)
    }

    /// `true` when both are `Equatable` and equal.
    static func knownEqual(_ old: Any, _ new: Any) -> Bool {
        guard let old = old as? any Equatable else { return false }
        return old.isEqual(toAny: new)
    }

    private func diff(_ old: Any, _ new: Any, path: [Int], depth: Int, into edits: inout [InspectorPatch.Edit]) {
        if Self.knownEqual(old, new) { return }
        let (oldValue, oldType) = Describer.unwrapped(old)
        let (newValue, newType) = Describer.unwrapped(new)
        guard let oldValue, let newValue, oldType == newType, depth < describer.options.maximumDepth else {
            replaceIfDifferent(old, new, path: path, depth: depth, into: &edits)
            return
        }
        // An array of Equatable elements: find its unchanged ends with typed comparisons, and look
        // through Mirror only at the middle, so a large array that changed in one place is cheap.
        if let ends = (oldValue as? any EquatableElements)?.commonEnds(with: newValue) {
            let oldMiddle = Self.elements(of: oldValue, dropping: ends.prefix, ends.suffix)
            let newMiddle = Self.elements(of: newValue, dropping: ends.prefix, ends.suffix)
            diffElements(oldMiddle, newMiddle, offset: ends.prefix, path: path, depth: depth, into: &edits)
            return
        }
        switch (Describer.parts(of: oldValue), Describer.parts(of: newValue)) {
        case (.structure(let oldFields), .structure(let newFields)) where oldFields.count == newFields.count:
            diffFields(oldFields, newFields, path: path, depth: depth, into: &edits)
        case (.enumCase(let oldName, let oldFields), .enumCase(let newName, let newFields))
        where oldName == newName && oldFields.count == newFields.count:
            diffFields(oldFields, newFields, path: path, depth: depth, into: &edits)
        case (.collection(let oldElements), .collection(let newElements)):
            diffElements(oldElements, newElements, path: path, depth: depth, into: &edits)
        case (.set(let oldElements), .set(let newElements)):
            diffSorted(
                describer.sortedSet(oldElements, depth: depth), describer.sortedSet(newElements, depth: depth),
                path: path, into: &edits)
        case (.dictionary(let oldPairs), .dictionary(let newPairs)):
            diffEntries(
                describer.sortedEntries(oldPairs, depth: depth), describer.sortedEntries(newPairs, depth: depth),
                path: path, into: &edits)
        default:
            replaceIfDifferent(old, new, path: path, depth: depth, into: &edits)
        }
    }

    private func replaceIfDifferent(
        _ old: Any, _ new: Any, path: [Int], depth: Int, into edits: inout [InspectorPatch.Edit]
    ) {
        let newValue = describer.describe(new, depth: depth)
        if describer.describe(old, depth: depth) != newValue {
            edits.append(.replace(path: path, value: newValue))
        }
    }

    private func diffFields(
        _ old: [(label: String?, value: Any)], _ new: [(label: String?, value: Any)], path: [Int], depth: Int,
        into edits: inout [InspectorPatch.Edit]
    ) {
        for index in old.indices where !describer.isRedacted(old[index].label) {
            diff(old[index].value, new[index].value, path: path + [index], depth: depth + 1, into: &edits)
        }
    }

    /// A collection's elements through `Mirror`, without the first `prefix` and last `suffix`.
    private static func elements(of collection: Any, dropping prefix: Int, _ suffix: Int) -> [Any] {
        let children = Mirror(reflecting: collection).children
        return children.dropFirst(prefix).dropLast(suffix).map(\.value)
    }

    /// Aligns the elements (common ends first, then the longest common subsequence of the middle),
    /// diffs the elements paired as changed, and splices in what was removed and inserted. The
    /// elements given are the collection's from index `offset` on (its unchanged start left out).
    private func diffElements(
        _ old: [Any], _ new: [Any], offset: Int = 0, path: [Int], depth: Int,
        into edits: inout [InspectorPatch.Edit]
    ) {
        var cache: [Int: InspectorValue] = [:]
        func same(_ i: Int, _ j: Int) -> Bool {
            if Self.knownEqual(old[i], new[j]) { return true }
            if old[i] as? any Equatable != nil { return false }
            let a = cache[i] ?? describer.describe(old[i], depth: depth + 1)
            cache[i] = a
            return a == describer.describe(new[j], depth: depth + 1)
        }
        let script = Alignment.script(oldCount: old.count, newCount: new.count, limit: alignmentLimit, same: same)
        var hunks: [InspectorPatch.Hunk] = []
        for step in script {
            switch step {
            case .change(let i, let j):
                diff(old[i], new[j], path: path + [offset + i], depth: depth + 1, into: &edits)
            case .edit(let at, let removing, let inserting):
                hunks.append(
                    InspectorPatch.Hunk(
                        at: offset + at, removing: removing,
                        inserting: inserting.map { describer.describe(new[$0], depth: depth + 1) },
                        insertingEntries: []))
            }
        }
        if !hunks.isEmpty { edits.append(.splice(path: path, hunks: hunks)) }
    }

    /// Sets, already described and sorted: aligned like elements, compared as described.
    private func diffSorted(
        _ old: [InspectorValue], _ new: [InspectorValue], path: [Int], into edits: inout [InspectorPatch.Edit]
    ) {
        let script = Alignment.script(oldCount: old.count, newCount: new.count, limit: alignmentLimit) {
            old[$0] == new[$1]
        }
        var hunks: [InspectorPatch.Hunk] = []
        for step in script {
            switch step {
            case .change(let i, let j):
                if old[i] != new[j] { edits.append(.replace(path: path + [i], value: new[j])) }
            case .edit(let at, let removing, let inserting):
                hunks.append(
                    InspectorPatch.Hunk(
                        at: at, removing: removing, inserting: inserting.map { new[$0] }, insertingEntries: []))
            }
        }
        if !hunks.isEmpty { edits.append(.splice(path: path, hunks: hunks)) }
    }

    /// Dictionaries, sorted by key: entries with the same key are paired and their values compared;
    /// the others are removed or inserted.
    private func diffEntries(
        _ old: [InspectorValue.DictionaryEntry], _ new: [InspectorValue.DictionaryEntry], path: [Int],
        into edits: inout [InspectorPatch.Edit]
    ) {
        let script = Alignment.script(
            oldCount: old.count, newCount: new.count, limit: alignmentLimit, pairChanges: false, reportMatches: true
        ) { old[$0].key == new[$1].key }
        var hunks: [InspectorPatch.Hunk] = []
        for step in script {
            switch step {
            case .change(let i, let j):
                if old[i].value != new[j].value { edits.append(.replace(path: path + [i], value: new[j].value)) }
            case .edit(let at, let removing, let inserting):
                hunks.append(
                    InspectorPatch.Hunk(
                        at: at, removing: removing, inserting: [], insertingEntries: inserting.map { new[$0] }))
            }
        }
        if !hunks.isEmpty { edits.append(.splice(path: path, hunks: hunks)) }
    }
}

/// An array whose elements are `Equatable`: its unchanged ends against another array, compared
/// with the elements' own `==` (no boxing, no `Mirror`).
protocol EquatableElements {
    /// How many elements at the start and at the end are equal in both; `nil` when `other` is not
    /// an array of the same type.
    func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)?
}

extension Array: EquatableElements where Element: Equatable {
    func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)? {
        guard let other = other as? [Element] else { return nil }
        var prefix = 0
        while prefix < count, prefix < other.count, self[prefix] == other[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < count - prefix, suffix < other.count - prefix,
            self[count - 1 - suffix] == other[other.count - 1 - suffix]
        {
            suffix += 1
        }
        return (prefix, suffix)
    }
}

extension Equatable {
    fileprivate func isEqual(toAny other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

/// Lines two sequences up, element by element, as swift-custom-dump shows a collection's diff:
/// what stayed, what changed in place, what was removed and inserted.
enum Alignment {
    enum Step: Equatable {
        /// `old[i]` and `new[j]` are the same element, perhaps changed (or the same, when aligned).
        case change(Int, Int)
        /// At old index `at`, `removing` elements go and `new[inserting]` come.
        case edit(at: Int, removing: Int, inserting: Range<Int>)
    }

    /// The steps from `old` to `new`, in order: equal elements are left out, except that
    /// `change` also reports aligned pairs (the caller diffs them; equal ones give no edit).
    ///
    /// - Parameter pairChanges: pair a removed element with an inserted one in the same gap as one
    ///   changed element (for elements that keep their place but change inside).
    ///   - reportMatches: also report every matched pair as a `change` (dictionaries match entries by
    ///     key, and their values still need comparing).
    static func script(
        oldCount: Int, newCount: Int, limit: Int, pairChanges: Bool = true, reportMatches: Bool = false,
        same: (Int, Int) -> Bool
    ) -> [Step] {
        var prefix = 0
        while prefix < oldCount, prefix < newCount, same(prefix, prefix) { prefix += 1 }
        var suffix = 0
        while suffix < oldCount - prefix, suffix < newCount - prefix,
            same(oldCount - 1 - suffix, newCount - 1 - suffix)
        {
            suffix += 1
        }
        let oldMiddle = prefix..<(oldCount - suffix)
        let newMiddle = prefix..<(newCount - suffix)
        var steps: [Step] = []
        if reportMatches { steps += (0..<prefix).map { .change($0, $0) } }
        defer {
            if reportMatches { steps += (0..<suffix).reversed().map { .change(oldCount - 1 - $0, newCount - 1 - $0) } }
        }
        if oldMiddle.isEmpty && newMiddle.isEmpty { return steps }

        // Matched pairs of the middle, by the longest common subsequence (or by position when the
        // middle is too large to align).
        var matches: [(Int, Int)] = []
        if oldMiddle.count * newMiddle.count <= limit && !oldMiddle.isEmpty && !newMiddle.isEmpty {
            let width = newMiddle.count + 1
            var table = [Int32](repeating: 0, count: (oldMiddle.count + 1) * width)
            for i in stride(from: oldMiddle.count - 1, through: 0, by: -1) {
                for j in stride(from: newMiddle.count - 1, through: 0, by: -1) {
                    table[i * width + j] =
                        same(oldMiddle.lowerBound + i, newMiddle.lowerBound + j)
                        ? table[(i + 1) * width + j + 1] + 1
                        : max(table[(i + 1) * width + j], table[i * width + j + 1])
                }
            }
            var i = 0
            var j = 0
            while i < oldMiddle.count, j < newMiddle.count {
                if same(oldMiddle.lowerBound + i, newMiddle.lowerBound + j) {
                    matches.append((oldMiddle.lowerBound + i, newMiddle.lowerBound + j))
                    i += 1
                    j += 1
                } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
                    i += 1
                } else {
                    j += 1
                }
            }
        }
        matches.append((oldMiddle.upperBound, newMiddle.upperBound))

        var i = oldMiddle.lowerBound
        var j = newMiddle.lowerBound
        for (mi, mj) in matches {
            // The gap before this match: old[i..<mi] removed, new[j..<mj] inserted; pair them up.
            let paired = pairChanges ? min(mi - i, mj - j) : 0
            for k in 0..<paired { steps.append(.change(i + k, j + k)) }
            if mi - i > paired || mj - j > paired {
                steps.append(.edit(at: i + paired, removing: mi - i - paired, inserting: (j + paired)..<mj))
            }
            if reportMatches, mi < oldMiddle.upperBound { steps.append(.change(mi, mj)) }
            i = mi + 1
            j = mj + 1
        }
        return steps
    }
}
