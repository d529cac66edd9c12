import Foundation
import Observation
import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/Essentials/ObservationBridge.md (all but the SwiftUI view, which needs
// an Apple platform).

extension GuideApp {
    @MainActor final class HomeScreen {
        let model: ObservedStore<AppState, AppState>
        init(store: Store<AppState>) { model = ObservedStore(store) }

        var title: String { model.profile?.name ?? "Loading…" }
        func logIn() { model.dispatch(homeGraph().graph) }
    }

    /// Counts invalidations reported by `withObservationTracking`, from any thread.
    final class Invalidations: @unchecked Sendable {
        // @unchecked: `count` is only touched between lock() and unlock().
        private let lock = NSLock()
        private var count = 0
        func fire() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    @Suite("Guide: Observing the Store from the Main Actor")
    struct ObservationBridgeGuide {
        @Test("ObservationBridge guide: subscribeOnMainActor delivers the selected value on the main actor, in order")
        func mainActorDelivery() async throws {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
            let store = Store(initialState: AppState(), reducer: appReducer)

            let subscription = store.subscribeOnMainActor({ $0.banner }) { banner in
                MainActor.assertIsolated()
                print("banner:", banner ?? "none")  // on the main actor
            }
            store.dispatch(ShowBanner(message: "Saved"))
            // banner: none, then banner: Saved

            try await withDeadline(10, "the two banner lines") { await printed.waitFor(count: 2) }
            subscription.cancel()
            #expect(printed.all == ["banner: none", "banner: Saved"])
        }

        @Test("ObservationBridge guide: a screen that read only the profile is not invalidated by the feed")
        @MainActor
        func perMemberTracking() async {
            let store = Store(initialState: AppState(), reducer: appReducer)
            let screen = HomeScreen(store: store)
            #expect(screen.title == "Loading…")

            let invalidations = Invalidations()
            withObservationTracking {
                _ = screen.title
            } onChange: {
                invalidations.fire()
            }

            store.dispatch(MarkRead(id: 1))
            await screen.model.waitUntil { $0.read == [1] }
            #expect(invalidations.value == 0)

            screen.logIn()
            await screen.model.waitUntil { $0.feed.count == 2 }
            #expect(invalidations.value == 1)
            #expect(screen.title == "Ada")
        }

        @Test("ObservationBridge guide: a mirror of a selected part")
        @MainActor
        func selectedPart() async {
            let store = Store(initialState: AppState(), reducer: appReducer)

            let unread = ObservedStore(store, select: { $0.feed.count })
            let size = unread.value  // the feed's size, updated on the main actor

            #expect(size == 0)
            store.dispatch(ShowHome(profile: Profile(name: "Ada"), feed: [Post(id: 1)]))
            await unread.waitUntil { $0 == 1 }
            #expect(unread.value == 1)
        }
    }
}
