import Foundation
import OresRedux
import Testing

@testable import OresRedux

/// The page is one file that makes no request and shows every recorded string as text.
@Suite("Inspector page")
struct InspectorPageTests {
    struct Note: Sendable, Equatable { var title: String; var body: String }
    struct Notes: Sendable, Equatable { var notes: [Note] = []; var big = ""; var lines: [String] = [] }
    struct AddNote: Action { let note: Note }
    struct SetBig: Action { let value: String }
    struct SetNotes: Action { let notes: [String] }
    struct Failure: Error { let reason: String }
    struct Broken: AsyncAction {
        func run(_ context: ActionContext<Notes>) async throws -> Int { throw Failure(reason: "</script><b>boom</b>") }
    }

    /// Strings that would break a page that trusted them.
    static let hostile = [
        "</script><script>document.body.dataset.pwned = 1</script>",
        "<!-- an open comment", "<img src=x onerror=\"document.body.dataset.pwned=1\">",
        "quotes \" and ' and `back`", "control \u{0}\u{1}\u{7}\u{1B}[31m and \u{2028}\u{2029} line ends",
        "right-to-left \u{202E}txet\u{202C} and \u{200F}marks\u{200E}", "]]></script><![CDATA[",
    ]

    /// A file name that renders as "invoiceexe.pdf": the page must show its bidi override as an escape.
    static let spoofed = "invoice\u{202E}fdp.exe\u{202C}"

    static func hostileRecording() async throws -> InspectorRecording {
        let inspector = InspectorRecorder<Notes>()
        let reducer = Reducer<Notes>.combine(
            .on(AddNote.self) { state, action in state.notes.append(action.note) },
            .on(SetBig.self) { state, action in state.big = action.value },
            .on(SetNotes.self) { state, action in state.lines = action.notes }
        )
        let store = Store(
            initialState: Notes(), reducer: reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        for (index, text) in hostile.enumerated() {
            store.dispatch(AddNote(note: Note(title: "note \(index)", body: text)))
        }
        store.dispatch(SetBig(value: String(repeating: "a 1 MB value ", count: 80_000) + "</script> <big>"))
        var graph = ActionGraph<Notes>()
        let broken = graph.run(Broken())
        graph.setLabel(hostile[0], for: broken)
        let spoof = graph.send(SetNotes(notes: [spoofed]))
        graph.setLabel(spoofed, for: spoof)
        graph.send(after: broken) { _ in AddNote(note: Note(title: "never", body: "")) }
        _ = try await withDeadline { [graph] in await store.dispatch(graph).wait() }
        return inspector.recording
    }

    /// Runs `body` on a thread of its own: writing and reading a page with a 1 MB value takes
    /// seconds in a debug build, and on the few threads Swift's concurrency shares it would starve
    /// the other tests' tasks past their deadlines.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    @Test("hostile strings stay inside the data: no markup, comment or line end escapes it")
    func hostileStrings() async throws {
        let recording = try await Self.hostileRecording()
        try await Self.onOwnThread { try Self.checkHostilePage(recording) }
    }

    static func checkHostilePage(_ recording: InspectorRecording) throws {
        let page = recording.html(title: "</title><script>alert(1)</script>")
        let data = try #require(page.firstRange(of: #"id="inspector-data">"#)).upperBound
        let dataEnd = try #require(page[data...].firstRange(of: "</script>")).lowerBound
        let json = String(page[data..<dataEnd])
        #expect(!json.contains("<") && !json.contains(">") && !json.contains("&"))
        #expect(!json.contains("\u{2028}") && !json.contains("\u{2029}"))
        #expect(page.components(separatedBy: "</script>").count == 3, "only the page's own two scripts end")
        #expect(!page.contains("<!--"))
        #expect(page.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>"))
        // The data is still the recording: JSON reads it back, strings intact.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((parsed["steps"] as? [Any])?.count == Self.hostile.count + 2, "the notes, the big value, SetNotes")
        #expect(json.contains(#"\u003c/script\u003e\u003cscript\u003e"#))
        #expect(recording.states.last.map { $0.summary.contains("a 1 MB value a 1 MB value") } == true)
        try InspectorRecorderTests.writeForBrowser(
            recording, "hostile.html", title: "</title><script>alert(1)</script>")
    }

    @Test("the page allows no network source and loads nothing from outside")
    func offline() async throws {
        let page = try await InspectorApp.record().inspector.recording.html()
        #expect(
            page.contains(
                #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">"#
            ))
        // The one URL is SVG's XML namespace, a name that is never fetched.
        let urls = page.components(separatedBy: "://").dropFirst().map { String($0.prefix(22)) }
        #expect(urls.allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") }, "\(urls)")
        #expect(!page.contains("src=\"") && !page.contains("<link") && !page.contains("@import"))
        #expect(!page.contains("innerHTML") && !page.contains("outerHTML") && !page.contains("insertAdjacentHTML"))
        #expect(!page.contains("fetch(") && !page.contains("XMLHttpRequest") && !page.contains("WebSocket"))
    }
}
