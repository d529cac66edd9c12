import AllocationCounter
import OresRedux
import OresReduxQuery

// Issue 39: what the query cache costs. A fresh entry read through `fetch` and through the state,
// each against the same value kept in plain state; the memory of an entry; collecting 10,000
// unobserved entries; invalidating a tag observed by 100 entries and refetching them.

struct QueryBenchPost: Equatable, Sendable {
    let id: Int
    let text: String
}

/// The same posts twice: in the cache, and in plain state as an app without the cache keeps them
/// (one feed, and the answers of many calls made by hand).
struct QueryBenchState: Sendable {
    var cache = QueryCache()
    var feed: [QueryBenchPost] = []
    var feeds: [Int: [QueryBenchPost]] = [:]
    /// The feed by its query key, as plain state: the floor of any read through a key.
    var byKey: [QueryKey: [QueryBenchPost]] = [:]
}

/// Sets the plain state's copy of the posts, as a reducer of an app without the cache would.
struct QueryBenchFeedLoaded: Action {
    let feeds: [Int: [QueryBenchPost]]
}

/// Reads the posts of plain state in an async action: what a fetch costs before the cache.
struct QueryBenchPlainRead: AsyncAction {
    func run(_ context: ActionContext<QueryBenchState>) async throws -> Int {
        context.state.feed.count
    }
}

let queryBenchReducer = Reducer<QueryBenchState>.combine(
    .queries(\.cache),
    .on(QueryBenchFeedLoaded.self) { state, action in state.feeds.merge(action.feeds) { _, new in new } })

/// The posts the "server" answers for a user, at once.
func queryBenchPosts(_ userID: Int) -> [QueryBenchPost] {
    [QueryBenchPost(id: userID, text: "hello")]
}

/// A user's feed, answered at once; fresh for an hour, so that a fetch reads the cache. Collected
/// as soon as its last observer leaves, so that collection costs what the cache does, not a wait.
struct QueryBenchFeed: QueryEndpoint {
    let userID: Int
    var key: QueryKey { QueryKey("feed", "user", "\(userID)") }
    var tags: Set<QueryTag> { [QueryTag("Post")] }
    var staleTime: Duration { .seconds(3600) }
    var keepUnobservedFor: Duration { .zero }
    func run(_ context: ActionContext<QueryBenchState>) async throws -> [QueryBenchPost] {
        queryBenchPosts(userID)
    }
}

let queryBenchClient = QueryClient(\QueryBenchState.cache)

/// Entries counted by the collection and memory figures.
let queryCollectedEntries = 10_000

/// Entries that observe the invalidated tag.
let queryInvalidatedEntries = 100

func benchQueries(_ report: Report, budget: Budget, quick: Bool) async {
    report.section("Query cache: a fresh entry read / the same value in plain state (time per read)")
    await benchFreshReads(report, budget: budget)
    report.section(
        "Query cache: an entry's memory, collecting \(formatCount(queryCollectedEntries)) unobserved entries, "
            + "invalidating a tag observed by \(queryInvalidatedEntries) entries")
    await benchEntries(report, repetitions: quick ? 3 : 11)
    await benchInvalidation(report, budget: budget, repetitions: quick ? 15 : 61)
}

