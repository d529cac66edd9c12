import OresRedux

/// `--profile-case NAME [COUNT] [SHAPE]`: one scenario alone, COUNT times, no timing and no
/// baseline, small enough to run under `valgrind --tool=callgrind` (instruction counts: run it with
/// two counts and divide the difference by the difference of the counts, so start-up cancels out).
func profileCase(_ arguments: [String]) async -> Int32 {
    let cases = [
        "readme", "readme-by-hand", "readme-build", "readme-built-once", "empty-graph", "one-sync-node",
        "one-async-node", "task-value", "group-child", "calls-child-tasks", "calls-tasks", "async-let",
        "dispatch", "notify", "select", "bare-reducer", "dispatch-floor", "combine-first", "combine-last",
        "by-hand-first", "by-hand-last", "graph-sync", "graph-async", "chain", "chain-by-hand", "chain-build",
        "chain-floor",
        "readme-floor", "fan", "fan-by-hand", "query-read", "query-read-key", "query-plain-read",
        "query-plain-read-by-key",
    ]
    guard let name = arguments.first, cases.contains(name) else {
        print("usage: --profile-case <\(cases.joined(separator: "|"))> [count] [chain|wide|layered]")
        return 2
    }
    let count = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let kind = arguments.count > 2 ? Shape.Kind(rawValue: arguments[2]) ?? .chain : .chain
    let app = Store(initialState: AppState(), reducer: appReducer)
    let store = Store(initialState: BenchState(), reducer: combinedTwentyCases())
    var subscriptions: [Subscription] = []
    switch name {
    case "readme":
        for _ in 0..<count { await readmeRun(app) }
    case "readme-by-hand":
        for _ in 0..<count { await readmeByHand(app) }
    case "readme-build":
        for _ in 0..<count { blackhole(readmeGraph().count) }
    case "readme-built-once":
        let graph = readmeGraph()
        for _ in 0..<count { blackhole(await app.dispatch(graph).wait().count) }
    case "empty-graph":
        for _ in 0..<count { blackhole(await store.dispatch(ActionGraph<BenchState>()).wait().count) }
    case "one-sync-node":
        for _ in 0..<count { blackhole(await store.dispatch(oneSyncNodeGraph()).wait().count) }
    case "one-async-node":
        for _ in 0..<count { await oneAsyncNodeRun(store) }
    case "task-value":
        for _ in 0..<count { blackhole(await Task { await API.work() }.value) }
    case "group-child":
        for _ in 0..<count {
            blackhole(
                await withTaskGroup(of: Int.self) { group in
                    group.addTask { await API.work() }
                    return await group.next() ?? 0
                })
        }
    case "calls-child-tasks":
        for _ in 0..<count { await readmeCallsAsChildTasks() }
    case "calls-tasks":
        for _ in 0..<count { await readmeCallsAsTasks() }
    case "async-let":
        for _ in 0..<count {
            async let value = API.work()
            blackhole(await value)
        }
    case "dispatch", "notify", "select":
        if name == "notify" { for _ in 0..<10 { subscriptions.append(store.subscribe { blackhole($0.count) }) } }
        if name == "select" {
            for _ in 0..<10 { subscriptions.append(store.subscribe({ $0.label }, { blackhole($0) })) }
        }
        let action = opaque(Case10(amount: 1))
        for _ in 0..<count { store.dispatch(action) }
    case "bare-reducer":
        // The sync dispatch's baseline: the reducer `dispatch` runs, for the same action, in a bare loop.
        reduce(opaque(combinedTwentyCases()), opaque(Case10(amount: 1)), count)
    case "dispatch-floor":
        // The sync dispatch's floor: the same reducer and action under the lock a dispatch takes.
        LockedReducerFloor(opaque(combinedTwentyCases())).dispatch(opaque(Case10(amount: 1)), count)
    case "combine-first":
        reduce(opaque(combinedTwentyCases()), opaque(Case1(amount: 1)), count)
    case "combine-last":
        reduce(opaque(combinedTwentyCases()), opaque(Case20(amount: 1)), count)
    case "by-hand-first":
        reduce(opaque(handWrittenTwentyCases()), opaque(Case1(amount: 1)), count)
    case "by-hand-last":
        reduce(opaque(handWrittenTwentyCases()), opaque(Case20(amount: 1)), count)
    case "chain":
        for _ in 0..<count {
            blackhole(await store.dispatch(asyncChain(targetChainLength, .returnsAtOnce)).wait().count)
        }
    case "chain-by-hand":
        for _ in 0..<count { await callsInOneTask(targetChainLength, .returnsAtOnce, store) }
    case "chain-build":
        for _ in 0..<count { blackhole(asyncChain(targetChainLength, .returnsAtOnce).count) }
    case "chain-floor":
        for _ in 0..<count { await chainFloor(targetChainLength, .returnsAtOnce, store) }
    case "readme-floor":
        for _ in 0..<count { await readmeFloor(app) }
    case "fan":
        for _ in 0..<count { blackhole(await store.dispatch(asyncFan(targetFanWidth)).wait().count) }
    case "fan-by-hand":
        for _ in 0..<count { await callsOnATaskEach(targetFanWidth) }
    case "graph-sync":
        blackhole(await store.dispatch(buildSyncGraph(Shape(kind, count: count))).wait().count)
    case "graph-async":
        blackhole(await store.dispatch(buildAsyncGraph(Shape(kind, count: count))).wait().count)
    default:
        await queryProfileCase(name, count)
    }
    for subscription in subscriptions { subscription.cancel() }
    print("done: \(name) \(count)")
    return 0
}
