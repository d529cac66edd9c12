import Foundation
import Testing

@testable import OresRedux
@testable import OresReduxTesting

/// The pictures of one real run: a succeeded chain, a failure and what it skipped, parallel work,
/// and a label full of characters that mean something in Mermaid, DOT and JSON.
@Suite struct GraphPictureTests {
    struct Count: Equatable, Sendable { var value = 0 }
    struct Add: Action { let amount: Int }
    struct Load: AsyncAction {
        let amount: Int
        func run(_ context: ActionContext<Count>) async throws -> Int { amount }
    }
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the server said \"no\"" }
    }
    struct Fail: AsyncAction {
        func run(_ context: ActionContext<Count>) async throws -> Int { throw Broken() }
    }

    static let trickyLabel = #"Log "in" [1] (a|b) {c} <d> & #e \f"#

    /// Nodes: 0 load (tricky label) -> 1 add, 2 fail -> 3 add (skipped), 4 load, 5 load (parallel).
    func finishedRun() async throws -> GraphReport {
        let store = Store(initialState: Count(), reducer: .on(Add.self) { $0.value += $1.amount })
        var graph = ActionGraph<Count>()
        let load = graph.run(Load(amount: 2))
        graph.setLabel(Self.trickyLabel, for: load)
        graph.send(after: load) { amount in Add(amount: amount) }
        let fail = graph.run(Fail())
        graph.send(Add(amount: 100), after: fail)
        graph.run(Load(amount: 3))
        graph.run(Load(amount: 4))
        return try await withDeadline { [graph] in await store.dispatch(graph).wait() }
    }

    @Test func theRunHasTheOutcomesThePicturesShow() async throws {
        let report = try await finishedRun()
        #expect(report.map(\.outcome) == [.succeeded, .succeeded, .failed, .skipped, .succeeded, .succeeded])
    }

    // MARK: Mermaid

    @Test func mermaidHasEveryNodeAndEveryEdge() async throws {
        let mermaid = try await finishedRun().mermaid
        #expect(mermaid.hasPrefix("flowchart TD\n"))
        for index in 0..<6 { #expect(mermaid.contains("    n\(index)[\"")) }
        #expect(mermaid.contains("    n0 --> n1\n"))
        #expect(mermaid.contains("    n2 --> n3\n"))
        #expect(mermaid.components(separatedBy: "-->").count - 1 == 2)
        #expect(mermaid.contains("Add<br/>skipped\"]:::skipped"))
    }

    @Test func mermaidColoursNodesByOutcome() async throws {
        let mermaid = try await finishedRun().mermaid
        let lines = mermaid.split(separator: "\n").map(String.init)
        func classOf(_ node: Int) -> String? {
            lines.first { $0.hasPrefix("    n\(node)[") }?.components(separatedBy: ":::").last
        }
        #expect(classOf(0) == "succeeded")
        #expect(classOf(1) == "succeeded")
        #expect(classOf(2) == "failed")
        #expect(classOf(3) == "skipped")
        #expect(lines.contains("    classDef succeeded fill:#c8e6c9,stroke:#2e7d32,color:#212121"))
        #expect(lines.contains("    classDef failed fill:#ffcdd2,stroke:#c62828,color:#212121"))
        #expect(lines.contains("    classDef skipped fill:#e0e0e0,stroke:#757575,color:#212121"))
        #expect(lines.contains("    classDef cancelled fill:#ffe0b2,stroke:#ef6c00,color:#212121"))
        #expect(lines.contains("    classDef unfinished fill:#bbdefb,stroke:#1565c0,color:#212121"))
    }

    @Test func mermaidEscapesQuotesAndBrackets() async throws {
        let mermaid = try await finishedRun().mermaid
        let line = mermaid.split(separator: "\n").first { $0.hasPrefix("    n0[") }.map(String.init) ?? ""
        #expect(
            line.hasPrefix(
                #"    n0["Log #quot;in#quot; #91;1#93; #40;a#124;b#41; #123;c#125; #lt;d#gt; #amp; #35;e \f<br/>"#))
        // Inside the node text: no raw quote, bracket or parenthesis is left to end it early.
        let text = line.dropFirst("    n0[\"".count).prefix { $0 != "\"" }
        #expect(!text.contains("[") && !text.contains("]") && !text.contains("(") && !text.contains("|"))
        #expect(line.hasSuffix("\"]:::succeeded"))
    }

    @Test func mermaidEscapingKeepsATextOnOneLineWithItsBreaksShown() {
        #expect(GraphReport.mermaidEscaped("a\nb\r\nc\td") == #"a\nb\r\nc\td"#)
    }

    // MARK: DOT

    @Test func dotHasEveryNodeAndEveryEdge() async throws {
        let dot = try await finishedRun().dot
        #expect(dot.hasPrefix("digraph GraphRun {\n"))
        #expect(dot.hasSuffix("}\n"))
        for index in 0..<6 { #expect(dot.contains("    n\(index) [label=\"")) }
        #expect(dot.contains("    n0 -> n1;\n"))
        #expect(dot.contains("    n2 -> n3;\n"))
        #expect(dot.components(separatedBy: " -> ").count - 1 == 2)
    }

    @Test func dotFillsNodesWithTheirOutcomesColour() async throws {
        let lines = try await finishedRun().dot.split(separator: "\n").map(String.init)
        func line(_ node: Int) -> String { lines.first { $0.hasPrefix("    n\(node) [") } ?? "" }
        #expect(line(0).contains("fillcolor=\"#c8e6c9\""))
        #expect(line(1).contains("fillcolor=\"#c8e6c9\""))
        #expect(line(2).contains("fillcolor=\"#ffcdd2\""))
        #expect(line(3).contains("fillcolor=\"#e0e0e0\""))
        #expect(line(2).contains(##"tooltip="#2 async: the server said &quot;no&quot;""##))
    }

    @Test func dotEscapesQuotesAmpersandsAndBackslashes() async throws {
        let dot = try await finishedRun().dot
        #expect(dot.contains(#"n0 [label="Log &quot;in&quot; [1] (a|b) {c} <d> &amp; #e \\f\nsucceeded"#))
        #expect(GraphReport.dotLabelEscaped("a\nb\"c\\&") == #"a\\nb&quot;c\\&amp;"#)
    }

    // MARK: Chrome trace

    func events(_ report: GraphReport) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(report.chromeTrace.utf8))
        let root = try #require(object as? [String: Any])
        return try #require(root["traceEvents"] as? [[String: Any]])
    }

    @Test func chromeTraceIsValidJSONWithTheRequiredFields() async throws {
        let events = try events(try await finishedRun())
        #expect(!events.isEmpty)
        for event in events {
            #expect(event["name"] is String)
            #expect(event["ph"] is String)
            #expect(event["ts"] is NSNumber)
            #expect(event["pid"] is NSNumber)
            #expect(event["tid"] is NSNumber)
            if event["ph"] as? String == "X" { #expect(event["dur"] is NSNumber) }
        }
    }

    @Test func chromeTraceHasOneEventPerNode() async throws {
        let events = try events(try await finishedRun()).filter { $0["ph"] as? String != "M" }
        #expect(events.count == 6)
        let byIndex = Dictionary(
            uniqueKeysWithValues: events.map { (($0["args"] as? [String: Any])?["index"] as? Int ?? -1, $0) })
        #expect(byIndex[0]?["name"] as? String == Self.trickyLabel)
        #expect(byIndex[0]?["cat"] as? String == "async")
        #expect(byIndex[1]?["cat"] as? String == "sync")
        for index in [0, 1, 2, 4, 5] { #expect(byIndex[index]?["ph"] as? String == "X") }
        #expect(byIndex[3]?["ph"] as? String == "i")
        let failed = byIndex[2]?["args"] as? [String: Any]
        #expect(failed?["outcome"] as? String == "failed")
        #expect(failed?["attempts"] as? Int == 1)
        #expect(failed?["error"] as? String == "the server said \"no\"")
        let skipped = byIndex[3]?["args"] as? [String: Any]
        #expect(skipped?["outcome"] as? String == "skipped")
        #expect(skipped?["attempts"] as? Int == 0)
        #expect(skipped?["prerequisites"] as? [Int] == [2])
    }

    @Test func chromeTraceNeverOverlapsTwoNodesOnOneRow() async throws {
        let slices = try events(try await finishedRun()).filter { $0["ph"] as? String == "X" }
        let rows = Dictionary(grouping: slices) { $0["tid"] as? Int ?? 0 }
        for (_, row) in rows {
            let intervals = row.map {
                (($0["ts"] as? Double) ?? 0, (($0["ts"] as? Double) ?? 0) + (($0["dur"] as? Double) ?? 0))
            }
            .sorted { $0.0 < $1.0 }
            for (earlier, later) in zip(intervals, intervals.dropFirst()) { #expect(earlier.1 <= later.0) }
        }
    }

    @Test func lanesGiveOverlappingNodesDifferentRowsAndReuseFreeOnes() {
        func entry(_ index: Int, _ start: Int, _ end: Int) -> GraphReport.Entry {
            GraphReport.Entry(
                index: index, label: "n\(index)", kind: .async, prerequisites: [], outcome: .succeeded,
                error: nil, start: .nanoseconds(start), end: .nanoseconds(end), attempts: 1)
        }
        // 0 [0,10), 1 [2,5), 2 [3,8), 3 [5,9) reuses 1's row, 4 [10,12) reuses the first row.
        let lanes = GraphReport.traceLanes([
            entry(0, 0, 10), entry(1, 2, 5), entry(2, 3, 8), entry(3, 5, 9), entry(4, 10, 12),
        ])
        #expect(lanes == [0: 1, 1: 2, 2: 3, 3: 2, 4: 1])
    }

    @Test func microsecondsAreExact() {
        #expect(GraphReport.microseconds(0) == "0.000")
        #expect(GraphReport.microseconds(81_300_125) == "81300.125")
        #expect(GraphReport.microseconds(7) == "0.007")
    }

    @Test func jsonStringsEscapeControlCharacters() throws {
        let text = "a\"b\\c\nd\u{01}e→"
        let literal = GraphReport.jsonString(text)
        #expect(literal == #""a\"b\\c\nd\u0001e→""#)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(decoded == [text])
    }

    // MARK: Unfinished and cancelled runs

    @Test func unfinishedAndCancelledNodesAreBlueThenOrange() async throws {
        let clock = VirtualClock()
        let store = Store(
            initialState: Count(), reducer: .on(Add.self) { $0.value += $1.amount },
            options: StoreOptions(clock: clock))
        var graph = ActionGraph<Count>()
        let wait = graph.delay(.seconds(10))
        graph.send(Add(amount: 1), after: wait)
        let run = store.dispatch(graph)
        try await clock.waitForSleepers(1)

        let running = run.report
        #expect(running.mermaid.contains("]:::unfinished"))
        #expect(running.dot.contains("fillcolor=\"#bbdefb\""))
        let runningEvents = try events(running).filter { $0["ph"] as? String != "M" }
        #expect(runningEvents.count == 2)
        #expect(runningEvents.allSatisfy { ($0["args"] as? [String: Any])?["outcome"] as? String == "not finished" })

        run.cancel()
        let cancelled = try await withDeadline { await run.wait() }
        #expect(cancelled.mermaid.contains("    n0[\"delay 10.0 seconds<br/>cancelled"))
        #expect(!cancelled.mermaid.contains("]:::unfinished"))
        #expect(cancelled.dot.contains("fillcolor=\"#ffe0b2\""))
        let cancelledEvents = try events(cancelled).filter { $0["ph"] as? String != "M" }
        #expect(cancelledEvents.map { $0["ph"] as? String } == ["X", "i"])
    }

    // MARK: Files

    @Test func writeTraceFilesWritesAllThreePictures() async throws {
        let report = try await finishedRun()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-trace-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = try report.writeTraceFiles(to: directory, baseName: "run")
        #expect(urls.map(\.lastPathComponent) == ["run.mmd", "run.dot", "run.trace.json"])
        #expect(try String(contentsOf: urls[0], encoding: .utf8) == report.mermaid)
        #expect(try String(contentsOf: urls[1], encoding: .utf8) == report.dot)
        #expect(try String(contentsOf: urls[2], encoding: .utf8) == report.chromeTrace)
    }
}
