/// Text from users (labels, errors, recorded strings) as a person can trust it: every character
/// that is invisible, changes the direction of the text around it, or breaks a line is shown as an
/// escape (`\u{202E}`), so "invoice\u{202E}fdp.exe" cannot pose as "invoiceexe.pdf". The one
/// authority for which characters those are: the pictures (``GraphReport/oneLine(_:)``), the
/// generated Swift and the inspector page (its `displayText`, built from ``javaScriptClass``) all
/// escape this set.
enum UntrustedText {
    /// Invisible characters that are not in a category the set names: the combining grapheme joiner,
    /// Hangul fillers, Khmer inherent vowels and the halfwidth Hangul filler.
    static let invisible: [UInt32] = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]

    /// Whether `scalar` is shown escaped: a control character (C0, DEL, C1), a line or paragraph
    /// separator (U+2028, U+2029), a format character (Unicode category Cf: the bidi controls
    /// U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, the zero-width U+200B-U+200D, U+2060,
    /// U+FEFF, the soft hyphen, tags...), or one of ``invisible``.
    static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return true }
        if scalar.isASCII { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return invisible.contains(scalar.value)
        }
    }

    /// `text` with each character of ``mustEscape(_:)`` written as `\u{XX}` (upper-case hex), and
    /// line feeds, carriage returns and tabs as `\n`, `\r`, `\t` (kept as they are when
    /// `keepingLines`, for multi-line text such as code). Everything else is kept as written.
    static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        TextEscaping.replacing(text) { scalar in
            keepingLines && (scalar == "\n" || scalar == "\t") ? nil : escape(scalar)
        }
    }

    /// How ``escaped(_:keepingLines:)`` writes `scalar`, or `nil` when it keeps it.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        if let short = TextEscaping.lineBreakEscape(scalar) { return short }
        guard mustEscape(scalar) else { return nil }
        return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }

    /// The same set as a JavaScript regular expression character class (for a `u`-flagged
    /// expression): what the inspector page's `displayText` escapes.
    static var javaScriptClass: String {
        "[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}"
            + invisible.map { "\\u{" + String($0, radix: 16, uppercase: true) + "}" }.joined() + "]"
    }
}

extension GraphReport {
    /// `text` on one line, for the text table and the pictures: a line feed shows as `\n`, a carriage
    /// return as `\r`, a tab as `\t`, and every other character that ``UntrustedText`` escapes
    /// (controls, line and paragraph separators, bidi controls, zero-width and other invisible
    /// characters) as `\u{XX}`. Everything else, backslashes included, is kept as written, so
    /// `C:\Net` reads `C:\Net`.
    static func oneLine(_ text: String) -> String {
        UntrustedText.escaped(text)
    }

    /// `text` for a quoted DOT `label`, so that Graphviz shows it as written (after ``oneLine(_:)``).
    ///
    /// Graphviz reads a label in three passes, and each would change some text: the DOT parser ends
    /// the string at `"`; escape sequences (`\N`, `\G`, `\n`, `\l`, `\\`) are expanded; HTML entities
    /// (`&amp;`, `&quot;`, `&#92;`) are decoded. So `\` is written `\\` (one escape pass), `&` is
    /// written `&amp;` (the entity pass gives it back) and `"` is written `&quot;` (no backslash
    /// before a quote, which older DOT parsers misread after a `\\`).
    static func dotLabelEscaped(_ text: String) -> String {
        dotEscaped(oneLine(text), backslash: #"\\"#)
    }

    /// `text` for a quoted DOT `tooltip`: as ``dotLabelEscaped(_:)``, but Graphviz expands escape
    /// sequences in a tooltip twice (once when it reads it, once when it writes the image map or
    /// SVG link), so a backslash is written `\\\\`. Checked against Graphviz 2.43 (Debian 12) by
    /// `GraphPictureTests`, which renders with `dot` when it is installed.
    static func dotTooltipEscaped(_ text: String) -> String {
        dotEscaped(oneLine(text), backslash: #"\\\\"#)
    }

    private static func dotEscaped(_ text: String, backslash: String) -> String {
        TextEscaping.replacing(text) { scalar in
            scalar == "\\" ? backslash : scalar == "&" || scalar == "\"" ? TextEscaping.htmlEntity(scalar) : nil
        }
    }
}

/// What every escaper of the package shares: the walk over a text's scalars, and the escapes that
/// formats write the same. Each format keeps its own rules (which characters, written how): JSON
/// (RFC 8259 in a Chrome trace; JSON safe inside an HTML `<script>` on the inspector page), a Swift
/// string literal, HTML text, a DOT label or tooltip, a Mermaid node's text, a line for a person.
enum TextEscaping {
    /// `text` with each scalar for which `replacement` gives text written as that text, the rest kept.
    /// Text needing no escape comes back as it is.
    static func replacing(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        guard text.unicodeScalars.contains(where: { replacement($0) != nil }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if let written = replacement(scalar) {
                escaped += written
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A line feed, carriage return or tab as JSON, Swift and JavaScript write it: `\n`, `\r`, `\t`.
    static func lineBreakEscape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: nil
        }
    }

    /// A quote or backslash as JSON and Swift write it inside a string (`\"`, `\\`), or a line break
    /// as ``lineBreakEscape(_:)`` does.
    static func backslashEscape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\"": "\\\""
        case "\\": "\\\\"
        default: lineBreakEscape(scalar)
        }
    }

    /// `scalar` as JSON writes it inside a string (RFC 8259): ``backslashEscape(_:)``, every other
    /// control character below U+0020 as ``jsonUnicodeEscape(_:)``; `nil` for the rest.
    static func jsonEscape(_ scalar: Unicode.Scalar) -> String? {
        if let escape = backslashEscape(scalar) { return escape }
        return scalar.value < 0x20 ? jsonUnicodeEscape(scalar.value) : nil
    }

    /// `\u` and four lower-case hex digits: JSON's escape of a character of the Basic Multilingual Plane.
    static func jsonUnicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `scalar` as a character reference, as HTML writes it (`&quot;`, `&amp;`, `&lt;`, `&gt;`, else
    /// `&#39;`); Mermaid writes the same references with `#` for both prefixes (`#quot;`, `#35;`).
    static func htmlEntity(_ scalar: Unicode.Scalar, named: String = "&", numbered: String = "&#") -> String {
        switch scalar {
        case "\"": named + "quot;"
        case "&": named + "amp;"
        case "<": named + "lt;"
        case ">": named + "gt;"
        default: numbered + String(scalar.value) + ";"
        }
    }
}
