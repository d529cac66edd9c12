import OresRedux

/// A state whose size is set by its item list, for the guard that a dispatch does not depend on it.
struct ItemListState: Sendable {
    var items: [Int]
    var label = 7
}

/// Changes one item, always the same one, so that a large and a small state touch the same memory
/// and only what the store does with the rest of the state can differ.
struct TouchItem: Action {}

let touchedItem = 7

let touchItemReducer = Reducer<ItemListState>.on(TouchItem.self) { state, _ in state.items[touchedItem] &+= 1 }

/// Regression guard: a dispatch into a store whose state holds a million items costs what it costs
/// with ten items, with no subscriber and with a `select` subscriber. A copy of the state per
/// dispatch (a reference kept to the old state while the reducer writes, say) would show here as a
/// ratio in the thousands.
func benchLargeState(_ report: Report, budget: Budget) async {
    report.section("Regression guards: dispatch into a 1M-item state against a 10-item one (time per dispatch)")
    let action = opaque(TouchItem())
    func dispatch(_ store: Store<ItemListState>, _ count: Int) {
        for _ in 0..<count { store.dispatch(action) }
    }
    for selecting in [false, true] {
        let large = Store(
            initialState: ItemListState(items: Array(repeating: 0, count: 1_000_000)), reducer: touchItemReducer)
        let small = Store(initialState: ItemListState(items: Array(repeating: 0, count: 10)), reducer: touchItemReducer)
        // The selected item changes with every dispatch, so the select and its observer both run.
        let subscriptions =
            selecting
            ? [large, small].map { store in store.subscribe({ $0.items[touchedItem] }, { blackhole($0) }) } : []
        let result = report.add(
            await comparePairedSync(
                "guards", selecting ? "dispatch, 1M-item state, a select" : "dispatch, 1M-item state",
                baseline: selecting ? "the same, 10-item state" : "dispatch, 10-item state", budget: budget,
                ours: { dispatch(large, $0) }, baseline: { dispatch(small, $0) }))
        report.record(selecting ? .largeStateSelectDispatch : .largeStateDispatch, result.ratio)
        for subscription in subscriptions { subscription.cancel() }
    }
}
