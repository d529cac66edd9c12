import AllocationCounter
import OresRedux

// MARK: - Small graphs: what an app's graph costs over the same calls written by hand

func benchSmallGraphs(_ report: Report, budget: Budget, quick: Bool) async {
    report.section("Small graphs, built and run each time, against the same calls by hand (time per run)")

    let app = Store(initialState: AppState(), reducer: appReducer)
    let readme = report.add(
        await comparePaired(
            "graph", "README log-in graph", baseline: "async let + dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { await readmeRun(app) } },
            baseline: { ops in for _ in 0..<ops { await readmeByHand(app) } }))
    report.record(.readmeGraph, readme.ratio)

    // The floor under that target: the same calls on the fewest tasks a run could use, no graph.
    let readmeCallsAlone = report.add(
        await comparePaired(
            "floor", "floor: README calls on a run's tasks, no graph", baseline: "async let + dispatch",
            budget: budget,
            ours: { ops in for _ in 0..<ops { await readmeFloor(app) } },
            baseline: { ops in for _ in 0..<ops { await readmeByHand(app) } }))
    // The graph is built each run, so the floor its target is set against builds it too.
    let readmeCallsAndBuilding = report.add(
        await comparePaired(
            "floor", "floor: README calls on a run's tasks + building the graph", baseline: "async let + dispatch",
            budget: budget,
            ours: { ops in for _ in 0..<ops { await readmeFloorWithBuilding(app) } },
            baseline: { ops in for _ in 0..<ops { await readmeByHand(app) } }))
    report.recordFloor(
        .readmeGraph, readmeCallsAndBuilding.ratio,
        note: "with building; the calls alone \(formatRatio(readmeCallsAlone.ratio.median))")

    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    let empty = report.add(
        await comparePaired(
            "graph", "empty graph", baseline: "one store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole(await store.dispatch(ActionGraph<BenchState>()).wait().count) }
            },
            baseline: { ops in for _ in 0..<ops { store.dispatch(Increment(amount: 1)) } }))
    report.record(.emptyGraph, empty.ratio)
    // `Store.dispatch` answers an empty graph with the one finished run its store keeps; a scoped
    // store's empty graph gets a run of its own: the fixed part of a run, shown beside the target.
    let scoped = store.scope(\.count)
    _ = report.add(
        await comparePaired(
            "graph", "empty graph, scoped store (a run of its own)", baseline: "one store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole(await scoped.dispatch(ActionGraph<Int>()).wait().count) } },
            baseline: { ops in for _ in 0..<ops { store.dispatch(Increment(amount: 1)) } }))

    let oneSync = report.add(
        await comparePaired(
            "graph", "one sync node", baseline: "one store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole(await store.dispatch(oneSyncNodeGraph()).wait().count) } },
            baseline: { ops in for _ in 0..<ops { store.dispatch(Increment(amount: 1)) } }))
    report.check("one-sync-node graph <= 5x a dispatch", formatRatio(oneSync.ratio.median), oneSync.ratio.median <= 5)

    report.add(
        await comparePaired(
            "graph", "one async node, value(of:)", baseline: "Task { }.value", budget: budget,
            ours: { ops in for _ in 0..<ops { await oneAsyncNodeRun(store) } },
            baseline: { ops in for _ in 0..<ops { blackhole(await Task { await API.work() }.value) } }))

    // Would running nodes as child tasks of the caller (an `await store.run(graph)`) be cheaper than
    // a task per node? What the runtime alone charges for the README graph's three calls each way.
    report.add(
        await comparePaired(
            "graph", "README calls on child tasks (task group)", baseline: "on unstructured tasks",
            budget: budget,
            ours: { ops in for _ in 0..<ops { await readmeCallsAsChildTasks() } },
            baseline: { ops in for _ in 0..<ops { await readmeCallsAsTasks() } }))

    for kind in [CallKind.returnsAtOnce, .suspendsOnce] {
        let chain = report.add(
            await comparePaired(
                "graph", "chain of \(targetChainLength) async nodes, \(kind.rawValue)",
                baseline: "the calls in one task + dispatch", budget: budget,
                ours: { ops in
                    for _ in 0..<ops {
                        blackhole(await store.dispatch(asyncChain(targetChainLength, kind)).wait().count)
                    }
                },
                baseline: { ops in for _ in 0..<ops { await callsInOneTask(targetChainLength, kind, store) } }))
        report.record(kind == .returnsAtOnce ? .chainReturningAtOnce : .chainSuspendingOnce, chain.ratio)
        // The floor under that target: the calls on one task the dispatch starts, no graph.
        let chainCallsAlone = report.add(
            await comparePaired(
                "floor", "floor: chain's calls on a started task, \(kind == .returnsAtOnce ? "return" : "suspend")",
                baseline: "the calls in one task + dispatch", budget: budget,
                ours: { ops in for _ in 0..<ops { await chainFloor(targetChainLength, kind, store) } },
                baseline: { ops in for _ in 0..<ops { await callsInOneTask(targetChainLength, kind, store) } }))
        report.recordFloor(kind == .returnsAtOnce ? .chainReturningAtOnce : .chainSuspendingOnce, chainCallsAlone.ratio)
    }

    let fan = report.add(
        await comparePaired(
            "graph", "\(targetFanWidth) independent async nodes", baseline: "a Task per call, awaited",
            budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole(await store.dispatch(asyncFan(targetFanWidth)).wait().count) }
            },
            baseline: { ops in for _ in 0..<ops { await callsOnATaskEach(targetFanWidth) } }))
    report.record(.asyncFanNode, fan.ratio)

    let sizes = quick ? [3, 10, 20] : [3, 5, 10, 20]
    for shape in SmallShape.allCases {
        for nodes in sizes {
            report.add(
                await comparePaired(
                    "graph", "\(shape.rawValue), \(nodes) nodes", baseline: "by hand + dispatch", budget: budget,
                    ours: { ops in
                        for _ in 0..<ops { blackhole(await store.dispatch(shape.graph(nodes: nodes)).wait().count) }
                    },
                    baseline: { ops in for _ in 0..<ops { await shape.byHand(nodes: nodes, store) } }))
        }
    }
}

