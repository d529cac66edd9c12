import OresRedux

/// Sync dispatch, notify and select costs, and subscribe/unsubscribe, against a bare reducer loop.
func benchDispatch(_ report: Report, quick: Bool) {
    let reducer = makeReducer()
    let scale = quick ? 4 : 1
    let reps = quick ? 5 : 11
    let warmup = 2

    report.section("Sync dispatch (ns per dispatch)")

    // Baseline: the same reducer called in a loop on a local state.
    let baselineOps = 2_000_000 / scale
    let bare = measure(warmup: warmup, reps: reps, ops: baselineOps) {
        var state = BenchState()
        let action = Increment(amount: opaque(1))
        for _ in 0..<baselineOps { reducer(&state, action) }
        blackhole(state.count)
    }
    report.add("bare reducer loop (baseline)", bare)

    var dispatchBySubscribers: [Int: Stats] = [:]
    for subscribers in [0, 1, 100, 3000] {
        let ops = (subscribers == 0 ? 2_000_000 : max(1_000, 3_000_000 / subscribers)) / scale
        let store = Store(initialState: BenchState(), reducer: reducer)
        var subscriptions: [Subscription] = []
        for _ in 0..<subscribers { subscriptions.append(store.subscribe { blackhole($0.count) }) }
        let stats = measure(warmup: warmup, reps: reps, ops: ops) {
            let action = Increment(amount: opaque(1))
            for _ in 0..<ops { store.dispatch(action) }
            blackhole(store.state.count)
        }
        precondition(store.state.count == (warmup + reps) * ops, "dispatch lost actions")
        for subscription in subscriptions { subscription.cancel() }
        dispatchBySubscribers[subscribers] = stats
        report.add("dispatch, \(subscribers) subscribers", size: subscribers, stats,
                   against: [("bare reducer loop", bare.median)])
    }

    let base = dispatchBySubscribers[0]!
    report.check("sync dispatch <= 2x bare reducer loop",
                 "\(format(base.median)) ns vs \(format(bare.median)) ns = \(formatRatio(base.median / bare.median))",
                 base.median <= 2 * bare.median)

    report.section("Notify and select (ns per subscriber per dispatch)")
    var notify3000 = Double.nan
    for subscribers in [100, 3000] {
        let with = dispatchBySubscribers[subscribers]!
        let perSubscriber = Stats(median: (with.median - base.median) / Double(subscribers),
                                  min: (with.min - base.median) / Double(subscribers),
                                  max: (with.max - base.median) / Double(subscribers))
        report.add("notify per subscriber (N=\(subscribers))", size: subscribers, unit: "ns/subscriber",
                   perSubscriber, note: "(dispatch N - dispatch 0) / N")
        if subscribers == 3000 { notify3000 = perSubscriber.median }
    }
    report.check("notify <= 25 ns per subscriber", "\(format(notify3000)) ns (N=3000)", notify3000 <= 25)

    var select3000 = Double.nan
    for subscribers in [100, 3000] {
        let ops = max(1_000, 3_000_000 / subscribers) / scale
        let store = Store(initialState: BenchState(), reducer: reducer)
        var subscriptions: [Subscription] = []
        for _ in 0..<subscribers { subscriptions.append(store.subscribe({ $0.label }, { blackhole($0) })) }
        let stats = measure(warmup: warmup, reps: reps, ops: ops) {
            let action = Increment(amount: opaque(1))
            for _ in 0..<ops { store.dispatch(action) }
            blackhole(store.state.count)
        }
        for subscription in subscriptions { subscription.cancel() }
        let perSubscriber = Stats(median: (stats.median - base.median) / Double(subscribers),
                                  min: (stats.min - base.median) / Double(subscribers),
                                  max: (stats.max - base.median) / Double(subscribers))
        report.add("dispatch, \(subscribers) unchanged selects", size: subscribers, stats,
                   against: [("bare reducer loop", bare.median)])
        report.add("unchanged select per subscriber", size: subscribers, unit: "ns/subscriber", perSubscriber,
                   note: "(dispatch N selects - dispatch 0) / N")
        if subscribers == 3000 { select3000 = perSubscriber.median }
    }
    report.check("unchanged select <= 15 ns per subscriber", "\(format(select3000)) ns (N=3000)", select3000 <= 15)

    report.section("Subscribe / unsubscribe (ns per subscription)")
    var unsubscribeCost: [Int: Double] = [:]
    for count in [300, 3000, 30000] {
        let repetitions = quick ? 5 : (count >= 30000 ? 9 : 15)
        var subscribeSamples: [Double] = []
        var cancelSamples: [Double] = []
        var generator = SplitMix64(seed: 42)
        var order = Array(0..<count)
        for rep in 0..<(repetitions + warmup) {
            let store = Store(initialState: BenchState(), reducer: reducer)
            var subscriptions: [Subscription] = []
            subscriptions.reserveCapacity(count)
            let subscribeTime = benchClock.measure {
                for _ in 0..<count { subscriptions.append(store.subscribe { blackhole($0.count) }) }
            }
            order.shuffle(using: &generator)
            let cancelTime = benchClock.measure {
                for index in order { subscriptions[index].cancel() }
            }
            if rep >= warmup {
                subscribeSamples.append(subscribeTime.nanoseconds / Double(count))
                cancelSamples.append(cancelTime.nanoseconds / Double(count))
            }
            store.dispatch(Increment(amount: 1))   // no subscriber left: must not notify anyone
        }
        report.add("subscribe", size: count, unit: "ns/subscribe", Stats(subscribeSamples))
        let cancel = Stats(cancelSamples)
        unsubscribeCost[count] = cancel.median
        report.add("unsubscribe (cancel, random order)", size: count, unit: "ns/cancel", cancel)
    }
    let growth = unsubscribeCost[30000]! / unsubscribeCost[300]!
    report.check("unsubscribe O(1) (30000 vs 300 per op <= 2.5x)",
                 "\(format(unsubscribeCost[300]!)) / \(format(unsubscribeCost[3000]!)) / "
                 + "\(format(unsubscribeCost[30000]!)) ns at 300/3k/30k = \(formatRatio(growth))",
                 growth <= 2.5)
}
