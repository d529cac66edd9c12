extension GraphReport {
    /// The run's graph as a Mermaid flowchart, to paste into Markdown (GitHub, GitLab, DocC) or
    /// <https://mermaid.live>.
    ///
    /// ```
    /// flowchart TD
    ///     n0["LogIn<br/>succeeded · 81.2 ms"]:::succeeded
    ///     n1["FetchFeed<br/>failed · 60 ms · 2 tries"]:::failed
    ///     n2["ShowHome<br/>skipped"]:::skipped
    ///     n0 --> n1
    ///     n1 --> n2
    ///     classDef succeeded fill:#c8e6c9,stroke:#2e7d32,color:#212121
    ///     ...
    /// ```
    ///
    /// Promises:
    /// - every node appears once, with id `n<index>` and a text of its label, then its outcome (and
    ///   its duration and tries when known);
    /// - every prerequisite edge appears once, as `n<prerequisite> --> n<dependent>`;
    /// - each node has the class of its outcome: `succeeded` (green), `failed` (red), `skipped` (grey),
    ///   `cancelled` (orange) or `unfinished` (blue, for a node of a run still going);
    /// - labels cannot break the chart: quotes, brackets, `<`, `>`, `&`, `#`, `|` and backticks are
    ///   written as Mermaid entity codes (`"` is `#quot;`), and every text stays on one line (a line
    ///   break shows as `\n`, a tab as `\t`, another control character as `\u{1B}`).
    ///
    /// Mermaid renders a few hundred nodes well; for bigger runs prefer ``dot`` or ``chromeTrace``.
    public var mermaid: String {
        var lines = ["flowchart TD"]
        for entry in self {
            let text = Self.mermaidEscaped(entry.label) + "<br/>" + Self.mermaidEscaped(entry.pictureDetail)
            lines.append("    n\(entry.index)[\"\(text)\"]:::\(TraceStyle(entry.outcome).rawValue)")
        }
        for entry in self {
            for prerequisite in entry.prerequisites {
                lines.append("    n\(prerequisite) --> n\(entry.index)")
            }
        }
        for style in TraceStyle.allCases {
            lines.append("    classDef \(style.rawValue) fill:\(style.fill),stroke:\(style.stroke),color:#212121")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` made safe inside a quoted Mermaid node text: on one line (``oneLine(_:)``), and every
    /// character Mermaid gives a meaning there becomes an entity code.
    static func mermaidEscaped(_ text: String) -> String {
        TextEscaping.replacing(oneLine(text)) { scalar in
            mermaidSpecial.contains(scalar) ? TextEscaping.htmlEntity(scalar, named: "#", numbered: "#") : nil
        }
    }

    /// The characters Mermaid gives a meaning inside a quoted node text.
    private static let mermaidSpecial = Set("\"#&<>[](){}|`".unicodeScalars)
}
