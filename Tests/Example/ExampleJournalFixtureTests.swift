import Foundation
import OresRedux
import OresReduxTesting
import Testing

@testable import Example

// The Example keeps one journal recorded by `swift run Example --record-journal Example/fixtures/journal`
// (a first launch of `--resume`, killed while creating the post). An update of the Example that
// would strand that run fails here, as an app's own replay test would.

@Suite("Example: its recorded journal replays against today's builders")
struct ExampleJournalFixtureTests {
    @Test("the journal in Example/fixtures/journal gives no findings with the Example's builders")
    func recordedJournalReplays() throws {
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Example/fixtures/journal", isDirectory: true)
        // The builders only build graphs here: the server is never called, and its log never written.
        let server = FakeServer(log: FileManager.default.temporaryDirectory.appendingPathComponent("unused.log"))
        let check = ReplayCheck(initialState: ResumeState()) { durable in
            registerBuilders(durable, server: server, killedInFlight: false)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter {
            $0.hasSuffix(".journal")
        }
        #expect(files.count == 1, "the Example keeps one recorded run")
        try check.expectReplays(journalFolder: fixtures)
    }
}
