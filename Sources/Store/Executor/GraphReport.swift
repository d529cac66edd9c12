/// What happened in a ``GraphRun``: every node's outcome, start and end, as a collection of entries.
///
/// `print(report)` shows a table a person can read:
/// ```
/// #  node          kind   outcome    start      duration  tries  prerequisites  note
/// 0  LogIn         async  succeeded  0 ns       81.2 ms   1
/// 1  FetchProfile  async  succeeded  81.3 ms    40.1 ms   1      0
/// 2  FetchFeed     async  failed     81.3 ms    60.0 ms   2      0              the attempt timed out after 0.03 seconds
/// 3  ShowHome      sync   skipped    -          -         0      1, 2
/// ```
/// Entries are built when read, so a report of a million nodes costs nothing until it is looked at.
public struct GraphReport: Sendable, RandomAccessCollection, CustomStringConvertible {
    /// One node of the run.
    public struct Entry: Sendable {
        /// The node's index in its graph (see ``Node/index``).
        public let index: Int
        /// Its label, or its action type's name.
        public let label: String
        /// What kind of work it does.
        public let kind: NodeKind
        /// The indices of the nodes it waited for.
        public let prerequisites: [Int]
        /// How it ended; `nil` while it has not.
        public let outcome: OutcomeKind?
        /// Its own error, when it failed.
        public let error: (any Error)?
        /// When it started, since the run started, on the store's clock, to the whole nanosecond;
        /// `nil` if it never started. Never before the end of its last prerequisite. A time past
        /// about 292 years (`Int64.max` nanoseconds), which only a test clock moved that far
        /// reaches, reads as that much.
        public let start: Duration?
        /// When it ended, since the run started, on the store's clock, to the whole nanosecond; `nil`
        /// while it has not. A sync node starts when the pipeline takes it and ends once middleware,
        /// reducer and subscribers are done with it.
        public let end: Duration?
        /// Attempts made: 0 if it never started, more than 1 if it was retried.
        public let attempts: Int

        /// How long it ran; `nil` if it never started or has not ended.
        public var duration: Duration? {
            guard let start, let end else { return nil }
            return end - start
        }
    }

    let graph: GraphShape
    let nodes: [RunNodeState]
    /// `nil` when no node failed and none was retried (most runs): a report is then copied and
    /// dropped with two references, its graph's and its nodes'.
    private let failures: Failures?
    let finishedAt: Duration?

    /// The errors of the nodes that failed.
    private final class Failures: Sendable {
        let errors: [Int: any Error]

        init(errors: [Int: any Error]) {
            self.errors = errors
        }
    }

    init<State>(
        graph: ActionGraph<State>, nodes: [RunNodeState],
        errors: [Int: any Error], finishedAt: Duration?
    ) {
        self.init(shape: GraphShape(graph), nodes: nodes, errors: errors, finishedAt: finishedAt)
    }

    init(
        shape: GraphShape, nodes: [RunNodeState],
        errors: [Int: any Error], finishedAt: Duration?
    ) {
        self.graph = shape
        self.nodes = nodes
        self.failures = errors.isEmpty ? nil : Failures(errors: errors)
        self.finishedAt = finishedAt
    }

    private init(noNodesFinishedAt finishedAt: Duration) {
        (graph, nodes, failures, self.finishedAt) = (.noNodes, [], nil, finishedAt)
    }

    /// The report of a run born finished (a graph with no nodes that nobody watched): no nodes,
    /// finished at its start. The same for every such run.
    @usableFromInline static var bornFinished: GraphReport { GraphReport(noNodesFinishedAt: .zero) }

    /// The first node's index, 0.
    public var startIndex: Int { 0 }
    /// The number of nodes.
    public var endIndex: Int { nodes.count }

    /// The entry of the node at `index`.
    public subscript(index: Int) -> Entry {
        let node = nodes[index]
        let outcome = node.status.outcomeKind
        // The attempts this launch made, however the node ended (a cancel between retries too); a
        // node replayed from an earlier launch made none here, and shows the one it had.
        let attempts = node.start == nil ? 0 : Swift.max(1, node.attempts)
        return Entry(
            index: index, label: graph.label(index), kind: graph.kind(index),
            prerequisites: graph.prerequisites(index),
            outcome: outcome, error: failures?.errors[index],
            start: node.start, end: node.end,
            attempts: attempts)
    }

