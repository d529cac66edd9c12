import OresRedux

// The work every scenario shares: the store's side and the hand-written baseline call the same
// functions, so the difference between them is what the library adds.

// MARK: - A small app: the README's log-in graph

struct Session: Sendable { var token: String }
struct Profile: Sendable { var name: String }
struct Post: Sendable { var id: Int }

struct AppState: Sendable {
    var profile: Profile?
    var feed: [Post] = []
    var homeShown = 0
}

/// The "network": answers at once, so a figure is the cost of what is around the calls.
enum API {
    @inline(never)
    static func logIn(_ user: String, _ password: String) async throws -> Session { Session(token: "t1") }

    @inline(never)
    static func profile(_ token: String) async throws -> Profile { Profile(name: "Ada") }

    @inline(never)
    static func feed(_ token: String) async throws -> [Post] { [] }

    @inline(never)
    static func work() async -> Int { 1 }

    /// Suspends once, then answers: a call that waits like real I/O, with no latency of its own.
    ///
    /// When real I/O completes, its continuation is resumed and the runtime enqueues the task on
    /// the global executor, where a pool thread picks it up. `Task.yield()` pays that same runtime
    /// path (suspend, enqueue, resume on a pool thread) and nothing else. A continuation resumed
    /// from another thread would add that thread's wake-up to both sides: latency that belongs to
    /// the I/O, not to suspending, and on a shared machine its variance would swamp the scheduling
    /// the library adds, which is what the figure is for. Resuming from another task would add
    /// that task's own start to both sides.
    @inline(never)
    static func workAfterSuspending() async -> Int {
        await Task.yield()
        return 1
    }
}

struct LogIn: AsyncAction {
    let user: String, password: String
    func run(_ context: ActionContext<AppState>) async throws -> Session { try await API.logIn(user, password) }
}

struct FetchProfile: AsyncAction {
    let token: String
    func run(_ context: ActionContext<AppState>) async throws -> Profile { try await API.profile(token) }
}

struct FetchFeed: AsyncAction {
    let token: String
    func run(_ context: ActionContext<AppState>) async throws -> [Post] { try await API.feed(token) }
}

struct ShowHome: Action { let profile: Profile; let feed: [Post] }

let appReducer = Reducer<AppState>.on(ShowHome.self) { state, action in
    state.profile = action.profile
    state.feed = action.feed
    state.homeShown += 1
}

/// The README's graph, as a user writes it: log in, then profile and feed, then one update.
func readmeGraph() -> ActionGraph<AppState> {
    var graph = ActionGraph<AppState>()
    let session = graph.run(LogIn(user: "ada", password: "lovelace"))
    let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
    let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
    graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
    return graph
}

/// The README graph, built, dispatched and waited for.
func readmeRun(_ store: Store<AppState>) async {
    let report = await store.dispatch(readmeGraph()).wait()
    blackhole(report.count)
}

/// The same calls written by hand with structured concurrency, then one dispatch.
func readmeByHand(_ store: Store<AppState>) async {
    do {
        let session = try await API.logIn("ada", "lovelace")
        async let profile = API.profile(session.token)
        async let feed = API.feed(session.token)
        store.dispatch(ShowHome(profile: try await profile, feed: try await feed))
    } catch {
        fatalError("the fake API does not throw: \(error)")
    }
}

// MARK: - Small shapes: async nodes and a final sync node

struct BenchState: Sendable, Equatable {
    var count = 0
    var label = 7
}

struct Increment: Action {
    var amount: Int
}

/// An async node that does nothing but answer: what is measured is the executor around it.
struct Trivial: AsyncAction {
    func run(_ context: ActionContext<BenchState>) async throws -> Int { await API.work() }
}

/// An async node whose call suspends once before it answers (see ``API/workAfterSuspending()``).
struct SuspendingCall: AsyncAction {
    func run(_ context: ActionContext<BenchState>) async throws -> Int { await API.workAfterSuspending() }
}

let incrementReducer = Reducer<BenchState>.on(Increment.self) { $0.count += $1.amount }

enum SmallShape: String, CaseIterable {
    /// n-1 async nodes one after another, then the sync node.
    case chain
    /// n-1 independent async nodes, then the sync node after all of them.
    case fanOut = "fan-out"
    /// One async node, n-2 async nodes after it, then the sync node after all of those.
    case diamond

