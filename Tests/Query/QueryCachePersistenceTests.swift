import Foundation
import OresRedux
import OresReduxQuery
import OresReduxTesting
import Testing

/// An app state that holds a query cache is saved with `StatePersistence` like any other: its
/// `Codable` conformance is synthesized, and the cache comes back empty (its answers are fetched
/// again by the screens of the next launch).
private struct SavedApp: Codable, Equatable, Sendable {
    var draft = ""
    var cache = QueryCache()
}

@Suite("Query cache: persisted state")
struct QueryCachePersistenceTests {
    typealias Feed = QueryFixtures.Feed

    @Test("a state holding a cache with answers is saved and restored; the cache comes back empty")
    func savedAndRestoredEmpty() async throws {
        let store = QueryFixtures.makeStore()
        let feeds = store.hold(Feed.self)
        let screen = QueryFixtures.queries.observe(Feed(userID: 1), in: store)
        _ = try await feeds.nextCall()
        feeds.respond(with: [QueryFixtures.hello])
        try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
        #expect(store.state.cache.feed(1) == [QueryFixtures.hello])

        let saved = SavedApp(draft: "half a sentence", cache: store.state.cache)
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("query-cache-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try StatePersistence.writeAtomically(JSONEncoder().encode(saved), to: file)
        let (restored, error) = StatePersistence.restore(from: file, default: SavedApp())

        #expect(error == nil)
        #expect(restored.draft == "half a sentence", "the rest of the state is kept")
        #expect(restored.cache == QueryCache(), "the cache is restored empty")
        screen.cancel()
        try await store.clock.waitForSleepers(1)
        await store.clock.advance(by: .seconds(60))
        try await store.receive(QueryCollected.self, notAsserting: [\.cache])
        try await store.finish()
    }
}
