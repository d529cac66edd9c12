import Testing

@testable import OresRedux

/// What an owner keeps of the work it started: only what has not ended.
@Suite("Work that belongs to a screen: the owner's bookkeeping")
struct OwnerCoreTests {
    typealias AppState = OwnerStories.AppState

    @Test("an async action's owner forgets it when its task ends, before its value is returned")
    func asyncActionForgottenAtItsEnd() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Screen")
        for round in 0..<3 {
            let value = try await withDeadline {
                try await owner.dispatch(OwnerStories.Quick<AppState>(name: "call \(round)")).value
            }
            #expect(value == "call \(round)")
            #expect(owner.core.adoptedCount == 0, "nothing left to end once the action ended")
        }
    }

    @Test("an async action dispatched by id through an owner is forgotten when its task ends")
    func asyncActionByIDForgottenAtItsEnd() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Search screen")
        let value = try await withDeadline {
            try await owner.dispatch(OwnerStories.Quick<AppState>(name: "found"), id: "search").value
        }
        #expect(value == "found")
        #expect(owner.core.adoptedCount == 0)
    }
}
