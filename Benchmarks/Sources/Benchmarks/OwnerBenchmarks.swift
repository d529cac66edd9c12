import AllocationCounter
import OresRedux

// Issue 38: what dispatching through a screen's owner costs, paired against the same dispatch to
// the store: the README log-in graph (its run is adopted by the owner before it starts), and a
// sync dispatch (the owner passes it straight to the store), and an async action awaited (the owner
// adopts it, and forgets it when its task ends).

func benchOwners(_ report: Report, budget: Budget, quick: Bool) async {
    report.section("Work that belongs to a screen: through an owner / to the store (time per run or dispatch)")
    let app = Store(initialState: AppState(), reducer: appReducer)
    let owner = app.makeOwner("Log-in screen")
    let graph = report.add(
        await comparePaired(
            "owners", "README log-in graph through an owner", baseline: "the same, store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole(await owner.dispatch(readmeGraph()).wait().count) } },
            baseline: { ops in for _ in 0..<ops { await readmeRun(app) } }))
    report.check(
        "a graph through an owner <= 1.1x the same graph dispatched to the store", formatRatio(graph.ratio.median),
        graph.ratio.median <= 1.1)

    let store = Store(initialState: BenchState(), reducer: incrementReducer)
    let screen = store.makeOwner("Counter screen")
    let increment = opaque(Increment(amount: 1))
    report.add(
        await comparePaired(
            "owners", "sync dispatch through an owner", baseline: "store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { screen.dispatch(increment) } },
            baseline: { ops in for _ in 0..<ops { store.dispatch(increment) } }))

    let profile = opaque(FetchProfile(token: "t1"))
    report.add(
        await comparePaired(
            "owners", "async action through an owner, awaited", baseline: "the same, store.dispatch", budget: budget,
            ours: { ops in for _ in 0..<ops { blackhole((try? await owner.dispatch(profile).value)?.name.count ?? 0) }
            },
            baseline: { ops in for _ in 0..<ops { blackhole((try? await app.dispatch(profile).value)?.name.count ?? 0) }
            }))

    guard allocation_counter_available() != 0 else {
        print("allocations not counted: the allocation counter works on Linux with glibc only, with no sanitizer")
        return
    }
    let dispatches = quick ? 2_000 : 20_000
    let allocations = AllocationRecord(
        scenario: "sync dispatch through an owner", baseline: "store.dispatch",
        ours: await allocationsPerOperation(dispatches) { for _ in 0..<$0 { screen.dispatch(increment) } },
        theirs: await allocationsPerOperation(dispatches) { for _ in 0..<$0 { store.dispatch(increment) } })
    report.add(allocations)
    report.check(
        "no allocation more per sync dispatch through an owner than to the store",
        String(format: "%.2f vs %.2f", allocations.ours, allocations.theirs), allocations.ours <= allocations.theirs)
    let actions = quick ? 1_000 : 10_000
    report.add(
        AllocationRecord(
            scenario: "async action through an owner, awaited", baseline: "the same, store.dispatch",
            ours: await allocationsPerOperation(actions) {
                for _ in 0..<$0 { blackhole((try? await owner.dispatch(profile).value)?.name.count ?? 0) }
            },
            theirs: await allocationsPerOperation(actions) {
                for _ in 0..<$0 { blackhole((try? await app.dispatch(profile).value)?.name.count ?? 0) }
            }))
}
