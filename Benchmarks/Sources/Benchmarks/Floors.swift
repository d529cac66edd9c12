import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Floors: what any executor with the store's API pays the runtime, before any work of its own

// `store.dispatch(graph)` returns a run at once, without awaiting, so the run's async nodes must run
// on a task that the dispatch starts (the caller's task is not theirs to borrow), and a chain's
// calls must wait for one another. These functions do only that: the same calls on the fewest
// unstructured tasks a run could use, a lock taken per call to record its answer, the answers as
// `any Sendable` (a run keeps them untyped), then one dispatch. No graph, no bookkeeping, no
// cancellation: a floor under the figures, not a competitor. Their ratio to a target's baseline
// says how much of the target is left for the executor itself.

/// The answers of a floor run, behind the lock a run keeps its nodes' responses behind.
private typealias FloorAnswers = LockedValue<[(any Sendable)?]>

extension LockedValue where Value == [(any Sendable)?] {
    init(count: Int) {
        self.init(Array(repeating: nil, count: count))
    }

    func record(_ answer: any Sendable, at index: Int) {
        withLock { $0[index] = answer }
    }

    func answer(at index: Int) -> (any Sendable)? {
        withLock { $0[index] }
    }
}

/// The chain's calls, one after another on one task that the "dispatch" starts, awaited by the
/// caller; then one dispatch. The least a chain run can cost with this API.
func chainFloor(_ count: Int, _ kind: CallKind, _ store: Store<BenchState>) async {
    let answers = FloorAnswers(count: count)
    let calls: [@Sendable () async -> any Sendable] =
        switch kind {
        case .returnsAtOnce: Array(repeating: { await API.work() }, count: count)
        case .suspendsOnce: Array(repeating: { await API.workAfterSuspending() }, count: count)
        }
    let run = Task {
        for index in 0..<count { answers.record(await calls[index](), at: index) }
    }
    await run.value
    blackhole(answers.answer(at: count - 1) as? Int ?? 0)
    store.dispatch(Increment(amount: 1))
}

/// The README graph's calls as a run must make them: the log-in on a task the dispatch starts, the
/// profile on the same task and the feed on a second one (they run at once), both awaited; then
/// one dispatch. The least the README graph can cost with this API, building nothing.
func readmeFloor(_ store: Store<AppState>) async {
    let answers = FloorAnswers(count: 3)
    let run = Task {
        do {
            let session = try await API.logIn("ada", "lovelace")
            answers.record(session, at: 0)
            let feed = Task { answers.record(try await API.feed(session.token), at: 2) }
            answers.record(try await API.profile(session.token), at: 1)
            try await feed.value
        } catch {
            fatalError("the fake API does not throw: \(error)")
        }
    }
    await run.value
    guard let profile = answers.answer(at: 1) as? Profile, let feed = answers.answer(at: 2) as? [Post] else {
        fatalError("the floor run lost an answer")
    }
    store.dispatch(ShowHome(profile: profile, feed: feed))
}

/// The README graph's floor as its target sees it: the graph is built each run (and dropped
/// unrun), then its calls made as a run must make them.
func readmeFloorWithBuilding(_ store: Store<AppState>) async {
    blackhole(readmeGraph().count)
    await readmeFloor(store)
}

/// What a sync dispatch that any thread may call pays before it is the store's own work: one read
/// of a thread-local key (whether this thread runs a reducer, which must not dispatch) and the
/// reducer under a recursive pthread mutex (a dispatch waits for another thread's reducer, and code
/// a reducer calls may take the lock again). No pipeline, no queue, no subscriber check.
final class LockedReducerFloor: @unchecked Sendable {
    // Unchecked: used from one thread in the Benchmarks; the mutex and key are made in init and
    // released in deinit only.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var key = pthread_key_t()
    private let reducer: Reducer<BenchState>
    // Behind a pointer, as a store keeps it: a `var` of a class would add a runtime exclusivity
    // check to each call, which the store does not pay.
    private let state = UnsafeMutablePointer<BenchState>.allocate(capacity: 1)

    init(_ reducer: Reducer<BenchState>) {
        self.reducer = reducer
        state.initialize(to: BenchState())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        pthread_key_create(&key, nil)
    }

    deinit {
        pthread_key_delete(key)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Applies `action` `count` times, each as a dispatch must: the thread's mark, then the reducer
    /// under the lock.
    @inline(never)
    func dispatch(_ action: any Action, _ count: Int) {
        for _ in 0..<count {
            guard pthread_getspecific(key) == nil else { fatalError("the floor's key is never set") }
            pthread_mutex_lock(mutex)
            reducer(&state.pointee, action)
            pthread_mutex_unlock(mutex)
        }
        blackhole(state.pointee.count)
    }
}
