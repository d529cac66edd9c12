import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/SeeingWhatHappened/Tracing.md.

extension GuideApp {
    @Suite("Guide: Tracing a Run")
    struct TracingGuide {
        @Test("Tracing guide: the report of a run whose feed timed out, as a table, entries and pictures")
        func reportAndPictures() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = TestStore(initialState: AppState(), reducer: appReducer)
            store.stub(LogIn.self, with: Session(token: "t"))
            store.stub(FetchProfile.self, with: Profile(name: "Ada"))
            _ = store.hold(FetchFeed.self)  // never answers: the feed times out

            var home = homeGraph()
            home.graph.setLabel("log in", for: home.session)
            home.graph.setLabel("fetch feed", for: home.feed)

            let run = store.dispatch(home.graph)
            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .seconds(30))
            let report = try await withDeadline { await run.wait() }
            print(report)

            let table = printed.all.joined(separator: "\n")
            #expect(table.hasPrefix("#  node"))
            #expect(table.contains("fetch feed"))
            #expect(table.contains("the attempt timed out after 30.0 seconds"))

            #expect(report[home.feed].outcome == .failed)  // .failed
            #expect(report[home.feed].error as? GraphError == .timedOut(after: .seconds(30)))
            #expect(report[home.feed].attempts == 1)  // 1
            #expect(report[home.home].prerequisites == [2, 3])  // [2, 3]
            #expect(report.count(of: .skipped) == 1)  // 1
            #expect(report.summary.hasPrefix("5 nodes: 3 succeeded, 1 failed, 1 skipped, 0 cancelled in "))
            #expect(run.report[home.home].outcome == .skipped)

            #expect(report.mermaid.hasPrefix("flowchart TD"))
            #expect(report.mermaid.contains(#"n3["fetch feed<br/>failed"#))
            #expect(report.mermaid.contains("n3 --> n4"))
            #expect(report.dot.contains("n3 -> n4;"))
            #expect(report.chromeTrace.hasPrefix(#"{"traceEvents":["#))

            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("oresredux-guide-\(UUID().uuidString)")
                .appendingPathComponent("traces")
            let files = try report.writeTraceFiles(to: directory, baseName: "login-run")
            // login-run.mmd, login-run.dot, login-run.trace.json

            #expect(files.map(\.lastPathComponent) == ["login-run.mmd", "login-run.dot", "login-run.trace.json"])
            #expect(try String(contentsOf: files[0], encoding: .utf8) == report.mermaid)
            try FileManager.default.removeItem(at: directory.deletingLastPathComponent())

            try await store.receive(SignedIn.self) { $0.session = Session(token: "t") }
            try await store.receive(ShowBanner.self) { $0.banner = "could not load the feed" }
            try await store.finish()
        }
    }
}
