import OresRedux
import OresReduxQuery
import Testing

/// The inspector sees the cache as state: each entry, and why each of its calls was made.
@Suite("Query cache: in the inspector")
struct QueryInspectorTests {
    typealias App = QueryGuideApp

    @Test("the inspector's page shows each entry and why its call was made")
    func entriesAndWhyInTheInspector() async throws {
        let inspector = InspectorRecorder<App.AppState>()
        let store = Store(
            initialState: App.AppState(), reducer: App.queries.reducer, middleware: [inspector.middleware],
            options: inspector.storeOptions())
        let screen = App.queries.observe(App.Feed(userID: 7), in: store)
        _ = try await withDeadline { try await App.queries.fetch(App.Feed(userID: 7), in: store).value }

        let recording = inspector.recording
        #expect(recording.actionTypes.contains("QueryCallStarted"))
        let page = recording.html()
        #expect(page.contains("QueryEntry"))  // each entry, field by field, in the state
        #expect(page.contains("lastCallReason"))
        #expect(page.contains(QueryCallReason.observed.description))  // why its call was made
        screen.cancel()
    }
}
