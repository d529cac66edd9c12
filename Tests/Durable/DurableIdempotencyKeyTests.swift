import Foundation
import Testing

@testable import OresRedux

/// An idempotency key is derived, never drawn: the same run and node give the same key in every
/// process and release, anything else gives another.
@Suite struct DurableIdempotencyKeyTests {
    @Test("the derivation is pinned: these literals were computed independently (Python hashlib)")
    func keysArePinned() {
        // If one of these changes, every server that deduplicates on our keys sees new requests.
        #expect(IdempotencyKey(runID: "post-42", node: "upload").rawValue == "ik1-4047d5f40c91c0c231c43bd2f23f8610")
        #expect(
            IdempotencyKey(runID: "post-42", node: "createPost").rawValue == "ik1-70a6abaea0aa2ebe1ea299b784122830")
        #expect(IdempotencyKey(runID: "", node: "").rawValue == "ik1-ac24535aeb018e93ffd97ff649b4d291")
    }

    @Test("every attempt of a node in a run gets the same key; description is the key")
    func sameInputsSameKey() {
        let first = IdempotencyKey(runID: "post-42", node: "upload")
        let second = IdempotencyKey(runID: "post-42", node: "upload")
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first.description == first.rawValue)
    }

    @Test("a different run id or node name gives a different key, also where a separator would blur them")
    func differentInputsDifferentKeys() {
        let pairs = [
            ("post-42", "upload"), ("post-43", "upload"), ("post-42", "uploadPhoto"), ("a/b", "c"), ("a", "b/c"),
            ("ab", "c"), ("a", "bc"), ("", "abc"), ("abc", ""), ("é", "x"), ("e\u{301}", "x"),
        ]
        let keys = Set(pairs.map { IdempotencyKey(runID: $0.0, node: $0.1) })
        #expect(keys.count == pairs.count)
    }

    @Test("a key encodes as its string and decodes back")
    func codable() throws {
        let key = IdempotencyKey(runID: "post-42", node: "upload")
        let data = try JSONEncoder().encode([key])
        #expect(String(decoding: data, as: UTF8.self) == "[\"ik1-4047d5f40c91c0c231c43bd2f23f8610\"]")
        #expect(try JSONDecoder().decode([IdempotencyKey].self, from: data) == [key])
    }
}