func oneSyncNodeGraph() -> ActionGraph<BenchState> {
    var graph = ActionGraph<BenchState>()
    graph.send(Increment(amount: 1))
    return graph
}

func oneAsyncNodeRun(_ store: Store<BenchState>) async {
    var graph = ActionGraph<BenchState>()
    let node = graph.run(Trivial())
    do {
        blackhole(try await store.dispatch(graph).value(of: node))
    } catch {
        fatalError("a trivial node does not fail: \(error)")
    }
}

// MARK: - Allocations

/// Allocation calls per operation of `body`, after a warm-up, counted in this process.
func allocationsPerOperation(_ operations: Int, _ body: (Int) async -> Void) async -> Double {
    await body(max(1, operations / 10))
    allocation_counter_start()
    await body(operations)
    let count = allocation_counter_stop()
    return Double(count) / Double(operations)
}

func benchAllocations(_ report: Report, quick: Bool) async {
    report.section("Allocations per run (malloc, calloc, realloc and aligned allocations, every thread)")
    guard allocation_counter_available() != 0 else {
        let why = "not counted: the allocation counter works on Linux with glibc only, with no sanitizer"
        print(why)
        report.cannotMeasure(.readmeAllocations, why)
        return
    }
    let runs = quick ? 2_000 : 20_000
    let app = Store(initialState: AppState(), reducer: appReducer)
    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    func compare(
        _ scenario: String, _ baseline: String,
        _ ours: (Int) async -> Void, _ theirs: (Int) async -> Void
    ) async -> AllocationRecord {
        let record = AllocationRecord(
            scenario: scenario, baseline: baseline,
            ours: await allocationsPerOperation(runs, ours),
            theirs: await allocationsPerOperation(runs, theirs))
        report.add(record)
        return record
    }
    let readme = await compare(
        "README log-in graph", "async let + dispatch",
        { for _ in 0..<$0 { await readmeRun(app) } },
        { for _ in 0..<$0 { await readmeByHand(app) } })
    report.record(.readmeAllocations, readme.ours, note: "mean of \(formatCount(runs)) runs")
    // The floor under that target: the same calls on the tasks a run needs, no graph.
    let readmeCallsAlone = await compare(
        "floor: README calls on a run's tasks, no graph", "async let + dispatch",
        { for _ in 0..<$0 { await readmeFloor(app) } },
        { for _ in 0..<$0 { await readmeByHand(app) } })
    // Where the README graph's allocations come from: building it, and running a graph built once.
    let building = await compare(
        "README graph, building only", "nothing",
        { for _ in 0..<$0 { blackhole(readmeGraph().count) } },
        { for _ in 0..<$0 { blackhole(0) } })
    report.recordFloor(
        .readmeAllocations, readmeCallsAlone.ours + building.ours,
        note: String(format: "%.0f calls + %.0f building", readmeCallsAlone.ours, building.ours))
    let builtOnce = readmeGraph()
    _ = await compare(
        "README graph, running only (built once)", "async let + dispatch",
        { for _ in 0..<$0 { blackhole(await app.dispatch(builtOnce).wait().count) } },
        { for _ in 0..<$0 { await readmeByHand(app) } })
    _ = await compare(
        "empty graph", "one store.dispatch",
        { for _ in 0..<$0 { blackhole(await store.dispatch(ActionGraph<BenchState>()).wait().count) } },
        { for _ in 0..<$0 { store.dispatch(Increment(amount: 1)) } })
    _ = await compare(
        "one sync node", "one store.dispatch",
        { for _ in 0..<$0 { blackhole(await store.dispatch(oneSyncNodeGraph()).wait().count) } },
        { for _ in 0..<$0 { store.dispatch(Increment(amount: 1)) } })
    _ = await compare(
        "one async node, value(of:)", "Task { }.value",
        { for _ in 0..<$0 { await oneAsyncNodeRun(store) } },
        { for _ in 0..<$0 { blackhole(await Task { await API.work() }.value) } })
    _ = await compare(
        "README calls on child tasks (task group)", "on unstructured tasks",
        { for _ in 0..<$0 { await readmeCallsAsChildTasks() } },
        { for _ in 0..<$0 { await readmeCallsAsTasks() } })
    let combined = combinedTwentyCases()
    let handWritten = handWrittenTwentyCases()
    _ = await compare(
        "20-case combine, last case", "if let ... as? chain",
        { reduce(combined, Case20(amount: 1), $0) }, { reduce(handWritten, Case20(amount: 1), $0) })
}

