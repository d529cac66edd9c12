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
    /// - labels and tooltips show as written once Graphviz has read them: its entity decoding
    ///   (`&amp;`, `&quot;`) and escape sequences (`\N`, `\G`, `\n`, `\\`) cannot change them, and
    ///   they stay on one line (a line break shows as `\n`, a tab as `\t`, another control character
    ///   as `\u{1B}`).
    public var dot: String {
        var lines = [
            "digraph GraphRun {",
            "    graph [rankdir=TB, fontname=\"Helvetica\"];",
            "    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=12];",
            "    edge [color=\"#616161\"];",
        ]
        for entry in self {
            let style = TraceStyle(entry.outcome)
            let label = Self.dotLabelEscaped(entry.label) + "\\n" + Self.dotLabelEscaped(entry.pictureDetail)
            var tooltip = "#\(entry.index) \(entry.kind.rawValue)"
            if let error = entry.error { tooltip += ": \(String(describing: error))" }
            lines.append(
                "    n\(entry.index) [label=\"\(label)\", fillcolor=\"\(style.fill)\", "
                    + "color=\"\(style.stroke)\", tooltip=\"\(Self.dotTooltipEscaped(tooltip))\"];")
        }
        for entry in self {
            for prerequisite in entry.prerequisites {
                lines.append("    n\(prerequisite) -> n\(entry.index);")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
