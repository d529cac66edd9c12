/// JSON text written by hand, safe to embed in an HTML `<script>` element: besides what JSON
/// requires, `<`, `>`, `&`, U+2028 and U+2029 are written as `\u` escapes, so no value can close
/// the element (`</script>`), open a comment (`<!--`) or end a JavaScript line. JSON allows those
/// characters only inside strings, so escaping them there escapes them everywhere.
package struct JSONText {
    /// The text as UTF-8: appending bytes is what writing megabytes of escaped strings costs least.
    private var bytes: [UInt8] = []

    package init() {
        bytes.reserveCapacity(1 << 16)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package mutating func raw(_ literal: String) {
        bytes.append(contentsOf: literal.utf8)
    }

    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Runs of bytes that need no escape are appended whole; every cut is at an ASCII byte or at
        // the lead byte of U+2028/U+2029, so each run is whole characters' scalars.
        let utf8 = value.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            var escape: String?
            var length = 1
            switch byte {
            case 0..<0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"):
                escape = TextEscaping.jsonEscape(Unicode.Scalar(byte))
            // What JSON allows but a `<script>` element or a JavaScript line does not.
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), 0x7F:
                escape = TextEscaping.jsonUnicodeEscape(UInt32(byte))
            case 0xE2:
                let second = utf8.index(after: index)
                if second != utf8.endIndex, utf8[second] == 0x80 {
                    let third = utf8.index(after: second)
                    if third != utf8.endIndex, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                        escape = TextEscaping.jsonUnicodeEscape(utf8[third] == 0xA8 ? 0x2028 : 0x2029)
                        length = 3
                    }
                }
            default: break
            }
            if let escape {
                bytes.append(contentsOf: value.utf8[runStart..<index])
                bytes.append(contentsOf: escape.utf8)
                index = utf8.index(index, offsetBy: length)
                runStart = index
            } else {
                index = utf8.index(after: index)
            }
        }
        bytes.append(contentsOf: value.utf8[runStart..<index])
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: Int) {
        raw(String(value))
    }

    /// A duration in milliseconds, with microsecond precision.
    mutating func milliseconds(_ duration: Duration?) {
        guard let duration else { return raw("null") }
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let whole = microseconds / 1_000
        let fraction = abs(microseconds % 1_000)
        raw(fraction == 0 ? String(whole) : "\(whole).\(String(1_000 + fraction).dropFirst())")
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    mutating func optionalNumber(_ value: Int?) {
        if let value { number(value) } else { raw("null") }
    }

    /// `[a, b, ...]`, each written by `body`.
    mutating func array<Element>(_ elements: some Sequence<Element>, _ body: (inout JSONText, Element) -> Void) {
        raw("[")
        var first = true
        for element in elements {
            if !first { raw(",") }
            first = false
            body(&self, element)
        }
        raw("]")
    }

    /// `[a, b, ...]` of values of different kinds, each written by its part.
    mutating func tuple(_ parts: ((inout JSONText) -> Void)...) {
        array(parts) { json, part in part(&json) }
    }

    /// `{"key": value, ...}`, in the order given.
    mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var writer = ObjectWriter(json: self)
        bytes = []
        writer.json.raw("{")
        body(&writer)
        writer.json.raw("}")
        self = writer.json
    }

    struct ObjectWriter {
        var json: JSONText
        private var first = true

        init(json: JSONText) {
            self.json = json
        }

        mutating func field(_ key: String, _ body: (inout JSONText) -> Void) {
            if !first { json.raw(",") }
            first = false
            json.string(key)
            json.raw(":")
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
        array(fields) { json, field in json.tuple({ $0.optionalString(field.label) }, { $0.value(field.value) }) }
    }

    private mutating func entry(_ entry: InspectorValue.DictionaryEntry) {
        tuple({ $0.value(entry.key) }, { $0.value(entry.value) })
    }

    /// A patch: `["=", path, value]` replaces, `["~", path, [[at, removing, [inserted]], ...]]`
    /// splices (a dictionary's inserted entries are `[key, value]` pairs).
    mutating func patch(_ patch: InspectorPatch) {
        array(patch.edits) { json, edit in
            switch edit {
            case .replace(let path, let value):
                json.tuple({ $0.string("=") }, { $0.array(path) { $0.number($1) } }, { $0.value(value) })
            case .splice(let path, let hunks):
                json.tuple(
                    { $0.string("~") }, { $0.array(path) { $0.number($1) } },
                    { json in json.array(hunks) { json, hunk in json.hunk(hunk) } })
            }
        }
    }

    private mutating func hunk(_ hunk: InspectorPatch.Hunk) {
        tuple(
            { $0.number(hunk.at) }, { $0.number(hunk.removing) },
            { json in
                if hunk.insertingEntries.isEmpty {
                    json.array(hunk.inserting) { $0.value($1) }
                } else {
                    json.array(hunk.insertingEntries) { json, entry in json.entry(entry) }
                }
            })
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