// MARK: - Reducers

/// Applies `reducer` to `action` `count` times, on a local state.
@inline(never)
func reduce(_ reducer: Reducer<BenchState>, _ action: any Action, _ count: Int) {
    var state = BenchState()
    for _ in 0..<count { reducer(&state, action) }
    blackhole(state.count)
}

func benchReducers(_ report: Report, budget: Budget) async {
    report.section("Reducers (time per call)")
    let combined = opaque(combinedTwentyCases())
    let handWritten = opaque(handWrittenTwentyCases())
    let cases: [(String, any Action)] = [
        ("first case", Case1(amount: 1)), ("middle case", Case10(amount: 1)),
        ("last case", Case20(amount: 1)), ("no case", Unhandled(amount: 1)),
    ]
    for (name, action) in cases {
        let action = opaque(action)
        let result = report.add(
            await comparePairedSync(
                "reducer", "20-case combine, \(name) matches", baseline: "if let ... as? chain", budget: budget,
                ours: { reduce(combined, action, $0) }, baseline: { reduce(handWritten, action, $0) }))
        if name == "first case" || name == "last case" {
            report.check(
                "20-case combine <= hand-written chain, \(name)", formatRatio(result.ratio.median),
                result.ratio.median <= 1)
        }
    }
    let single = opaque(Reducer<BenchState>.on(Case1.self) { $0.count &+= $1.amount })
    let singleByHand = opaque(
        Reducer<BenchState> { state, action in
            if let action = action as? Case1 { state.count &+= action.amount }
        })
    report.add(
        await comparePairedSync(
            "reducer", "one .on, matching", baseline: "one if let ... as?", budget: budget,
            ours: { reduce(single, Case1(amount: 1), $0) }, baseline: { reduce(singleByHand, Case1(amount: 1), $0) }))
    report.add(
        await comparePairedSync(
            "reducer", "one .on, not matching", baseline: "one if let ... as?", budget: budget,
            ours: { reduce(single, Unhandled(amount: 1), $0) },
            baseline: { reduce(singleByHand, Unhandled(amount: 1), $0) }))
}

