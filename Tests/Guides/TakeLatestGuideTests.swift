import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/RunningWork/TakeLatestDebounceThrottle.md.

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

    // The snippet of "What a replaced or cancelled task throws": a keyed action under an id.
    struct LoadSuggestions: KeyedAsyncAction, Equatable {
        let text: String
        var key: String { text }  // one request per text at a time
        func run(_ context: ActionContext<SearchState>) async throws -> [String] {
            try await SearchService.shared.search(text)
        }
    }

    /// Not in the guide: a search that ignores cancellation, to show what its handle returns.
    struct StubbornSearch: AsyncAction {
        let text: String
        let started: GuideApp.Lines
        let answer: GuideApp.Lines
        func run(_ context: ActionContext<SearchState>) async throws -> [String] {
            started.append(text)
            await answer.waitFor(count: 1)  // does not end on cancellation
            context.dispatch(SetResults(results: ["\(text) 1"]))  // dropped: it was replaced
            return ["\(text) 1"]
        }
    }

    /// Not in the guide: keeps the context of the action that ran, to dispatch after the store is gone.
    final class ContextBox: @unchecked Sendable {
        // @unchecked: `context` is read and written only under `lock`.
        private let lock = NSLock()
        private var stored: ActionContext<SearchState>?
        var context: ActionContext<SearchState>? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    struct RememberContext: AsyncAction {
        let box: ContextBox
        func run(_ context: ActionContext<SearchState>) async throws { box.context = context }
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

    // "What a replaced or cancelled task throws", as the guide shows it.
    @Test("TakeLatest guide: a replaced search throws CancellationError, the latest answers")
    func aReplacedSearchThrowsCancellationError() async throws {
        typealias SearchState = App.SearchState
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let searchReducer = App.searchReducer

        let store = TestStore(initialState: SearchState(), reducer: searchReducer)
        let searches = store.hold(Search.self)
        let first = store.dispatch(Search(text: "ore"), id: SearchID.search)
        _ = try await searches.nextCall()  // "ore" is in flight
        let second = store.dispatch(Search(text: "ores"), id: SearchID.search)  // replaces it
        await #expect(throws: CancellationError.self) { try await withDeadline { try await first.value } }

        _ = try await searches.nextCall()
        searches.respond(with: ["ores 1"])
        #expect(try await withDeadline { try await second.value } == ["ores 1"])
        try await store.finish()
    }

    @Test("TakeLatest guide: a debounced search cancelled before it started throws, its run never called")
    func aWaitingSearchCancelledThrows() async throws {
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let store = TestStore(initialState: App.SearchState(), reducer: App.searchReducer)
        store.stub(Search.self) { search in ["\(search.text) 1"] }

        let waiting = store.dispatch(Search(text: "o"), id: SearchID.search, policy: .debounce(.milliseconds(300)))
        try await store.clock.waitForSleepers(1)
        store.cancel(id: SearchID.search)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await waiting.value } }
        try await store.finish()
        #expect(store.calls(to: Search.self).isEmpty)
    }

    @Test("TakeLatest guide: a keyed dispatch under an id withdraws from the shared call, which goes on")
    func aWithdrawnKeyedDispatchThrows() async throws {
        typealias LoadSuggestions = App.LoadSuggestions
        typealias SearchID = App.SearchID
        let store = TestStore(initialState: App.SearchState(), reducer: App.searchReducer)
        let loads = store.hold(LoadSuggestions.self)

        let mine = store.dispatch(LoadSuggestions(text: "ore"), id: SearchID.search)
        let other = store.dispatch(LoadSuggestions(text: "ore"))  // joins the same call
        _ = try await loads.nextCall()
        store.cancel(id: SearchID.search)
        await #expect(throws: CancellationError.self) { try await withDeadline { try await mine.value } }  // at once
        loads.respond(with: ["ore 1"])
        #expect(try await withDeadline { try await other.value } == ["ore 1"])
        try await store.finish()
        #expect(loads.calls.count == 1)
    }

    @Test("TakeLatest guide: a replaced action that ignores cancellation returns its response, its dispatch dropped")
    func aReplacedActionIgnoringCancellationReturns() async throws {
        let store = Store(initialState: App.SearchState(), reducer: App.searchReducer)
        let started = GuideApp.Lines()
        let answer = GuideApp.Lines()
        let first = store.dispatch(
            App.StubbornSearch(text: "ore", started: started, answer: answer), id: App.SearchID.search)
        try await withDeadline(10, "the stubborn search to start") { await started.waitFor(count: 1) }
        store.cancel(id: App.SearchID.search)
        answer.append("now")
        let response = try await withDeadline(10, "the stubborn search") { try await first.value }
        #expect(response == ["ore 1"], "not CancellationError: run returned normally")
        #expect(store.state.results.isEmpty, "what it dispatched after the cancel was dropped")
    }

    @Test("TakeLatest guide: work dispatched after its store was released throws StoreError.storeReleased")
    func afterReleaseThrowsStoreReleased() async throws {
        let box = App.ContextBox()
        var store: Store<App.SearchState>? = Store(initialState: App.SearchState(), reducer: App.searchReducer)
        let remember = store!.dispatch(App.RememberContext(box: box))
        try await withDeadline(10, "RememberContext") { try await remember.value }
        store = nil
        let context = try #require(box.context)
        let late = context.dispatch(App.Search(text: "late"), id: App.SearchID.search)
        await #expect(throws: StoreError.storeReleased) { try await withDeadline { try await late.value } }
        let lateAlone = context.dispatch(App.Search(text: "late"))
        await #expect(throws: StoreError.storeReleased) { try await withDeadline { try await lateAlone.value } }
    }

    @Test("TakeLatest guide: a throttle's interval counts from the last start, not from its end")
    func throttleCountsFromTheLastStart() async throws {
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let store = TestStore(initialState: App.SearchState(), reducer: App.searchReducer)
        let searches = store.hold(Search.self)

        let a = store.dispatch(Search(text: "a"), id: SearchID.search, policy: .throttle(.seconds(1)))  // t = 0: starts
        #expect(try await searches.nextCall() == Search(text: "a"))
        await store.clock.advance(by: .milliseconds(400))
        let b = store.dispatch(Search(text: "b"), id: SearchID.search, policy: .throttle(.seconds(1)))  // waits
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .milliseconds(600))  // t = 1 s: "b" starts, though "a" is still running
        #expect(try await searches.nextCall() == Search(text: "b"))
        #expect(searches.waitingCount == 2, "the throttle cancelled nothing that had started")

        // "c" comes 0.2 s after "b" started: it waits until 1 s after that start (t = 2 s).
        await store.clock.advance(by: .milliseconds(200))
        let c = store.dispatch(Search(text: "c"), id: SearchID.search, policy: .throttle(.seconds(1)))
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .milliseconds(799))
        #expect(searches.calls.count == 2)
        await store.clock.advance(by: .milliseconds(1))
        #expect(try await searches.nextCall() == Search(text: "c"))

        searches.respond(with: ["a 1"])
        searches.respond(with: ["b 1"])
        searches.respond(with: ["c 1"])
        #expect(try await withDeadline { try await a.value } == ["a 1"])
        #expect(try await withDeadline { try await b.value } == ["b 1"])
        #expect(try await withDeadline { try await c.value } == ["c 1"])
        try await store.finish()
    }

    @Test(
        "TakeLatest guide: a zero or negative throttle starts every dispatch at once and cancels none",
        arguments: [Duration.zero, .seconds(-1)])
    func zeroOrNegativeThrottle(interval: Duration) async throws {
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let store = TestStore(initialState: App.SearchState(), reducer: App.searchReducer)
        let searches = store.hold(Search.self)

        let a = store.dispatch(Search(text: "a"), id: SearchID.search, policy: .throttle(interval))
        let b = store.dispatch(Search(text: "b"), id: SearchID.search, policy: .throttle(interval))
        _ = try await searches.nextCall()
        _ = try await searches.nextCall()
        #expect(Set(searches.calls.map(\.text)) == ["a", "b"])
        #expect(store.clock.sleeperCount == 0)
        searches.respond(with: ["1"])
        searches.respond(with: ["2"])
        let answers = [try await withDeadline { try await a.value }, try await withDeadline { try await b.value }]
        #expect(Set(answers) == [["1"], ["2"]], "both ran to the end")
        try await store.finish()
    }

    @Test(
        "TakeLatest guide: a zero or negative debounce waits for nothing, and still only the latest runs",
        arguments: [Duration.zero, .seconds(-1)])
    func zeroOrNegativeDebounce(quiet: Duration) async throws {
        typealias Search = App.Search
        typealias SearchID = App.SearchID
        let store = TestStore(initialState: App.SearchState(), reducer: App.searchReducer)
        let searches = store.hold(Search.self)

        let a = store.dispatch(Search(text: "a"), id: SearchID.search, policy: .debounce(quiet))
        let b = store.dispatch(Search(text: "b"), id: SearchID.search, policy: .debounce(quiet))
        await #expect(throws: CancellationError.self) { try await withDeadline { try await a.value } }
        var call = try await searches.nextCall()
        if call.text == "a" { call = try await searches.nextCall() }  // "a" may have started before "b" came
        #expect(call == Search(text: "b"))
        searches.respond(with: ["b 1"])
        #expect(try await withDeadline { try await b.value } == ["b 1"])
        #expect(store.clock.now == VirtualClock.Instant(offset: .zero), "no time had to pass")
        try await store.finish()
    }
}
