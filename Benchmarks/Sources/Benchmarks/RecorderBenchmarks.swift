import OresRedux

// Issue 31, item 4: what the inspector's recorder costs the thread that dispatches. The store with
// the recorder against the same store without it, paired; after each run of the recorder's side,
// untimed, its queue is emptied (`clear()`), so no describing is left to run beside the other side.

/// A state with a 10,000-item array and a 10,000-key dictionary (each scenario fills one).
struct RecordedState: Sendable {
    var items: [Int] = []
    var tags: [String: Int] = [:]
}

/// Changes one item of the array.
struct TouchOneItem: Action {}

/// Changes the value of every key of the dictionary, in place.
struct RetagEveryKey: Action { let round: Int }

let recordedReducer = Reducer<RecordedState>.combine(
    .on(TouchOneItem.self) { state, _ in state.items[touchedItem] &+= 1 },
    .on(RetagEveryKey.self) { state, action in
        var index = state.tags.startIndex
        while index != state.tags.endIndex {
            state.tags.values[index] = action.round
            state.tags.formIndex(after: &index)
        }
    }
)

func benchRecorder(_ report: Report, budget: Budget) async {
    report.section("The inspector's recorder: the dispatching thread with it / without it (time per dispatch)")
    let items = RecordedState(items: Array(repeating: 0, count: 10_000))
    let keys = RecordedState(tags: Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("key \($0)", 0) }))
    let touch = opaque(TouchOneItem())
    // With the worker off, a queue as long as the steps kept: nothing is described while timed (a
    // run is at most a few thousand dispatches), so these rows are the dispatching thread's own
    // cost when describing keeps up; past `maximumQueuedSteps` waiting, it would describe them.
    var lazyOptions = InspectorOptions<RecordedState>()
    lazyOptions.maximumQueuedSteps = lazyOptions.maximumSteps

    func store(_ initial: RecordedState, _ middleware: [Middleware<RecordedState>]) -> Store<RecordedState> {
        Store(initialState: initial, reducer: recordedReducer, middleware: middleware)
    }
    func timed(_ body: () -> Void, then untimed: () -> Void = {}) -> Double {
        let start = benchClock.now
        body()
        let elapsed = (benchClock.now - start).nanoseconds
        untimed()
        return elapsed
    }

    // One item of 10,000 changes: the recorder keeps the state, so the store's next change copies
    // the array (the floor row: a middleware that only keeps each state, the same copy).
    let lazy = InspectorRecorder<RecordedState>(options: lazyOptions, processInBackground: false)
    let withRecorder = store(items, [lazy.middleware])
    let without = store(items, [])
    report.add(
        await comparePairedMeasured(
            "recorder", "one-item change, 10k items, recorder", baseline: "the same, no recorder", budget: budget,
            ours: { ops in timed({ for _ in 0..<ops { withRecorder.dispatch(touch) } }, then: lazy.clear) },
            baseline: { ops in timed { for _ in 0..<ops { without.dispatch(touch) } } }))

    let kept = KeptStates()
    let keeping = store(items, [kept.middleware])
    report.add(
        await comparePairedMeasured(
            "recorder", "floor: a middleware that keeps each state", baseline: "the same, no middleware",
            budget: budget,
            ours: { ops in timed({ for _ in 0..<ops { keeping.dispatch(touch) } }, then: kept.clear) },
            baseline: { ops in timed { for _ in 0..<ops { without.dispatch(touch) } } }))

    // The same with the background worker on, as an app runs it: the queue is read (described)
    // untimed after each run, so the worker does not run beside the baseline.
    let working = InspectorRecorder<RecordedState>()
    let withWorker = store(items, [working.middleware])
    report.add(
        await comparePairedMeasured(
            "recorder", "one-item change, 10k items, recorder + worker", baseline: "the same, no recorder",
            budget: budget,
            ours: { ops in
                timed({ for _ in 0..<ops { withWorker.dispatch(touch) } }) {
                    _ = working.recording
                    working.clear()
                }
            },
            baseline: { ops in timed { for _ in 0..<ops { without.dispatch(touch) } } }))

    // Every value of a 10,000-key dictionary changes: the reducer's own work is large, and the
    // recorder adds the copy of the dictionary it keeps, not the diff (0.94 s before).
    let lazyKeys = InspectorRecorder<RecordedState>(options: lazyOptions, processInBackground: false)
    let keysWithRecorder = store(keys, [lazyKeys.middleware])
    let keysWithout = store(keys, [])
    var round = 0
    report.add(
        await comparePairedMeasured(
            "recorder", "10k-key change, recorder", baseline: "the same, no recorder", budget: budget,
            ours: { ops in
                timed(
                    {
                        for _ in 0..<ops {
                            round &+= 1
                            keysWithRecorder.dispatch(RetagEveryKey(round: round))
                        }
                    }, then: lazyKeys.clear)
            },
            baseline: { ops in
                timed {
                    for _ in 0..<ops {
                        round &+= 1
                        keysWithout.dispatch(RetagEveryKey(round: round))
                    }
                }
            }))

    let keptKeys = KeptStates()
    let keysKeeping = store(keys, [keptKeys.middleware])
    report.add(
        await comparePairedMeasured(
            "recorder", "floor: 10k-key change, keeping each state", baseline: "the same, no middleware",
            budget: budget,
            ours: { ops in
                timed(
                    {
                        for _ in 0..<ops {
                            round &+= 1
                            keysKeeping.dispatch(RetagEveryKey(round: round))
                        }
                    }, then: keptKeys.clear)
            },
            baseline: { ops in
                timed {
                    for _ in 0..<ops {
                        round &+= 1
                        keysWithout.dispatch(RetagEveryKey(round: round))
                    }
                }
            }))
}

/// A middleware that keeps every state it sees: what keeping the state costs, with nothing else.
final class KeptStates: Sendable {
    private let states = LockedValue<[RecordedState]>([])

    var middleware: Middleware<RecordedState> {
        Middleware { [states] action, context, next in
            next(action)
            let state = context.state
            states.withLock { $0.append(state) }
        }
    }

    func clear() {
        states.withLock { $0 = [] }
    }
}
