/// JSON text written by hand, safe to embed in an HTML `<script>` element: besides what JSON
/// requires, `<`, `>`, `&`, U+2028 and U+2029 are written as `\u` escapes, so no value can close
/// the element (`</script>`), open a comment (`<!--`) or end a JavaScript line. JSON allows those
/// characters only inside strings, so escaping them there escapes them everywhere.
struct JSONText {
    private(set) var text = ""

    init() {
        text.reserveCapacity(1 << 16)
    }

    mutating func raw(_ literal: String) {
        text += literal
    }

    mutating func string(_ value: String) {
        text += "\""
        var run = ""  // characters that need no escape, appended at once
        for scalar in value.unicodeScalars {
            let escape: String? =
                switch scalar {
                case "\"": "\\\""
                case "\\": "\\\\"
                case "\n": "\\n"
                case "\r": "\\r"
                case "\t": "\\t"
                case "<": "\\u003c"
                case ">": "\\u003e"
                case "&": "\\u0026"
                case "\u{2028}": "\\u2028"
                case "\u{2029}": "\\u2029"
                default:
                    scalar.value < 0x20 || scalar.value == 0x7F ? Self.unicodeEscape(scalar.value) : nil
                }
            if let escape {
                text += run
                run = ""
                text += escape
            } else {
                run.unicodeScalars.append(scalar)
            }
        }
        text += run
        text += "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    mutating func number(_ value: Int) {
        text += String(value)
    }

    /// A duration in milliseconds, with microsecond precision.
    mutating func milliseconds(_ duration: Duration?) {
        guard let duration else { return raw("null") }
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let whole = microseconds / 1_000
        let fraction = abs(microseconds % 1_000)
        text += fraction == 0 ? String(whole) : "\(whole).\(String(1_000 + fraction).dropFirst())"
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    mutating func optionalNumber(_ value: Int?) {
        if let value { number(value) } else { raw("null") }
    }

    /// `[a, b, ...]`, each written by `body`.
    mutating func array<Element>(_ elements: some Sequence<Element>, _ body: (inout JSONText, Element) -> Void) {
        text += "["
        var first = true
        for element in elements {
            if !first { text += "," }
            first = false
            body(&self, element)
        }
        text += "]"
    }

    /// `{"key": value, ...}`, in the order given.
    mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var writer = ObjectWriter(json: self)
        text = ""
        writer.json.text += "{"
        body(&writer)
        writer.json.text += "}"
        self = writer.json
    }

    struct ObjectWriter {
        var json: JSONText
        private var first = true

        init(json: JSONText) {
            self.json = json
        }

        mutating func field(_ key: String, _ body: (inout JSONText) -> Void) {
            if !first { json.text += "," }
            first = false
            json.string(key)
            json.text += ":"
            body(&json)
        }
    }

    /// A described value, compactly: `["o", type, [[label, value], ...]]` and so on (the page reads
    /// it; see `InspectorPage`).
    mutating func value(_ value: InspectorValue) {
        switch value {
        case .string(let string, let truncatedFrom):
            raw("[\"s\",")
            self.string(string)
            if let truncatedFrom {
                raw(",")
                number(truncatedFrom)
            }
            raw("]")
        case .leaf(let type, let leafText):
            raw("[\"v\",")
            string(type)
            raw(",")
            string(leafText)
            raw("]")
        case .structure(let type, let fields):
            raw("[\"o\",")
            string(type)
            raw(",")
            self.fields(fields)
            raw("]")
        case .enumCase(let type, let name, let fields):
            raw("[\"e\",")
            string(type)
            raw(",")
            string(name)
            raw(",")
            self.fields(fields)
            raw("]")
        case .collection(let type, let elements):
            raw("[\"a\",")
            string(type)
            raw(",")
            array(elements) { $0.value($1) }
            raw("]")
        case .dictionary(let type, let entries):
            raw("[\"d\",")
            string(type)
            raw(",")
            array(entries) { json, entry in json.entry(entry) }
            raw("]")
        case .none(let type):
            raw("[\"n\",")
            string(type)
            raw("]")
        case .redacted:
            raw("[\"r\"]")
        case .truncated(let type):
            raw("[\"t\",")
            string(type)
            raw("]")
        }
    }

    private mutating func fields(_ fields: [InspectorValue.Field]) {
        array(fields) { json, field in
            json.raw("[")
            json.optionalString(field.label)
            json.raw(",")
            json.value(field.value)
            json.raw("]")
        }
    }

    private mutating func entry(_ entry: InspectorValue.Entry) {
        raw("[")
        value(entry.key)
        raw(",")
        value(entry.value)
        raw("]")
    }

    /// A patch: `["=", path, value]` replaces, `["~", path, [[at, removing, [inserted]], ...]]`
    /// splices (a dictionary's inserted entries are `[key, value]` pairs).
    mutating func patch(_ patch: InspectorPatch) {
        array(patch.edits) { json, edit in
            switch edit {
            case .replace(let path, let value):
                json.raw("[\"=\",")
                json.array(path) { $0.number($1) }
                json.raw(",")
                json.value(value)
                json.raw("]")
            case .splice(let path, let hunks):
                json.raw("[\"~\",")
                json.array(path) { $0.number($1) }
                json.raw(",")
                json.array(hunks) { json, hunk in
                    json.raw("[")
                    json.number(hunk.at)
                    json.raw(",")
                    json.number(hunk.removing)
                    json.raw(",")
                    if hunk.insertingEntries.isEmpty {
                        json.array(hunk.inserting) { $0.value($1) }
                    } else {
                        json.array(hunk.insertingEntries) { json, entry in json.entry(entry) }
                    }
                    json.raw("]")
                }
                json.raw("]")
            }
        }
    }

    /// A described value as plain JSON, as JavaScript tools expect a state: a structure as an
    /// object, a collection as an array, numbers and Booleans as themselves, enums as
    /// `{"case": payload}` or the case's name, other leaves as their text.
    mutating func plain(_ value: InspectorValue) {
        switch value {
        case .string(let string, _): self.string(string)
        case .leaf(let type, let leafText):
            switch type {
            case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
                "Float", "Float32", "Float64", "CGFloat":
                if Double(leafText)?.isFinite == true { raw(leafText) } else { string(leafText) }
            case "Bool": raw(leafText == "true" ? "true" : "false")
            default: string(leafText)
            }
        case .structure(let type, let fields):
            if type.hasPrefix("(") || fields.contains(where: { $0.label == nil }) {
                array(fields) { $0.plain($1.value) }
            } else {
                object { writer in
                    for field in fields { writer.field(field.label ?? "") { $0.plain(field.value) } }
                }
            }
        case .enumCase(_, let name, let fields):
            if fields.isEmpty {
                string(name)
            } else {
                object { writer in
                    writer.field(name) { json in
                        if fields.count == 1, fields[0].label == nil {
                            json.plain(fields[0].value)
                        } else {
                            json.plain(.structure(type: "", fields: fields))
                        }
                    }
                }
            }
        case .collection(_, let elements): array(elements) { $0.plain($1) }
        case .dictionary(_, let entries):
            object { writer in
                for entry in entries {
                    let key: String =
                        if case .string(let string, _) = entry.key { string } else { entry.key.summary }
                    writer.field(key) { $0.plain(entry.value) }
                }
            }
        case .none: raw("null")
        case .redacted: string("<redacted>")
        case .truncated(let type): string("\(type)(…)")
        }
    }
}
