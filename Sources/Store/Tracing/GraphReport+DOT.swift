extension GraphReport {
    /// The run's graph as Graphviz DOT text: `dot -Tsvg run.dot -o run.svg` draws it.
    ///
    /// ```
    /// digraph GraphRun {
    ///     node [shape=box, style="rounded,filled", fontname="Helvetica"];
    ///     n0 [label="LogIn\nsucceeded · 81.2 ms", fillcolor="#c8e6c9", color="#2e7d32", tooltip="#0 async"];
    ///     n0 -> n1;
    /// }
    /// ```
    ///
    /// Promises:
    /// - every node appears once, with id `n<index>`, a label of its label then its outcome (and its
    ///   duration and tries when known), and a tooltip with its index, kind and error;
    /// - every prerequisite edge appears once, as `n<prerequisite> -> n<dependent>;`;
    /// - each node's `fillcolor` is its outcome's: green succeeded, red failed, grey skipped, orange
    ///   cancelled, blue not finished (the same colours as ``mermaid``);
    /// - labels cannot break the file: backslashes and quotes are escaped, line breaks become spaces,
    ///   so a label always shows as written.
    public var dot: String {
        var lines = [
            "digraph GraphRun {",
            "    graph [rankdir=TB, fontname=\"Helvetica\"];",
            "    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=12];",
            "    edge [color=\"#616161\"];",
        ]
        for entry in self {
            let style = TraceStyle(entry.outcome)
            let label = Self.dotEscaped(entry.label) + "\\n" + Self.dotEscaped(entry.pictureDetail)
            var tooltip = "#\(entry.index) \(entry.kind.rawValue)"
            if let error = entry.error { tooltip += ": \(String(describing: error))" }
            lines.append("    n\(entry.index) [label=\"\(label)\", fillcolor=\"\(style.fill)\", "
                         + "color=\"\(style.stroke)\", tooltip=\"\(Self.dotEscaped(tooltip))\"];")
        }
        for entry in self {
            for prerequisite in entry.prerequisites {
                lines.append("    n\(prerequisite) -> n\(entry.index);")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` made safe inside a quoted DOT string: `\` and `"` are escaped (so Graphviz's own `\n`,
    /// `\l`, `\N` sequences cannot be triggered by a label) and control characters become spaces.
    static func dotEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            default:
                if character.unicodeScalars.allSatisfy({ $0.value < 0x20 || $0.value == 0x7F }) {
                    escaped += " "
                } else {
                    escaped.append(character)
                }
            }
        }
        return escaped
    }
}
