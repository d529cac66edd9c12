import Foundation
import OresRedux
import OresReduxQuery
import Testing

/// The query cache's order promise (the guide "Server Data: Queries and Mutations") against a reference model, on random
/// histories of fetches, polls, answers in random order, mutations that succeed or fail with their
/// optimistic changes, invalidations by tag and by prefix, observers that come and go, collection
/// and clear-all (see `QueryCacheFuzz`).
///
/// Each round is built from its own seed, printed in every failure. Replay one:
/// `ORESREDUX_QUERY_SEED=<seed> ORESREDUX_QUERY_ROUNDS=1 swift test --filter QueryCacheFuzz`;
/// run many: `ORESREDUX_QUERY_ROUNDS=20000 swift test --filter QueryCacheFuzz`.
@Suite("Query cache: the order promise against a model")
struct QueryCacheFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let baseSeed = environment["ORESREDUX_QUERY_SEED"].flatMap { UInt64($0) } ?? 0x51_CACE
    static let rounds = environment["ORESREDUX_QUERY_ROUNDS"].flatMap { Int($0) } ?? 100

    @Test("random histories keep every promise of the order, and end on the server's values")
    func randomHistoriesKeepTheOrderPromise() {
        for round in 0..<Self.rounds {
            let seed = Self.baseSeed &+ UInt64(round)
            if let violation = QueryCacheFuzz<QueryCache>.run(seed: seed) {
                Issue.record("\(violation)")
                return
            }
        }
    }

    @Test("a naive cache, which applies every answer as it arrives, is caught")
    func aNaiveCacheIsCaught() {
        var caught: QueryFuzzViolation?
        for round in 0..<Self.rounds where caught == nil {
            caught = QueryCacheFuzz<NaiveQueryCache>.run(seed: Self.baseSeed &+ UInt64(round))
        }
        #expect(caught != nil, "the fuzz found nothing wrong with a cache that applies every answer as it arrives")
        if let caught { print("The naive cache, caught as it should be:\n\(caught)") }
    }
}
