import OresRedux
import Testing

extension CoreStore {
    @Suite struct Reducers {
        struct Profile: Equatable, Sendable { var visits = 0 }

        struct AppState: Equatable, Sendable {
            var counter = 0
            var title = "home"
            var profile: Profile?
        }

        struct Visit: Action {}

        @Test func onHandlesItsActionTypeAndIgnoresEveryOther() {
            let reducer = Reducer<Int>.on(Increment.self) { count, action in count += action.by }
            var count = 10

            reducer(&count, SetValue(value: 99))
            reducer(&count, Unknown())
            #expect(count == 10)

            reducer(&count, Increment(by: 5))
            #expect(count == 15)
        }

        struct Rename: Action {
            var names: [String]
            var note: String?
        }

        // Why this is safe to share: every stored property is a `let` of a Sendable type; the class is
        // open only so that a subclass can stand for its parent in `on`.
        class Announcement: Action, @unchecked Sendable {
            let text: String
            init(text: String) { self.text = text }
        }
        final class UrgentAnnouncement: Announcement, @unchecked Sendable {}

        @Test func onHandsOverTheWholeActionWithItsReferenceCountedFields() {
            let reducer = Reducer<[String]>.on(Rename.self) { names, action in
                names = action.names + [action.note ?? "-"]
            }
            var names: [String] = []
            for round in 0..<1_000 {
                reducer(&names, Rename(names: ["ada", "grace \(round)"], note: "round \(round)"))
            }
            #expect(names == ["ada", "grace 999", "round 999"])
        }

        @Test func onForAClassActionAlsoHandlesItsSubclasses() {
            let any = Reducer<[String]>.on(Announcement.self) { log, action in log.append("any: \(action.text)") }
            let urgent = Reducer<[String]>.on(UrgentAnnouncement.self) { log, action in
                log.append("urgent: \(action.text)")
            }
            var log: [String] = []

            any(&log, UrgentAnnouncement(text: "fire"))
            urgent(&log, Announcement(text: "lunch"))
            urgent(&log, UrgentAnnouncement(text: "flood"))

            #expect(log == ["any: fire", "urgent: flood"])
        }

        @Test func combineAppliesItsReducersInTheOrderGiven() {
            let reducer = Reducer<[String]>.combine(
                Reducer { journal, _ in journal.append("first") },
                Reducer { journal, _ in journal.append("second") },
                Reducer { journal, _ in journal.append("third") }
            )
            var journal: [String] = []

            reducer(&journal, Unknown())

            #expect(journal == ["first", "second", "third"])
        }

        @Test func combineOfNoReducersLeavesTheStateAlone() {
            var count = 7
            Reducer<Int>.combine()(&count, Increment())
            #expect(count == 7)
        }

        @Test func eachCombinedReducerSeesTheStateTheOneBeforeItLeft() {
            let reducer = Reducer<Int>.combine(
                .on(Increment.self) { count, action in count += action.by },
                Reducer { count, _ in count *= 10 }
            )
            var count = 1

            reducer(&count, Increment(by: 2))

            #expect(count == 30)  // (1 + 2) * 10, not 1 * 10 + 2
        }

        @Test func scopeRunsAChildReducerOnItsPartOfTheState() {
            let reducer = Reducer<AppState>.scope(\.counter, CoreStore.counterReducer())
            var state = AppState()

            reducer(&state, Increment(by: 3))

            #expect(state == AppState(counter: 3, title: "home", profile: nil))
        }

        @Test func optionalScopeSkipsTheChildWhileItsPartIsNil() {
            let counted = Reducer<Profile>.on(Visit.self) { profile, _ in profile.visits += 1 }
            let reducer = Reducer<AppState>.scope(\.profile, counted)
            var state = AppState()

            reducer(&state, Visit())
            #expect(state.profile == nil)

            state.profile = Profile()
            reducer(&state, Visit())
            reducer(&state, Visit())
            #expect(state.profile == Profile(visits: 2))

            state.profile = nil
            reducer(&state, Visit())
            #expect(state.profile == nil)
        }

        @Test func scopedReducersCombineIntoAStoreReducer() {
            let store = Store(
                initialState: AppState(profile: Profile()),
                reducer: .combine(
                    .scope(\.counter, CoreStore.counterReducer()),
                    .scope(\.profile, .on(Visit.self) { profile, _ in profile.visits += 1 })
                ))

            store.dispatch(Increment(by: 2))
            store.dispatch(Visit())

            #expect(store.state == AppState(counter: 2, title: "home", profile: Profile(visits: 1)))
        }
    }
}
