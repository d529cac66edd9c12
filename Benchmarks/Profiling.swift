import OresRedux

/// `--profile-case NAME [COUNT]`: one scenario alone, no timing and no baselines, small enough to
/// run under `valgrind --tool=callgrind` or `perf record`. Not listed in --help's scenarios.
func profileCase(_ arguments: [String]) async -> Int32 {
    let cases = ["dispatch", "notify", "select", "subscribe", "build-sync", "run-sync", "graph-sync",
                 "graph-async", "kahn", "oq", "tasks"]
    guard let name = arguments.first, cases.contains(name) else {
        print("usage: --profile-case <\(cases.joined(separator: "|"))> [count] [chain|wide|layered]")
        return 2
    }
    let count = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let kind = arguments.count > 2 ? Shape.Kind(rawValue: arguments[2]) ?? .chain : .chain
    let reducer = makeReducer()
    let store = Store(initialState: BenchState(), reducer: reducer)
    var subscriptions: [Subscription] = []
    switch name {
    case "dispatch", "notify", "select":
        if name == "notify" { for _ in 0..<100 { subscriptions.append(store.subscribe { blackhole($0.count) }) } }
        if name == "select" { for _ in 0..<100 { subscriptions.append(store.subscribe({ $0.label }, { blackhole($0) })) } }
        let action = Increment(amount: opaque(1))
        for _ in 0..<count { store.dispatch(action) }
    case "subscribe":
        for _ in 0..<count { subscriptions.append(store.subscribe { blackhole($0.count) }) }
        var generator = SplitMix64(seed: 1)
        subscriptions.shuffle(using: &generator)
        for subscription in subscriptions { subscription.cancel() }
        subscriptions = []
    case "build-sync":
        blackhole(buildSyncGraph(Shape(kind, count: count)).count)
    case "run-sync", "graph-sync":
        let graph = buildSyncGraph(Shape(kind, count: count))
        blackhole(await store.dispatch(graph).wait().count)
    case "graph-async":
        blackhole(await store.dispatch(buildAsyncGraph(Shape(kind, count: count))).wait().count)
    case "oq":
        blackhole(operationQueue(Shape(kind, count: count), reducer: reducer))
    case "tasks":
        blackhole(await taskPerNode(Shape(kind, count: count)))
    case "kahn":
        blackhole(kahn(Shape(kind, count: count), reducer: reducer))
    default:
        break
    }
    blackhole(store.state.count)
    print("done: \(name) \(count) \(kind.rawValue), state.count = \(store.state.count)")
    return 0
}
