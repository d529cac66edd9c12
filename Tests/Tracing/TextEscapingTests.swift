import Foundation
import Testing

@testable import OresRedux

/// Labels and errors with characters that Graphviz, Mermaid and a terminal would otherwise read as
/// something else: every picture and the text table show them as written, each node on one line.
@Suite struct TextEscapingTests {
    struct Nothing: Equatable, Sendable {}
    struct Noop: Action {}
    struct Tricky: Error, CustomStringConvertible {
        var description: String { TextEscapingTests.tricky }
    }
    struct Fail: AsyncAction {
        func run(_ context: ActionContext<Nothing>) async throws -> Int { throw Tricky() }
    }

    /// Everything Graphviz decodes or expands: entities, escape sequences, a trailing backslash, and a
    /// line break, a tab and an escape character that must not break a line of the table.
    static let tricky =
        "C:\\Net \\G \\L \\N \\E \\T \\H \\l \\\\ &amp; &quot; &#92; \"quoted\" <b>\nnext\tcol\u{1B} end\\"

    /// What a person should read for ``tricky``: the same, with the three control characters shown.
    static let trickyOnOneLine =
        #"C:\Net \G \L \N \E \T \H \l \\ &amp; &quot; &#92; "quoted" <b>\nnext\tcol\u{1B} end\"#

    /// Node 0: a sync node labelled ``tricky``; node 1: an async node that fails with ``tricky``.
    func report() async throws -> GraphReport {
        let store = Store(initialState: Nothing(), reducer: Reducer { _, _ in })
        var graph = ActionGraph<Nothing>()
        let noop = graph.send(Noop())
        graph.setLabel(Self.tricky, for: noop)
        graph.run(Fail())
        return try await withDeadline { [graph] in await store.dispatch(graph).wait() }
    }

    @Test func oneLineShowsControlCharactersAndKeepsTheRest() {
        #expect(GraphReport.oneLine(Self.tricky) == Self.trickyOnOneLine)
        #expect(GraphReport.oneLine("a\r\nb\u{7F}c\u{85}d\u{2028}e") == #"a\r\nb\u{7F}c\u{85}d\u{2028}e"#)
        #expect(GraphReport.oneLine("plain → text") == "plain → text")
    }

    @Test func theTextTableHasOneLinePerNode() async throws {
        let report = try await report()
        let lines = report.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1 + report.count + 1)  // header, one per node, summary
        #expect(lines[1].contains(Self.trickyOnOneLine))
        #expect(lines[2].hasSuffix(Self.trickyOnOneLine))
        #expect(!report.description.contains("\t") && !report.description.contains("\u{1B}"))
    }

    @Test func mermaidTextStaysOnOneLineWithEveryMeaningfulCharacterAsAnEntity() async throws {
        let mermaid = try await report().mermaid
        let line = mermaid.split(separator: "\n").first { $0.hasPrefix("    n0[") }.map(String.init) ?? ""
        #expect(
            line.hasPrefix(
                #"    n0["C:\Net \G \L \N \E \T \H \l \\ #amp;amp; #amp;quot; #amp;#35;92; #quot;quoted#quot; #lt;b#gt;\nnext\tcol\u#123;1B#125; end\<br/>"#
            ))
        #expect(mermaid.split(separator: "\n").count == 2 + 1 + TraceStyle.allCases.count)  // header, 2 nodes, no edge
    }

    @Test func dotTextUsesEntitiesForQuotesAndAmpersandsAndDoublesBackslashes() {
        #expect(GraphReport.dotLabelEscaped(#"a\N "b" & c"#) == #"a\\N &quot;b&quot; &amp; c"#)
        #expect(GraphReport.dotTooltipEscaped(#"a\N "b" & c"#) == #"a\\\\N &quot;b&quot; &amp; c"#)
        #expect(GraphReport.dotLabelEscaped("x\ny") == #"x\\ny"#)
    }

    // MARK: Rendered by Graphviz
    #if os(macOS) || os(Linux)
        // Graphviz runs as a child process: macOS and Linux only (iOS has no `Process`).

        static let dotPath: String? = {
            let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            return (directories.map { "\($0)/dot" } + ["/usr/bin/dot", "/opt/homebrew/bin/dot", "/usr/local/bin/dot"])
                .first { FileManager.default.isExecutableFile(atPath: $0) }
        }()

        /// Renders `dot` to SVG with Graphviz and returns each node's text lines and tooltip, decoded from
        /// XML: what a person sees.
        func rendered(_ dot: String) async throws -> [String: (text: [String], tooltip: String)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(Self.dotPath))
            process.arguments = ["-Tsvg"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(dot.utf8))
            try input.fileHandleForWriting.close()
            let reader = output.fileHandleForReading
            let svg = try await withDeadline(30, "Graphviz rendering the report") {
                String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)

            var nodes: [String: (text: [String], tooltip: String)] = [:]
            for group in svg.components(separatedBy: "<g id=\"node").dropFirst() {
                let title = Self.between(group, "<title>", "</title>").map(Self.xmlDecoded) ?? ""
                let tooltip = Self.between(group, "xlink:title=\"", "\"").map(Self.xmlDecoded) ?? ""
                let texts = group.components(separatedBy: "<text").dropFirst().compactMap { text in
                    Self.between(text, ">", "</text>").map(Self.xmlDecoded)
                }
                nodes[title] = (texts, tooltip)
            }
            return nodes
        }

        static func between(_ text: String, _ start: String, _ end: String) -> String? {
            guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
            else { return nil }
            return String(text[from.upperBound..<to.lowerBound])
        }

        static func xmlDecoded(_ text: String) -> String {
            var decoded = ""
            var rest = Substring(text)
            while let ampersand = rest.firstIndex(of: "&") {
                decoded += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { break }
                let entity = rest[rest.index(after: ampersand)..<semicolon]
                switch entity {
                case "amp": decoded += "&"
                case "quot": decoded += "\""
                case "lt": decoded += "<"
                case "gt": decoded += ">"
                case "apos": decoded += "'"
                default:
                    let number =
                        entity.hasPrefix("#x")
                        ? UInt32(entity.dropFirst(2), radix: 16)
                        : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                    if let number, let scalar = Unicode.Scalar(number) {
                        decoded.unicodeScalars.append(scalar)
                    } else {
                        decoded += "&\(entity);"
                    }
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return decoded + rest
        }

        @Test(.enabled(if: dotPath != nil, "Graphviz's dot is not installed"))
        func graphvizShowsLabelsAndTooltipsAsWritten() async throws {
            let nodes = try await rendered(await report().dot)
            let label = try #require(nodes["n0"])
            #expect(label.text.first == Self.trickyOnOneLine)
            #expect(label.text.dropFirst().first?.hasPrefix("succeeded") == true)
            let failed = try #require(nodes["n1"])
            #expect(failed.tooltip == "#1 async: " + Self.trickyOnOneLine)
        }
    #endif
}