func benchFreshReads(_ report: Report, budget: Budget) async {
    let (store, observation) = await queryBenchStoreWithAFreshEntry()
    defer { observation.cancel() }
    let feed = opaque(QueryBenchFeed(userID: 1))
    let key = opaque(feed.key)
    let plainState = "the same value in plain state"
    func plainRead(_ ops: Int) async {
        for _ in 0..<ops { blackhole(store.state.feed.count) }
    }
    func fetch(_ ops: Int) async {
        for _ in 0..<ops { blackhole((try? await queryBenchClient.fetch(feed, in: store).value)?.count ?? 0) }
    }
    @discardableResult
    func pair(_ scenario: String, _ ours: (Int) async -> Void, against baseline: String, _ theirs: (Int) async -> Void)
        async -> Paired
    {
        report.add(
            await comparePaired(
                "query", "fresh entry: " + scenario, baseline: baseline, budget: budget, ours: ours, baseline: theirs))
    }

    func cacheRead(_ ops: Int) async {
        for _ in 0..<ops { blackhole(store.state.cache[feed]?.data(as: [QueryBenchPost].self)?.count ?? 0) }
    }
    func byKeyRead(_ ops: Int) async {
        for _ in 0..<ops { blackhole(store.state.byKey[feed.key]?.count ?? 0) }
    }

    let cached = await pair("state.cache[endpoint]?.data(as:)", cacheRead, against: plainState, plainRead)
    report.check(
        "a fresh entry read from the state <= 1.5x the same value in plain state", formatRatio(cached.ratio.median),
        cached.ratio.median <= 1.5)
    // Where a read's time goes. Its floor: any read through a key makes the key from the endpoint
    // and hashes its parts, as a plain dictionary in the state by the same key does. Then the
    // lookup alone, the entry's copy, and the data read back as its type.
    let byKey = "the same value in plain state, by key: state.byKey[endpoint.key]"
    await pair(byKey, byKeyRead, against: plainState, plainRead)
    await pair("state.cache[endpoint]?.data(as:)", cacheRead, against: byKey, byKeyRead)
    await pair(
        "state.cache[key]?.data(as:), key made once",
        { ops in
            for _ in 0..<ops { blackhole(store.state.cache[key]?.data(as: [QueryBenchPost].self)?.count ?? 0) }
        }, against: plainState, plainRead)
    await pair(
        "the lookup alone, entries.index(forKey:)",
        { ops in
            for _ in 0..<ops { blackhole(store.state.cache.entries.index(forKey: key) == nil ? 0 : 1) }
        }, against: plainState, plainRead)
    await pair(
        "the lookup and the entry's copy, cache[key]",
        { ops in
            for _ in 0..<ops { blackhole(store.state.cache[key]?.observers ?? 0) }
        }, against: plainState, plainRead)
    let fetched = await pair("await queries.fetch(endpoint).value", fetch, against: plainState, plainRead)
    report.check(
        "a fresh entry through fetch <= 1.5x the same value in plain state", formatRatio(fetched.ratio.median),
        fetched.ratio.median <= 1.5)
    // Where a fetch's time goes: it is an async action, so each read starts a task and awaits it.
    await pair("await queries.fetch(endpoint).value", fetch, against: "an async action reading plain state") { ops in
        for _ in 0..<ops { blackhole((try? await store.dispatch(QueryBenchPlainRead()).value) ?? 0) }
    }
    await pair("await queries.fetch(endpoint).value", fetch, against: "Task { plain read }.value") { ops in
        for _ in 0..<ops { blackhole(await Task { store.state.feed.count }.value) }
    }
}

/// A store whose cache holds user 1's feed, fresh and observed (while the observation is kept),
/// with the same posts in plain state, alone and by key.
func queryBenchStoreWithAFreshEntry() async -> (Store<QueryBenchState>, QueryObservation) {
    let endpoint = QueryBenchFeed(userID: 1)
    let state = QueryBenchState(feed: queryBenchPosts(1), byKey: [endpoint.key: queryBenchPosts(1)])
    let store = Store(initialState: state, reducer: queryBenchReducer)
    let observation = queryBenchClient.observe(endpoint, in: store)
    _ = try? await queryBenchClient.fetch(endpoint, in: store).value
    return (store, observation)
}

/// The profile cases of a fresh entry's read (`--profile-case`): from the state through the endpoint,
/// through a key made once, and the same value from plain state, alone and by key.
func queryProfileCase(_ name: String, _ count: Int) async {
    let (store, observation) = await queryBenchStoreWithAFreshEntry()
    defer { observation.cancel() }
    let feed = opaque(QueryBenchFeed(userID: 1))
    let key = opaque(feed.key)
    switch name {
    case "query-read":
        for _ in 0..<count { blackhole(store.state.cache[feed]?.data(as: [QueryBenchPost].self)?.count ?? 0) }
    case "query-read-key":
        for _ in 0..<count { blackhole(store.state.cache[key]?.data(as: [QueryBenchPost].self)?.count ?? 0) }
    case "query-plain-read":
        for _ in 0..<count { blackhole(store.state.feed.count) }
    case "query-plain-read-by-key":
        for _ in 0..<count { blackhole(store.state.byKey[feed.key]?.count ?? 0) }
    default:
        break
    }
}

/// Observes `count` entries (each fetched once), then ends every observation and waits until the
/// cache is empty. Returns the bytes per entry while observed (the observation included), the
/// bytes per entry of the cache alone (a copy of the cache held while the store collects its
/// own), and the nanoseconds per entry from the first observation's end to the last removal.
func observeAndCollect(_ count: Int) async -> (observed: Double, cached: Double, collect: Double) {
    let store = Store(initialState: QueryBenchState(), reducer: queryBenchReducer)
    var observations: [QueryObservation] = []
    observations.reserveCapacity(count)
    let before = allocation_counter_bytes_in_use()
    for user in 0..<count {
        let endpoint = QueryBenchFeed(userID: user)
        observations.append(queryBenchClient.observe(endpoint, in: store))
        _ = try? await queryBenchClient.fetch(endpoint, in: store).value
    }
    let observed = allocation_counter_bytes_in_use()
    var copy: QueryCache? = store.state.cache
    // The store's first write after the copy duplicates the entries once; done here, untimed.
    store.dispatch(QueryInvalidated([.keyPrefix(QueryKey("feed", "user", "0"))]))
    let start = benchClock.now
    observations.removeAll()
    await waitUntil(store) { $0.cache.entries.isEmpty }
    let collect = (benchClock.now - start).nanoseconds
    let withCopy = allocation_counter_bytes_in_use()
    blackhole(copy?.entries.count ?? 0)
    copy = nil
    let withoutCopy = allocation_counter_bytes_in_use()
    let entries = Double(count)
    return (
        Double(observed - before) / entries, (Double(withCopy) - Double(withoutCopy)) / entries, collect / entries
    )
}