    func graph(nodes: Int) -> ActionGraph<BenchState> {
        var graph = ActionGraph<BenchState>()
        switch self {
        case .chain:
            var last = graph.run(Trivial())
            for _ in 0..<(nodes - 2) { last = graph.run(Trivial(), after: last) }
            graph.send(Increment(amount: 1), after: last)
        case .fanOut:
            var all: [any GraphNode] = []
            for _ in 0..<(nodes - 1) { all.append(graph.run(Trivial())) }
            graph.send(Increment(amount: 1), after: all)
        case .diamond:
            let root = graph.run(Trivial())
            var middle: [any GraphNode] = []
            for _ in 0..<(nodes - 2) { middle.append(graph.run(Trivial(), after: root)) }
            graph.send(Increment(amount: 1), after: middle)
        }
        return graph
    }

    /// The same work by hand: awaits in a row for a chain, a task group for what runs side by side.
    func byHand(nodes: Int, _ store: Store<BenchState>) async {
        var total = 0
        switch self {
        case .chain:
            for _ in 0..<(nodes - 1) { total += await API.work() }
        case .fanOut:
            total += await parallelWork(nodes - 1)
        case .diamond:
            total += await API.work()
            total += await parallelWork(nodes - 2)
        }
        blackhole(total)
        store.dispatch(Increment(amount: 1))
    }
}

func parallelWork(_ count: Int) async -> Int {
    await withTaskGroup(of: Int.self) { group in
        for _ in 0..<count { group.addTask { await API.work() } }
        var total = 0
        for await value in group { total += value }
        return total
    }
}

// MARK: - What a task per node costs: child tasks of the caller against unstructured tasks

/// The README graph's three calls (log in, then profile and feed side by side), each on a child
/// task of one task group that the caller drives: what `await store.run(graph)` running nodes as
/// child tasks of the caller would pay the runtime, before any bookkeeping.
func readmeCallsAsChildTasks() async {
    let total = await withTaskGroup(of: Int.self) { group in
        group.addTask { await API.work() }
        var total = await group.next() ?? 0
        group.addTask { await API.work() }
        group.addTask { await API.work() }
        while let value = await group.next() { total += value }
        return total
    }
    blackhole(total)
}

/// The same three calls, each on an unstructured task, as a dispatched run starts its async nodes.
func readmeCallsAsTasks() async {
    var total = await Task { await API.work() }.value
    let profile = Task { await API.work() }
    let feed = Task { await API.work() }
    total += await profile.value + feed.value
    blackhole(total)
}

// MARK: - The target chain and fan

/// How each call of a scenario answers.
enum CallKind: String {
    case returnsAtOnce = "calls return at once"
    case suspendsOnce = "calls suspend once"
}

/// `count` async nodes one after another, then a sync node after the last one: a chain of calls
/// whose last answer leads to a state update.
func asyncChain(_ count: Int, _ kind: CallKind) -> ActionGraph<BenchState> {
    func chain<Call: AsyncAction>(of call: Call) -> ActionGraph<BenchState> where Call.State == BenchState {
        var graph = ActionGraph<BenchState>()
        var last = graph.run(call)
        for _ in 1..<count { last = graph.run(call, after: last) }
        graph.send(Increment(amount: 1), after: last)
        return graph
    }
    switch kind {
    case .returnsAtOnce: return chain(of: Trivial())
    case .suspendsOnce: return chain(of: SuspendingCall())
    }
}

/// The same calls awaited one after another in the caller's task, then one dispatch.
func callsInOneTask(_ count: Int, _ kind: CallKind, _ store: Store<BenchState>) async {
    var total = 0
    switch kind {
    case .returnsAtOnce:
        for _ in 0..<count { total &+= await API.work() }
    case .suspendsOnce:
        for _ in 0..<count { total &+= await API.workAfterSuspending() }
    }
    blackhole(total)
    store.dispatch(Increment(amount: 1))
}

/// `count` independent async nodes, each a call that returns at once.
func asyncFan(_ count: Int) -> ActionGraph<BenchState> {
    var graph = ActionGraph<BenchState>()
    graph.reserveCapacity(nodes: count)
    for _ in 0..<count { graph.run(Trivial()) }
    return graph
}

/// The same calls, each on an unstructured `Task` of its own, all awaited.
func callsOnATaskEach(_ count: Int) async {
    var tasks: [Task<Int, Never>] = []
    tasks.reserveCapacity(count)
    for _ in 0..<count { tasks.append(Task { await API.work() }) }
    var total = 0
    for task in tasks { total &+= await task.value }
    blackhole(total)
}
