import OresRedux
import Testing

extension CoreStore {
    /// Semantics 9: a dispatch from inside a subscriber (or middleware) is queued and applied right
    /// after the current action; the outermost dispatch returns once the queue is empty.
    @Suite struct Reentrancy {
        @Test func aSubscriberThatDispatchesHasItsActionsAppliedAfterTheCurrentOneFIFO() {
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer())
            let reactorSaw = Recorder<[String]>()
            let witnessSaw = Recorder<[String]>()
            let reactor = store.subscribe { journal in
                reactorSaw.record(journal)
                switch journal.last {
                case "login":
                    store.dispatch(Append(text: "profile"))
                    store.dispatch(Append(text: "feed"))
                case "profile":
                    store.dispatch(Append(text: "render"))
                default:
                    break
                }
            }
            let witness = store.subscribe { witnessSaw.record($0) }

            store.dispatch(Append(text: "login"))

            // FIFO: "render" (queued while applying "profile") comes after "feed" (queued before it).
            let commits: [[String]] = [
                [],
                ["login"],
                ["login", "profile"],
                ["login", "profile", "feed"],
                ["login", "profile", "feed", "render"],
            ]
            #expect(store.state == commits.last)  // the outer dispatch returned after all of them
            #expect(reactorSaw.values == commits)
            #expect(witnessSaw.values == commits)  // the later subscriber saw "login" before "profile"
            withExtendedLifetime((reactor, witness)) {}
        }

        @Test func aDispatchFromASubscribersFirstCallIsQueuedUntilThatCallReturns() {
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let calls = Recorder<String>()

            let subscription = store.subscribe { count in
                calls.record("begin \(count)")
                if count == 0 { store.dispatch(Increment()) }
                calls.record("end \(count)")
            }

            // Not "begin 0, begin 1, end 1, end 0": the observer is never re-entered.
            #expect(calls.values == ["begin 0", "end 0", "begin 1", "end 1"])
            #expect(store.state == 1)  // and nothing was left behind in the queue
            withExtendedLifetime(subscription) {}
        }

        @Test func aLongChainOfSubscriberDispatchesIsQueuedNotNested() async {
            // 10_000 nested calls would overflow a small stack; a queue does not care.
            let store = Store(initialState: 0, reducer: CoreStore.counterReducer())
            let seen = Recorder<Int>()
            let chain = store.subscribe { count in
                seen.record(count)
                if count > 0, count < 10_000 { store.dispatch(Increment()) }
            }

            // On a plain thread: the 10_000 commits are one dispatch, long under ThreadSanitizer,
            // that would hold a cooperative-pool thread all along.
            await onThread { store.dispatch(Increment()) }

            #expect(store.state == 10_000)
            #expect(seen.values == Array(0...10_000))
            withExtendedLifetime(chain) {}
        }

        @Test func nothingIsLostWhenSeveralSubscribersDispatchDuringTheSameCommit() {
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer())
            let first = store.subscribe { journal in
                if journal == ["start"] { store.dispatch(Append(text: "from first")) }
            }
            let second = store.subscribe { journal in
                if journal == ["start"] { store.dispatch(Append(text: "from second")) }
            }

            store.dispatch(Append(text: "start"))

            #expect(store.state == ["start", "from first", "from second"])
            withExtendedLifetime((first, second)) {}
        }

        @Test func aMiddlewareDispatchingThroughItsContextIsQueuedNotAppliedInTheMiddle() {
            let contextSaw = Recorder<[String]>()
            let peek = Middleware<[String]> { action, context, next in
                next(action)
                if let append = action as? Append, append.text == "a" {
                    context.dispatch(Append(text: "b"))
                    contextSaw.record(context.state)  // "b" is not applied yet
                }
            }
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer(), middleware: [peek])

            store.dispatch(Append(text: "a"))

            #expect(contextSaw.values == [["a"]])
            #expect(store.state == ["a", "b"])
        }

        @Test func theOuterDispatchFromAnotherTaskReturnsOnlyAfterEverythingQueuedDuringIt() async {
            let store = Store(initialState: [String](), reducer: CoreStore.journalReducer())
            let reactor = store.subscribe { journal in
                if journal.last == "ping" { store.dispatch(Append(text: "pong")) }
            }

            let stateRightAfter = await Task.detached {
                store.dispatch(Append(text: "ping"))
                return store.state
            }.value

            #expect(stateRightAfter == ["ping", "pong"])
            withExtendedLifetime(reactor) {}
        }
    }
}
