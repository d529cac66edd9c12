/// A value described structurally, as the inspector records and shows it: a struct as its fields,
/// an enum as its case and payload, a collection as its elements, read through `Mirror`. Works for
/// any value, `Codable` or not, and never keeps the value itself.
///
/// Optionals are transparent: a present value is described as what it wraps, an absent one as
/// ``none(type:)``. Fields whose name a recording redacts are ``redacted``.
indirect enum InspectorValue: Sendable, Hashable {
    /// A string, cut at the recording's maximum length (`InspectorOptions.maximumStringLength`);
    /// `truncatedFrom` is the full length in characters when it was cut.
    case string(String, truncatedFrom: Int?)
    /// A value with no parts: a number, a Boolean, a date, an opaque type. `text` is what
    /// `String(describing:)` prints.
    case leaf(type: String, text: String)
    /// A struct, class or tuple, with its fields in declaration order.
    case structure(type: String, fields: [Field])
    /// An enum case, with its payload as fields (labels as declared, or `nil`).
    case enumCase(type: String, name: String, fields: [Field])
    /// An array or other ordered collection; a set, sorted by its elements' descriptions.
    case collection(type: String, elements: [InspectorValue])
    /// A dictionary, its entries sorted by their keys' descriptions.
    case dictionary(type: String, entries: [DictionaryEntry])
    /// An absent optional.
    case none(type: String)
    /// A value the recording was told to keep out.
    case redacted
    /// A value nested deeper than the recording describes (or part of a cycle of references).
    case truncated(type: String)

    /// A named part of a structure or an enum case's payload.
    struct Field: Sendable, Hashable {
        /// The field's name, or `nil` for an unlabeled payload or tuple element.
        var label: String?
        /// Its value.
        var value: InspectorValue
    }

    /// One key and value of a dictionary.
    struct DictionaryEntry: Sendable, Hashable {
        /// The key.
        var key: InspectorValue
        /// The value.
        var value: InspectorValue
    }

    /// Describes `value` through `Mirror`, without redaction and with the default limits.
    init(describing value: Any) {
        self = Describer(options: InspectorLimits()).describe(value, depth: 0)
    }

    /// The value's parts, in the order paths count them: fields, elements, or entries' values.
    var children: [InspectorValue] {
        switch self {
        case .structure(_, let fields), .enumCase(_, _, let fields): fields.map(\.value)
        case .collection(_, let elements): elements
        case .dictionary(_, let entries): entries.map(\.value)
        case .string, .leaf, .none, .redacted, .truncated: []
        }
    }

    /// The type name shown for the value.
    var typeName: String {
        switch self {
        case .string: "String"
        case .leaf(let type, _), .structure(let type, _), .enumCase(let type, _, _), .collection(let type, _),
            .dictionary(let type, _), .none(let type), .truncated(let type):
            type
        case .redacted: "redacted"
        }
    }

    /// One line for a person, in Swift-like syntax: `Profile(name: "Ada")`, `[1, 2]`, `nil`.
    var summary: String {
        var text = ""
        write(into: &text, budget: 4_096)
        return text
    }

    private func write(into text: inout String, budget: Int) {
        if text.utf8.count > budget {
            return
        }
        switch self {
        case .string(let string, let truncatedFrom):
            text += SwiftLiteral.string(string.utf8.count > budget ? String(string.prefix(budget)) + "…" : string)
            if let truncatedFrom { text += " /* \(truncatedFrom) characters, cut */" }
        case .leaf(_, let leafText): text += leafText
        case .structure(let type, let fields):
            text += type.hasPrefix("(") ? "" : type
            Self.write(fields, into: &text, budget: budget)
        case .enumCase(_, let name, let fields):
            text += "." + name
            if !fields.isEmpty { Self.write(fields, into: &text, budget: budget) }
        case .collection(_, let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += ", " }
                if text.utf8.count > budget {
                    text += "…"
                    break
                }
                element.write(into: &text, budget: budget)
            }
            text += "]"
        case .dictionary(_, let entries):
            text += entries.isEmpty ? "[:" : "["
            for (index, entry) in entries.enumerated() {
                if index > 0 { text += ", " }
                if text.utf8.count > budget {
                    text += "…"
                    break
                }
                entry.key.write(into: &text, budget: budget)
                text += ": "
                entry.value.write(into: &text, budget: budget)
            }
            text += "]"
        case .none: text += "nil"
        case .redacted: text += "<redacted>"
        case .truncated(let type): text += "\(type)(…)"
        }
    }

    private static func write(_ fields: [Field], into text: inout String, budget: Int) {
        text += "("
        for (index, field) in fields.enumerated() {
            if index > 0 { text += ", " }
            if let label = field.label { text += label + ": " }
            field.value.write(into: &text, budget: budget)
        }
        text += ")"
    }
}

/// Reads values through `Mirror` into ``InspectorValue``s, and splits them into parts the same way
/// for the diff, so that a path means the same part in both.
struct Describer: Sendable {
    let options: InspectorLimits

