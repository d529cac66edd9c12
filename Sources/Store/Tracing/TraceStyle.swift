/// How the pictures of a ``GraphReport`` show a node: one colour pair and one word per outcome.
///
/// Shared by ``GraphReport/mermaid``, ``GraphReport/dot`` and ``GraphReport/chromeTrace`` so that
/// the three pictures of one run always agree.
enum TraceStyle: String, CaseIterable {
    case succeeded, failed, skipped, cancelled, unfinished

    init(_ outcome: OutcomeKind?) {
        switch outcome {
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .skipped: self = .skipped
        case .cancelled: self = .cancelled
        case nil: self = .unfinished
        }
    }

    /// The word a person reads in the node.
    var word: String { self == .unfinished ? "not finished" : rawValue }

    /// Light fill: green, red, grey, orange, blue.
    var fill: String {
        switch self {
        case .succeeded: "#c8e6c9"
        case .failed: "#ffcdd2"
        case .skipped: "#e0e0e0"
        case .cancelled: "#ffe0b2"
        case .unfinished: "#bbdefb"
        }
    }

    /// Darker border and text of the same hue.
    var stroke: String {
        switch self {
        case .succeeded: "#2e7d32"
        case .failed: "#c62828"
        case .skipped: "#757575"
        case .cancelled: "#ef6c00"
        case .unfinished: "#1565c0"
        }
    }
}

extension GraphReport.Entry {
    /// The second line of a node in the pictures: outcome, then duration and retries when known.
    var pictureDetail: String {
        var parts = [TraceStyle(outcome).word]
        if let duration { parts.append(GraphReport.format(duration)) }
        if attempts > 1 { parts.append("\(attempts) tries") }
        return parts.joined(separator: " · ")
    }
}

extension Duration {
    /// Whole nanoseconds (the report's times are nanoseconds since the run started).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
