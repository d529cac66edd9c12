import OresRedux
import Testing

extension CoreStore {
    @Suite struct Middlewares {
        /// Marks each `Append` it forwards with `mark`, so the journal shows which middleware ran in
        /// which order.
        static func marking(_ mark: String) -> Middleware<[String]> {
            Middleware { action, _, next in
                if let append = action as? Append {
                    next(Append(text: append.text + mark))
                } else {
                    next(action)
                }
            }
        }

        /// A journal that records the type of every action that reaches the reducer.
        static func everyActionReducer() -> Reducer<[String]> {
            Reducer { journal, action in
                if let append = action as? Append {
                    journal.append(append.text)
                } else {
                    journal.append("\(type(of: action))")
                }
            }
        }

        @Test func middlewareRunsInTheOrderGivenBeforeTheReducer() {
            let store = Store(
                initialState: [String](), reducer: CoreStore.journalReducer(),
                middleware: [Self.marking("-1"), Self.marking("-2"), Self.marking("-3")])

            store.dispatch(Append(text: "a"))

            #expect(store.state == ["a-1-2-3"])
        }

        @Test func forwardedActionsReachTheReducerAndSubscribers() {
            let seenActions = Recorder<String>()
            let forward = Middleware<[String]> { action, _, next in
                seenActions.record("\(type(of: action))")
                next(action)
            }
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer(), middleware: [forward])
            let states = Recorder<[String]>()
            let subscription = store.subscribe { states.record($0) }

            store.dispatch(Append(text: "a"))

            #expect(seenActions.values == ["Append"])
            #expect(store.state == ["a"])
            #expect(states.values == [[], ["a"]])
            withExtendedLifetime(subscription) {}
        }

        @Test func aDroppedActionReachesNeitherTheReducerNorTheSubscribers() {
            let dropUnknown = Middleware<[String]> { action, _, next in
                if action is Unknown { return }
                next(action)
            }
            let store = Store(
                initialState: [String](), reducer: Self.everyActionReducer(),
                middleware: [dropUnknown])
            let states = Recorder<[String]>()
            let subscription = store.subscribe { states.record($0) }

            store.dispatch(Unknown())
            #expect(store.state == [])
            #expect(states.values == [[]])

            store.dispatch(Append(text: "kept"))
            #expect(store.state == ["kept"])
            #expect(states.values == [[], ["kept"]])
            withExtendedLifetime(subscription) {}
        }

        @Test func aDroppedActionNeverReachesTheMiddlewareAfterIt() {
            let later = Recorder<String>()
            let drop = Middleware<[String]> { _, _, _ in }
            let spy = Middleware<[String]> { action, _, next in
                later.record("\(type(of: action))")
                next(action)
            }
            let store = Store(
                initialState: [String](), reducer: Self.everyActionReducer(),
                middleware: [drop, spy])

            store.dispatch(Append(text: "a"))

            #expect(later.values == [])
            #expect(store.state == [])
        }

        @Test func aReplacedActionIsWhatTheReducerReceives() {
            let replaceDrafts = Middleware<[String]> { action, _, next in
                if let append = action as? Append, append.text == "draft" {
                    next(Append(text: "final"))
                } else {
                    next(action)
                }
            }
            let store = Store(
                initialState: [String](), reducer: CoreStore.journalReducer(),
                middleware: [replaceDrafts])

            store.dispatch(Append(text: "draft"))
            store.dispatch(Append(text: "other"))

            #expect(store.state == ["final", "other"])
        }

        @Test func actionsDispatchedFromMiddlewareAreAppliedAfterTheCurrentOneInOrder() {
            let afterLogin = Middleware<[String]> { action, context, next in
                if let append = action as? Append, append.text == "login" {
                    context.dispatch(Append(text: "fetch profile"))
                    context.dispatch(Append(text: "fetch feed"))
                }
                next(action)
            }
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer(), middleware: [afterLogin])
            let states = Recorder<[String]>()
            let subscription = store.subscribe { states.record($0) }

            store.dispatch(Append(text: "login"))

            // Right after the outer dispatch returns, everything the middleware queued is applied.
            #expect(store.state == ["login", "fetch profile", "fetch feed"])
            #expect(
                states.values == [
                    [],
                    ["login"],
                    ["login", "fetch profile"],
                    ["login", "fetch profile", "fetch feed"],
                ])
            withExtendedLifetime(subscription) {}
        }

        @Test func actionsDispatchedFromMiddlewarePassThroughTheWholeMiddlewareChainToo() {
            let spawn = Middleware<[String]> { action, context, next in
                if let append = action as? Append, append.text == "parent" {
                    context.dispatch(Append(text: "child"))
                }
                next(action)
            }
            let store = Store(
                initialState: [String](), reducer: CoreStore.journalReducer(),
                middleware: [spawn, Self.marking("*")])

            store.dispatch(Append(text: "parent"))

            #expect(store.state == ["parent*", "child*"])
        }

        @Test func middlewareReadsTheStateBeforeAndAfterTheReducerThroughItsContext() {
            let around = Recorder<String>()
            let observe = Middleware<Int> { action, context, next in
                around.record("before \(context.state)")
                next(action)
                around.record("after \(context.state)")
            }
            let store = Store(initialState: 1, reducer: CoreStore.counterReducer(), middleware: [observe])

            store.dispatch(Increment(by: 2))

            #expect(around.values == ["before 1", "after 3"])
        }

        @Test func loggerWritesAnActionLineThenAStateLineForEachAction() {
            let lines = Recorder<String>()
            let store = Store(
                initialState: [String](), reducer: CoreStore.journalReducer(),
                middleware: [.logger { lines.record($0) }])

            store.dispatch(Append(text: "a"))
            store.dispatch(Append(text: "b"))

            #expect(
                lines.values == [
                    "action: \(Append(text: "a"))",
                    "state: \(["a"])",
                    "action: \(Append(text: "b"))",
                    "state: \(["a", "b"])",
                ])
            #expect(lines.values.first?.hasPrefix("action: Append(") == true)
        }

        @Test func loggerStillLogsAnActionALaterMiddlewareDropsWithTheUnchangedState() {
            let lines = Recorder<String>()
            let dropAll = Middleware<Int> { _, _, _ in }
            let store = Store(
                initialState: 5, reducer: CoreStore.counterReducer(),
                middleware: [.logger { lines.record($0) }, dropAll])

            store.dispatch(Increment())

            #expect(lines.values == ["action: \(Increment())", "state: 5"])
        }
    }
}