/// Returns once `condition` holds for the store's state (at once if it holds already).
func waitUntil<State: Sendable>(_ store: Store<State>, _ condition: @escaping @Sendable (State) -> Bool) async {
    let subscription = LockedValue<Subscription?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let waiting = LockedValue(true)
        let made = store.subscribe({ condition($0) }) { met in
            let resumes =
                met
                && waiting.withLock { isWaiting in
                    defer { isWaiting = false }
                    return isWaiting
                }
            if resumes { continuation.resume() }
        }
        subscription.withLock { $0 = made }
    }
    subscription.withLock { $0?.cancel() }
}

/// A figure timed once a repetition: the median of the samples (nanoseconds) and their IQR.
func timeRecord(_ scenario: String, _ samples: [Double], note: String) -> GuardRecord {
    let stats = Stats(samples)
    return GuardRecord(
        scenario: scenario,
        value: formatNanoseconds(stats.median)
            + " (IQR \(formatNanoseconds(stats.lowerQuartile))-\(formatNanoseconds(stats.upperQuartile)))",
        note: note)
}

func benchEntries(_ report: Report, repetitions: Int) async {
    var observed: [Double] = []
    var cached: [Double] = []
    var collect: [Double] = []
    for _ in 0..<repetitions {
        let figures = await observeAndCollect(queryCollectedEntries)
        observed.append(figures.observed)
        cached.append(figures.cached)
        collect.append(figures.collect)
    }
    report.add(
        timeRecord(
            "collecting \(formatCount(queryCollectedEntries)) unobserved entries, per entry", collect,
            note: "from the first observation's end to the last removal, keepUnobservedFor zero; "
                + "\(repetitions) repetitions"))
    guard allocation_counter_available() != 0 else {
        print("an entry's memory not measured: the heap is read on Linux with glibc only, with no sanitizer")
        return
    }
    for (name, bytes) in [("an entry's memory, the cache alone", cached), ("an observed entry's memory", observed)] {
        let stats = Stats(bytes)
        report.add(
            GuardRecord(
                scenario: name,
                value: String(format: "%.0f B (IQR %.0f-%.0f)", stats.median, stats.lowerQuartile, stats.upperQuartile),
                note: name.hasPrefix("an observed")
                    ? "the cache and the QueryObservation a screen holds; heap bytes in use / \(formatCount(queryCollectedEntries)) entries"
                    : "a 1-post response; heap bytes a copy of the cache holds / \(formatCount(queryCollectedEntries)) entries"
            ))
    }
}

func benchInvalidation(_ report: Report, budget: Budget, repetitions: Int) async {
    let store = Store(initialState: QueryBenchState(), reducer: queryBenchReducer)
    let endpoints = (0..<queryInvalidatedEntries).map { QueryBenchFeed(userID: $0) }
    let observations = endpoints.map { queryBenchClient.observe($0, in: store) }
    defer { for observation in observations { observation.cancel() } }
    for endpoint in endpoints { _ = try? await queryBenchClient.fetch(endpoint, in: store).value }
    let posts = [QueryInvalidation.tag(QueryTag("Post"))]
    // The two steps of `invalidate`'s graph, timed one by one: its commit, then the refetch.
    var commits: [Double] = []
    var refetches: [Double] = []
    for _ in 0..<repetitions {
        let start = benchClock.now
        store.dispatch(QueryInvalidated(posts))
        let committed = benchClock.now
        _ = try? await store.dispatch(QueryUpkeep(.refetchInvalidated, cache: \QueryBenchState.cache)).value
        commits.append((committed - start).nanoseconds)
        refetches.append((benchClock.now - committed).nanoseconds)
    }
    for (name, samples) in [("the invalidation's commit", commits), ("the refetch of the 100", refetches)] {
        report.add(
            timeRecord(
                "a tag observed by \(queryInvalidatedEntries) entries: \(name)", samples,
                note: "\(repetitions) repetitions"))
    }
    // The whole of `invalidate`, against the same calls made by hand: a task each, awaited, then
    // one dispatch of their answers.
    report.add(
        await comparePaired(
            "query", "invalidate a tag observed by \(queryInvalidatedEntries), refetched",
            baseline: "\(queryInvalidatedEntries) calls by hand + a dispatch", budget: budget,
            ours: { ops in
                for _ in 0..<ops { blackhole(await queryBenchClient.invalidate(posts, in: store).wait().count) }
            },
            baseline: { ops in
                for _ in 0..<ops {
                    var feeds: [Int: [QueryBenchPost]] = [:]
                    let tasks = endpoints.map { endpoint in Task { queryBenchPosts(endpoint.userID) } }
                    for (user, task) in tasks.enumerated() { feeds[user] = await task.value }
                    store.dispatch(QueryBenchFeedLoaded(feeds: feeds))
                }
            }))
}
