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

            #expect(count == 30)   // (1 + 2) * 10, not 1 * 10 + 2
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