    /// The entry of `node`.
    /// - Precondition: `node` belongs to the graph this run ran.
    public subscript<R>(node: Node<R>) -> Entry {
        precondition(node.index >= 0 && node.index < count, "OresRedux: \(node) is not a node of this run")
        return self[node.index]
    }

    /// How long the run took, from dispatch to its last node's end; `nil` while it has not finished.
    public var duration: Duration? { finishedAt }

    /// How many nodes ended with `outcome`.
    public func count(of outcome: OutcomeKind) -> Int {
        nodes.reduce(0) { count, node in node.status.outcomeKind == outcome ? count + 1 : count }
    }

    /// One line: how many nodes ended each way, and how long the run took.
    public var summary: String {
        let parts = OutcomeKind.allCases.map { "\(count(of: $0)) \($0.rawValue)" }.joined(separator: ", ")
        let time = duration.map { " in \(Self.format($0))" } ?? " (still running)"
        return "\(count) nodes: \(parts)\(time)"
    }

    /// The table shown at the top of this type's documentation, then the summary line: one line per
    /// node, with line breaks, tabs and other control characters in labels and errors shown escaped
    /// (`\n`, `\t`, `\u{1B}`).
    public var description: String {
        var rows = [["#", "node", "kind", "outcome", "start", "duration", "tries", "prerequisites", "note"]]
        for entry in self {
            rows.append([
                String(entry.index), Self.oneLine(entry.label), entry.kind.rawValue,
                entry.outcome?.rawValue ?? "running",
                entry.start.map(Self.format) ?? "-", entry.duration.map(Self.format) ?? "-",
                String(entry.attempts), entry.prerequisites.map(String.init).joined(separator: ", "),
                entry.error.map { Self.oneLine(String(describing: $0)) } ?? "",
            ])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = Swift.max(widths[column], cell.count) }
        }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    /// A duration as a person reads it: `850 ns`, `12.3 µs`, `45.2 ms`, `1.23 s`.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        switch nanoseconds {
        case ..<1_000: return "\(Int(nanoseconds)) ns"
        case ..<1_000_000: return "\(rounded(nanoseconds / 1e3)) µs"
        case ..<1_000_000_000: return "\(rounded(nanoseconds / 1e6)) ms"
        default: return "\(rounded(nanoseconds / 1e9)) s"
        }
    }

    private static func rounded(_ value: Double) -> String {
        let scaled = (value * 10).rounded() / 10
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }
}

extension String {
    fileprivate func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

/// A graph's shape and names without its state type: what a report keeps of the graph. It shares
/// the graph's storage (copy on write), which is not generic, so a report neither copies the graph
/// nor wraps it in closures.
struct GraphShape: Sendable {
    /// `nil` for the shape of no nodes, which has no index to read (a run born finished's report
    /// shares nothing).
    private let storage: GraphStorage?

    init<State>(_ graph: ActionGraph<State>) {
        storage = graph.storage
    }

    init(_ storage: GraphStorage) {
        self.storage = storage
    }

    /// The shape of a graph with no nodes.
    static var noNodes: GraphShape { GraphShape(storage: nil) }

    private init(storage: GraphStorage?) {
        self.storage = storage
    }

    /// The graph's storage, for an `index` of one of its nodes.
    private func nodes(_ index: Int) -> GraphStorage {
        guard let storage else { preconditionFailure("OresRedux: node #\(index) of a graph with no nodes") }
        return storage
    }

    func label(_ index: Int) -> String { nodes(index).label(of: index) }
    /// The node's action type name, whatever its label (what a generated test stubs).
    func typeName(_ index: Int) -> String { nodes(index).bodies[index].defaultLabel }
    func kind(_ index: Int) -> NodeKind { nodes(index).bodies[index].kind }
    func prerequisites(_ index: Int) -> [Int] { Array(nodes(index).prerequisites(of: index)) }
}

/// Time since now on `clock`, as a closure that reads it: the one clock a run's report and its
/// timeouts share (a test clock's run shows virtual times).
func stopwatch(on clock: any Clock<Duration>) -> @Sendable () -> Duration {
    // The default clock gets a closure made for its own type: a run reads it at every event, and
    // read through the existential each read would go through the clock's witnesses.
    if clock is ContinuousClock {
        let start = ContinuousClock.now
        return { start.duration(to: ContinuousClock.now) }
    }
    return stopwatch(onClockOfType: clock)
}

private func stopwatch<C: Clock<Duration>>(onClockOfType clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