// MARK: - Dispatch through a store

func benchDispatch(_ report: Report, budget: Budget) async {
    report.section("Dispatch through a store with the 20-case reducer (time per dispatch)")
    let reducer = opaque(combinedTwentyCases())
    let action = opaque(Case10(amount: 1))
    func store(subscribers: Int, select: Bool = false) -> (Store<BenchState>, [Subscription]) {
        let store = Store(initialState: BenchState(), reducer: reducer)
        var subscriptions: [Subscription] = []
        for _ in 0..<subscribers {
            subscriptions.append(
                select
                    ? store.subscribe({ $0.label }, { blackhole($0) })
                    : store.subscribe { blackhole($0.count) })
        }
        return (store, subscriptions)
    }
    func dispatch(_ store: Store<BenchState>, _ count: Int) {
        for _ in 0..<count { store.dispatch(action) }
    }
    let (bare, _) = store(subscribers: 0)
    for subscribers in [0, 1, 10] {
        let (subscribed, subscriptions) = store(subscribers: subscribers)
        let result = report.add(
            await comparePairedSync(
                "dispatch", "dispatch, \(subscribers) subscribers", baseline: "the reducer in a bare loop",
                budget: budget,
                ours: { dispatch(subscribed, $0) }, baseline: { reduce(reducer, action, $0) }))
        if subscribers == 0 { report.record(.syncDispatch, result.ratio) }
        for subscription in subscriptions { subscription.cancel() }
    }
    // The floor under that target: the reducer under the lock and thread-local read any thread-safe
    // dispatch takes, with no store.
    let lockedReducer = LockedReducerFloor(reducer)
    let reducerUnderLock = report.add(
        await comparePairedSync(
            "floor", "floor: the reducer under a recursive mutex, a thread-local read",
            baseline: "the reducer in a bare loop", budget: budget,
            ours: { lockedReducer.dispatch(action, $0) }, baseline: { reduce(reducer, action, $0) }))
    report.recordFloor(.syncDispatch, reducerUnderLock.ratio)
    for select in [false, true] {
        let (subscribed, subscriptions) = store(subscribers: 10, select: select)
        let result = report.add(
            await comparePairedSync(
                "dispatch", select ? "dispatch, 10 unchanged selects" : "dispatch, 10 subscribers, against none",
                baseline: "dispatch, no subscriber", budget: budget,
                ours: { dispatch(subscribed, $0) }, baseline: { dispatch(bare, $0) }))
        let perSubscriber = result.difference.divided(by: 10)
        report.add(
            GuardRecord(
                scenario: select ? "unchanged select, per subscriber" : "notify, per subscriber",
                value: formatNanoseconds(perSubscriber.median)
                    + " (IQR \(formatNanoseconds(perSubscriber.lowerQuartile))"
                    + "-\(formatNanoseconds(perSubscriber.upperQuartile)))",
                note: "(dispatch with 10 - dispatch with none) / 10, per pair"))
        report.record(select ? .selectPerSubscriber : .notifyPerSubscriber, perSubscriber)
        for subscription in subscriptions { subscription.cancel() }
    }
}
