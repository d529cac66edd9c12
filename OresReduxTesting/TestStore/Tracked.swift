import OresRedux

/// Work a test store started and waits for.
enum Tracked<State: Sendable>: Sendable {
    case run(GraphRun<State>)
    case task(String)

    func describe(id: UInt64) -> String {
        switch self {
        case .task(let name):
            return "async action \(name), dispatched on its own, not finished"
        case .run(let run):
            let report = run.report
            let open = report.filter { $0.outcome == nil }.map { entry in
                "\(entry.label) (\(entry.kind.rawValue), \(entry.start == nil ? "waiting" : "running"))"
            }
            return "run \(id): " + (open.isEmpty ? "every node ended, finishing" : open.joined(separator: ", "))
        }
    }
}
