extension GraphReport {
    /// `text` on one line, for the text table and the pictures: a line feed shows as `\n`, a carriage
    /// return as `\r`, a tab as `\t`, and every other control character (C0, DEL, C1, and the Unicode
    /// line and paragraph separators) as `\u{XX}`. Everything else, backslashes included, is kept as
    /// written, so `C:\Net` reads `C:\Net`.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var line = ""
        line.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            default:
                if isControl(scalar) {
                    line += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    line.unicodeScalars.append(scalar)
                }
            }
        }
        return line
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: true
        default: false
        }
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
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += backslash
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