    /// A value taken apart one level.
    enum Parts {
        case string(String)
        case leaf(String)
        case none
        case structure([(label: String?, value: Any)])
        case enumCase(String, [(label: String?, value: Any)])
        case collection([Any])
        case set([Any])
        case dictionary([(key: Any, value: Any)])
    }

    /// `value` with every level of `Optional` removed, and the type name to show for it.
    static func unwrapped(_ value: Any) -> (value: Any?, type: String) {
        var current = value
        while true {
            let mirror = Mirror(reflecting: current)
            guard mirror.displayStyle == .optional else { return (current, String(describing: type(of: current))) }
            guard let wrapped = mirror.children.first?.value else {
                return (nil, String(describing: type(of: current)))
            }
            current = wrapped
        }
    }

    /// `value` (not an optional) taken apart one level.
    static func parts(of value: Any) -> Parts {
        if let string = value as? String { return .string(string) }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            return .none
        case .collection:
            return .collection(mirror.children.map(\.value))
        case .set:
            return .set(mirror.children.map(\.value))
        case .dictionary:
            return .dictionary(
                mirror.children.map { child in
                    let pair = Mirror(reflecting: child.value).children.map(\.value)
                    return (key: pair.first ?? (), value: pair.count > 1 ? pair[1] : ())
                })
        case .enum:
            let text = String(describing: value)
            let name = String(text.prefix { $0 != "(" })
            guard let payload = mirror.children.first else { return .enumCase(name, []) }
            let caseName = payload.label ?? name
            let payloadMirror = Mirror(reflecting: payload.value)
            if payloadMirror.displayStyle == .tuple {
                return .enumCase(
                    caseName, payloadMirror.children.map { (label: tupleLabel($0.label), value: $0.value) })
            }
            return .enumCase(caseName, [(label: nil, value: payload.value)])
        case .struct, .class, .tuple:
            return .structure(mirror.children.map { (label: tupleLabel($0.label), value: $0.value) })
        default:
            if mirror.children.isEmpty { return .leaf(String(describing: value)) }
            return .structure(mirror.children.map { (label: tupleLabel($0.label), value: $0.value) })
        }
    }

    /// A tuple's unlabeled element comes as `.0`, `.1`: no label.
    private static func tupleLabel(_ label: String?) -> String? {
        guard let label, !label.hasPrefix(".") else { return nil }
        return label
    }

    func isRedacted(_ label: String?) -> Bool {
        guard let label else { return false }
        return options.redactedFields.contains(label)
    }

    func describe(_ value: Any, depth: Int) -> InspectorValue {
        let (unwrapped, type) = Self.unwrapped(value)
        guard let unwrapped else { return .none(type: type) }
        if depth >= options.maximumDepth { return .truncated(type: type) }
        switch Self.parts(of: unwrapped) {
        case .string(let string):
            return Self.cut(string, at: options.maximumStringLength)
        case .leaf(let text):
            return .leaf(type: type, text: text)
        case .none:
            return .none(type: type)
        case .structure(let fields):
            return .structure(type: type, fields: describe(fields, depth: depth))
        case .enumCase(let name, let fields):
            return .enumCase(type: type, name: name, fields: describe(fields, depth: depth))
        case .collection(let elements):
            return .collection(type: type, elements: elements.map { describe($0, depth: depth + 1) })
        case .set(let elements):
            return .collection(type: type, elements: sortedSet(elements, depth: depth))
        case .dictionary(let pairs):
            return .dictionary(type: type, entries: sortedEntries(pairs, depth: depth))
        }
    }

    func describe(_ fields: [(label: String?, value: Any)], depth: Int) -> [InspectorValue.Field] {
        fields.map { field in
            InspectorValue.Field(
                label: field.label, value: isRedacted(field.label) ? .redacted : describe(field.value, depth: depth + 1)
            )
        }
    }

    func sortedSet(_ elements: [Any], depth: Int) -> [InspectorValue] {
        elements.map { describe($0, depth: depth + 1) }.sorted { $0.summary < $1.summary }
    }

    func sortedEntries(_ pairs: [(key: Any, value: Any)], depth: Int) -> [InspectorValue.DictionaryEntry] {
        pairs.map { pair in
            InspectorValue.DictionaryEntry(
                key: describe(pair.key, depth: depth + 1), value: describe(pair.value, depth: depth + 1))
        }.sorted { $0.key.summary < $1.key.summary }
    }

    static func cut(_ string: String, at limit: Int) -> InspectorValue {
        guard string.count > limit else { return .string(string, truncatedFrom: nil) }
        return .string(String(string.prefix(limit)), truncatedFrom: string.count)
    }
}

/// Swift source text for literals: what a generated test writes.
enum SwiftLiteral {
    /// `text` as a Swift string literal, every character that could end or bend it escaped, and every
    /// character ``UntrustedText`` shows escaped written as `\u{XX}`.
    static func string(_ text: String) -> String {
        let escaped = TextEscaping.replacing(text) { scalar in
            scalar == "\0" ? "\\0" : TextEscaping.backslashEscape(scalar) ?? UntrustedText.escape(scalar)
        }
        return "\"" + escaped + "\""
    }
}
