import OresRedux
import Testing

// The snippets of Sources/OresRedux.docc/Essentials/TheStore.md. `print` is shadowed by a local function that
// records the line, so each snippet reads as in the guide and the test can check what it printed.

extension GuideApp {
    @Suite("Guide: The Store")
    struct StoreGuide {
        @Test("Store guide: a counter, applied before dispatch returns")
        func countingWithAReducer() {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

            let counter = Reducer<Int>.combine(
                .on(Increment.self) { count, action in count += action.amount },
                .on(Reset.self) { count, _ in count = 0 }
            )

            let store = Store(initialState: 0, reducer: counter)
            store.dispatch(Increment(amount: 2))
            print(store.state)  // 2: applied before dispatch returned

            #expect(store.state == 2)
            #expect(printed.all == ["2"])
            store.dispatch(Reset())
            #expect(store.state == 0)
        }

        @Test("Store guide: scoped reducers change only their part of the state")
        func scopedReducers() {
            let settingsReducer = Reducer<Settings>.on(ToggleDarkMode.self) { settings, _ in
                settings.darkMode.toggle()
            }

            let appReducer = Reducer<AppState>.combine(
                .scope(\.count, counter),
                .scope(\.settings, settingsReducer),
                .on(ShowBanner.self) { state, action in state.banner = action.message }
            )

            let store = Store(initialState: AppState(), reducer: appReducer)
            store.dispatch(Increment(amount: 3))
            store.dispatch(ToggleDarkMode())
            store.dispatch(ShowBanner(message: "hello"))
            #expect(store.state == AppState(count: 3, settings: Settings(darkMode: true), banner: "hello"))
        }

        @Test("Store guide: subscribers are called at once, then on change; select only when the value changed")
        func subscribersAndSelect() {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

            let store = Store(initialState: AppState(), reducer: appReducer)
            let everything = store.subscribe { state in print("count:", state.count) }
            let darkMode = store.subscribe({ $0.settings.darkMode }) { isDark in print("dark mode:", isDark) }
            // count: 0, dark mode: false (each observer is called at once)

            store.dispatch(Increment())  // count: 1
            store.dispatch(ToggleDarkMode())  // count: 1, dark mode: true
            everything.cancel()

            #expect(printed.all == ["count: 0", "dark mode: false", "count: 1", "count: 1", "dark mode: true"])
            store.dispatch(Increment())  // `everything` was cancelled; dark mode did not change
            #expect(printed.all.count == 5)
            #expect(!darkMode.isCancelled)
        }

        @Test("Store guide: states() yields the current state, then every committed state")
        func statesStream() async {
            let store = Store(initialState: AppState(), reducer: appReducer)

            let states = store.states()
            store.dispatch(Increment())
            store.dispatch(Increment())

            var counts: [Int] = []
            for await state in states {
                counts.append(state.count)
                if counts.count == 3 { break }
            }
            // counts == [0, 1, 2]

            #expect(counts == [0, 1, 2])
        }

        @Test("Store guide: middleware logs, then drops a negative increment")
        func middlewareLogsAndDrops() {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

            let dropNegative = Middleware<AppState> { action, context, next in
                if let increment = action as? Increment, increment.amount < 0 { return }  // dropped
                next(action)
            }

            let store = Store(
                initialState: AppState(), reducer: appReducer,
                middleware: [.logger { print($0) }, dropNegative])
            store.dispatch(Increment(amount: -5))
            // action: Increment(amount: -5)
            // state: AppState(count: 0, ...)

            #expect(store.state.count == 0)
            #expect(printed.all.count == 2)
            #expect(printed.all.first == "action: Increment(amount: -5)")
            #expect(printed.all.last?.hasPrefix("state: AppState(count: 0,") == true)

            store.dispatch(Increment(amount: 5))
            #expect(store.state.count == 5)
        }

        @Test("Store guide: a subscriber's dispatch is queued and applied before the outer dispatch returns")
        func reentrancy() {
            let printed = Lines()
            @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

            let store = Store(initialState: AppState(), reducer: appReducer)
            let autoReset = store.subscribe({ $0.count }) { count in
                if count >= 10 { store.dispatch(Reset()) }  // queued: applied right after the current action
            }
            store.dispatch(Increment(amount: 10))
            print(store.state.count)  // 0: the outer dispatch returned after Reset was applied too
            autoReset.cancel()

            #expect(printed.all == ["0"])
            #expect(store.state.count == 0)
        }
    }
}
