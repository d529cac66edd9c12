import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/TakeLatestDebounceThrottle.md.

enum SearchGuideApp {
    /// The app's search backend; the guide's requests call it. Here it answers at once.
    final class SearchService: Sendable {
        static let shared = SearchService()
        func search(_ text: String) async throws -> [String] { ["\(text) 1", "\(text) 2"] }
    }

    // The first snippet: the app.
    struct SearchState: Equatable {
        var query = ""
        var results: [String] = []
    }

    struct SetQuery: Action { let text: String }
    struct SetResults: Action, Equatable { let results: [String] }

    struct Search: AsyncAction, Equatable {
        let text: String
        func run(_ context: ActionContext<SearchState>) async throws -> [String] {
            try await SearchService.shared.search(text)
        }
    }

    static let searchReducer = Reducer<SearchState>.combine(
        .on(SetQuery.self) { state, action in state.query = action.text },
        .on(SetResults.self) { state, action in state.results = action.results }
    )

    static func searchGraph(_ text: String) -> ActionGraph<SearchState> {
        var graph = ActionGraph<SearchState>()
        let results = graph.run(Search(text: text))
        graph.send(after: results) { results in SetResults(results: results) }
        return graph
    }

    // The second snippet.
    enum SearchID: Hashable, Sendable { case search }

    static func queryChanged(to text: String, in store: Store<SearchState>) {
        store.dispatch(SetQuery(text: text))
        store.dispatch(searchGraph(text), id: SearchID.search, policy: .debounce(.milliseconds(300)))
    }

    // The third snippet.
    struct SearchAndShow: AsyncAction {
        let text: String
        func run(_ context: ActionContext<SearchState>) async throws {
            let results = try await SearchService.shared.search(text)
            context.dispatch(SetResults(results: results))  // dropped if a newer search replaced this one
        }
    }

    // The fourth snippet.
    static func screenDisappeared(from store: Store<SearchState>) {
        store.cancel(id: SearchID.search)
    }
}

@Suite("Guide: Take Latest, Debounce and Throttle", .timeLimit(.minutes(10)))
struct TakeLatestGuideTests {
    typealias App = SearchGuideApp

    @Test("TakeLatest guide: queryChanged on a live store searches once the typing paused")
    func queryChangedSearchesOnce() async throws {
        let clock = VirtualClock()
        let store = Store(
            initialState: App.SearchState(), reducer: App.searchReducer, options: StoreOptions(clock: clock))
        for text in ["o", "or", "ore"] {
            App.queryChanged(to: text, in: store)
            try await clock.waitForSleepers(1)
        }
        #expect(store.state == App.SearchState(query: "ore"))
        let states = store.states()
        await clock.advance(by: .milliseconds(300))
        let shown = try await withDeadline { await states.first { $0.results == ["ore 1", "ore 2"] } }
        #expect(shown?.query == "ore")
        App.screenDisappeared(from: store)  // nothing under the id any more: nothing happens
    }

    @Test("TakeLatest guide: SearchAndShow applies its results unless replaced")
    func searchAndShow() async throws {
        let store = Store(initialState: App.SearchState(), reducer: App.searchReducer)
        try await withDeadline {
            try await store.dispatch(App.SearchAndShow(text: "ore"), id: App.SearchID.search).value
        }
        #expect(store.state.results == ["ore 1", "ore 2"])
    }

    // The last snippet, the test, as the guide shows it (with the guide's names in scope).
    @Test("TakeLatest guide: typing ten characters searches once and applies one result")
    func typingSearchesOnce() async throws {
        typealias SearchState = App.SearchState
        typealias SetQuery = App.SetQuery
        typealias SetResults = App.SetResults
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let searchReducer = App.searchReducer
        let searchGraph = App.searchGraph

        let store = TestStore(initialState: SearchState(), reducer: searchReducer)
        store.stub(Search.self) { search in ["\(search.text) 1"] }
        var typed = ""
        for character in "oresredux!" {
            typed.append(character)
            try store.send(SetQuery(text: typed)) { $0.query = typed }
            store.dispatch(searchGraph(typed), id: SearchID.search, policy: .debounce(.milliseconds(300)))
            try await store.clock.waitForSleepers(1)
            await store.clock.advance(by: .milliseconds(100))
        }
        await store.clock.advance(by: .milliseconds(200))
        try await store.receive(SetResults(results: ["oresredux! 1"])) { $0.results = ["oresredux! 1"] }
        try await store.finish()
        #expect(store.calls(to: Search.self) == [Search(text: "oresredux!")])
    }
}
