import Dispatch
@_spi(OresReduxInternals) import OresRedux

/// A store for tests about the order in which things happen.
///
/// It wraps a real `Store` (the same reducer, middleware and graph executor as the app), answers
/// async actions with stubs instead of the network, runs time on a ``VirtualClock``, and records
/// every action that reaches the reducer so the test can assert them in order, each with the exact
/// state change it made:
///
/// ```swift
/// @Test func homeLoadsAfterLogIn() async throws {
///     let store = TestStore(initialState: AppState(), reducer: appReducer)
///     store.stub(LogIn.self, with: "token-1")
///     store.stub(FetchProfile.self) { action in Profile(name: "Ada", token: action.token) }
///     store.stub(FetchFeed.self, with: [Post(id: 1)])
///
///     store.dispatch(homeGraph(user: "ada"))
///
///     try await store.receive(ShowHome.self) {
///         $0.profile = Profile(name: "Ada", token: "token-1")
///         $0.feed = [Post(id: 1)]
///     }
///     try await store.finish()
/// }
/// ```
///
/// What it promises:
/// - **No wait hangs.** `receive`, `finish`, ``HeldCalls/nextCall(timeout:fileID:filePath:line:column:)``,
///   ``VirtualClock/waitForSleepers(_:timeout:fileID:filePath:line:column:)`` and ``assertSkipped(_:in:because:timeout:fileID:filePath:line:column:)``
///   end within ``timeout`` (real time, five seconds by default, overridable per call) and then throw
///   a ``TestStoreFailure`` that lists what is in flight: held calls not answered, sleepers on the
///   clock with their deadlines, runs with their nodes not yet ended.
/// - **`send` checks its own action**, wherever it landed in the log: a graph node that another
///   thread applied meanwhile is left for `receive`.
/// - **Virtual time passes like real time** (see ``VirtualClock/advance(to:)``).
/// - **Main-actor friendly**: `receive` runs on the caller's actor (`isolation:`), so its
///   assertion closure need not be `Sendable`; `send` calls its closure synchronously.
///
/// Failures are thrown as ``TestStoreFailure``, whose message shows a field-by-field ``StateDiff``
/// and whose `fileID`/`line` name the test's line, so the same test runs under Swift Testing and
/// XCTest.
///
/// **Exhaustive by default**: every action that reaches the reducer must be asserted with `send`
/// or `receive`, in order, and `finish` fails if any was not. Set ``exhaustivity``
/// to `.off` for large features: `receive` then skips actions until it finds the one asked for.
///
/// Dispatch through the test store (or through it as a `StoreProtocol`), not through ``store``:
/// only work started here is tracked, so that `receive` and `finish` know when it is done.
public final class TestStore<State: Sendable & Equatable>: Sendable {
    /// The real store under test. Work dispatched on it directly is not tracked; prefer the test
    /// store's own `dispatch` methods.
    public let store: Store<State>
    /// The clock that paces the store's timeouts, back-off and delays, and that async actions read as
    /// `ActionContext/clock`; advance it to move time.
    public let clock: VirtualClock

    let log: LockedValue<ReducerLog<State>>
    private let stubs: StubTable
    private let limit: LockedValue<Duration>
    /// The store's count of the work it started: what every wait of the test store ends on.
    let counter: WorkCounter

    /// Creates a test store in which every dependency reads its default value (to give the store's
    /// actions fakes, use ``init(initialState:reducer:middleware:dependencies:exhaustivity:timeout:durableMarks:)``).
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: the app's reducer.
    ///   - middleware: the app's middleware, if the test needs it.
    ///   - exhaustivity: `.on` (the default) to require every received action to be asserted.
    ///   - timeout: how long, in real time, every wait of this test store may take before it fails
    ///     (five seconds by default: enough for a loaded CI machine running tests in parallel); each wait also takes its own `timeout:`.
    public convenience init(
        initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = [],
        exhaustivity: Exhaustivity = .on, timeout: Duration = .seconds(5)
    ) {
        self.init(
            initialState: initialState, reducer: reducer, middleware: middleware, dependencies: Dependencies(),
            exhaustivity: exhaustivity, timeout: timeout)
    }

    /// Creates a test store whose async actions and middleware see `dependencies`.
    ///
    /// Every `ActionContext` of the store returns them from `ActionContext/dependencies`: the
    /// contexts given to stubs, to actions run with ``runForReal(_:)``, and to middleware. Set the
    /// fakes the test needs; a key left unset reads its `DependencyKey/defaultValue`:
    ///
    /// ```swift
    /// var dependencies = Dependencies()
    /// dependencies.api = FakeAPI(profile: Profile(name: "Ada"))
    /// let store = TestStore(initialState: AppState(), reducer: appReducer, dependencies: dependencies)
    /// store.runForReal(FetchProfile.self)   // its `run` calls the fake
    /// ```
    ///
    /// `ActionContext/clock` is always ``clock``, the test store's ``VirtualClock``.
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: the app's reducer.
    ///   - middleware: the app's middleware, if the test needs it.
    ///   - dependencies: what every context of the store returns as its dependencies.
    ///   - exhaustivity: `.on` (the default) to require every received action to be asserted.
    ///   - timeout: how long, in real time, every wait of this test store may take before it fails
    ///     (five seconds by default); each wait also takes its own `timeout:`.
    ///   - durableMarks: the durable sync work `initialState` already holds, for a test store that
    ///     plays a relaunch (see ``PersistedAtStop``); none by default.
    public init(
        initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = [],
        dependencies: Dependencies, exhaustivity: Exhaustivity = .on, timeout: Duration = .seconds(5),
        durableMarks: DurableMarks = DurableMarks()
    ) {
        let log = LockedValue(ReducerLog<State>(exhaustivity: exhaustivity))
        let logID = log.identity
        let counter = WorkCounter()
        let limit = LockedValue(timeout)
        let clock = VirtualClock()
        clock.timeout = timeout
        let recording = Reducer<State> { state, action in
            let before = state
            reducer(&state, action)
            let mark = SendMark.current
            log.withLock { log in
                log.append(Received(action: action, before: before, after: state))
                if let mark, mark.owner == logID, log.sendLandings[mark.id] == nil {
                    log.sendLandings[mark.id] = log.received.count - 1
                }
            }
            counter.noteProgress()
        }
        weak let weakClock = clock
        let inFlight: @Sendable () -> [String] = { weakClock?.inFlightLines() ?? [] }
        let stubs = StubTable(
            waits: TestStoreWaits(timeout: { limit.withLock { $0 } }, inFlight: inFlight, counter: counter),
            state: State.self)
        var options = StoreOptions(clock: clock, dependencies: dependencies)
        options.interceptor = stubs
        options.workCounter = counter
        options.durableMarks = durableMarks
        self.store = Store(initialState: initialState, reducer: recording, middleware: middleware, options: options)
        self.clock = clock
        self.log = log
        self.stubs = stubs
        self.limit = limit
        self.counter = counter
        clock.setOwner(
            VirtualClock.Owner(
                counter: counter,
                inFlight: {
                    let tracked = log.withLock { log in log.tracked.sorted { $0.key < $1.key } }
                    let held = stubs.unansweredHeldCalls().map { "  held call not answered: \($0)" }
                    let work = tracked.map { "  " + $0.value.describe(id: $0.key) }
                    // The clock lists its sleepers itself.
                    let running = counter.lines().filter { !$0.contains("asleep on the clock") }
                    let lines = held + work + running
                    return lines.isEmpty ? ["  no run or task in flight"] : lines
                },
                recordFailure: { failure in log.withLock { $0.failures.append(failure) } },
                failures: { stubs.failures() }))
    }

    /// The store's current state.
    public var state: State { store.state }

    /// Whether every received action must be asserted (`.on`), or `receive` may skip some (`.off`).
    public var exhaustivity: Exhaustivity {
        get { log.withLock { $0.exhaustivity } }
        set { log.withLock { $0.exhaustivity = newValue } }
    }

    /// How long a wait of this test store (and of its ``clock`` and ``HeldCalls``) may see nothing
    /// progress before it fails with a ``TestStoreFailure``; a wait's own `timeout:` overrides it.
    ///
    /// Five seconds unless set. The time counts only while Swift's cooperative pool runs jobs, and
    /// starts again at every step of the store's work, so a slow machine never fails a wait and a
    /// hang fails within about this long. While ThreadSanitizer is loaded a wait allows three times
    /// this, because the sanitizer slows each step of the work in a way the pool's time does not
    /// see (the failure message says so).
    public var timeout: Duration {
        get { limit.withLock { $0 } }
        set {
            limit.withLock { $0 = newValue }
            clock.timeout = newValue
        }
    }

    // MARK: Stubs

    /// Answers every call of `type` with `respond(action)`; replaces an earlier stub of the type.
    public func stub<A: AsyncAction>(_ type: A.Type, _ respond: @escaping @Sendable (A) throws -> A.Response)
    where A.State == State {
        stubs.set(for: A.self) { action, _ in try respond(action as! A) }
    }

    /// Answers every call of `type` with what `respond` returns, given the action and its
    /// `ActionContext` (to read the state or dispatch, as the real `run` would); it may suspend,
    /// for instance to sleep on ``clock``. Replaces an earlier stub of the type.
    ///
    /// From a `@MainActor` test, mark the closure `@MainActor` to touch main-actor state in it.
    public func stub<A: AsyncAction>(
        _ type: A.Type,
        _ respond: @escaping @Sendable (A, ActionContext<State>) async throws -> A.Response
    )
    where A.State == State {
        stubs.set(for: A.self) { action, context in try await respond(action as! A, context as! ActionContext<State>) }
    }

    /// Runs calls of `type` for real: the action's own `run`, with its own fields and the store's
    /// context. For pure async actions (shuffling cards, parsing) that need no fake, and for actions
    /// whose services come from the test's dependencies (see
    /// ``init(initialState:reducer:middleware:dependencies:exhaustivity:timeout:durableMarks:)``): `run` then
    /// calls the test's fakes and sleeps on ``clock``.
    public func runForReal<A: AsyncAction>(_ type: A.Type) where A.State == State {
        stubs.set(for: A.self) { action, context in try await (action as! A).run(context as! ActionContext<State>) }
    }

    /// Answers every call of `type` with `response`.
    public func stub<A: AsyncAction>(_ type: A.Type, with response: A.Response) where A.State == State {
        stub(type) { (_: A) in response }
    }

    /// Fails every call of `type` with `error`.
    public func stub<A: AsyncAction>(_ type: A.Type, throwing error: any Error) where A.State == State {
        stub(type) { (_: A) in throw error }
    }

    /// Answers successive calls of `type` with successive results; calls past the end get the last one.
    /// Handy for retries: `[.failure(Offline()), .success(feed)]`.
    public func stub<A: AsyncAction>(_ type: A.Type, sequence: [Result<A.Response, any Error>])
    where A.State == State {
        precondition(!sequence.isEmpty, "OresRedux: a stub sequence needs at least one result")
        let next = LockedValue(0)
        stub(type) { (_: A) in
            let index = next.withLock { index -> Int in
                defer { index += 1 }
                return Swift.min(index, sequence.count - 1)
            }
            return try sequence[index].get()
        }
    }

    /// Answers calls of exactly `action` (by `==`) with `response`; checked before stubs by type.
    public func stub<A: AsyncAction & Equatable>(_ action: A, with response: A.Response) where A.State == State {
        stubs.set(for: A.self, matching: { $0 as? A == action }) { _, _ in response }
    }

    /// Fails calls of exactly `action` (by `==`) with `error`; checked before stubs by type.
    public func stub<A: AsyncAction & Equatable>(_ action: A, throwing error: any Error) where A.State == State {
        stubs.set(for: A.self, matching: { $0 as? A == action }) { _, _ in throw error }
    }

    /// Holds every call of `type` until the test answers it through the returned ``HeldCalls``.
    public func hold<A: AsyncAction>(_ type: A.Type) -> HeldCalls<A> where A.State == State {
        let held = HeldCalls<A>(owner: stubs.waits)
        stubs.set(for: A.self, held: held) { action, _ in try await held.call(action as! A) }
        return held
    }

    /// Every call of `type` made so far (stubbed, held or unanswered), oldest first.
    public func calls<A: AsyncAction>(to type: A.Type) -> [A] {
        stubs.calls(of: A.self).map { $0 as! A }
    }

    // MARK: Sending and receiving

    /// Dispatches a sync action and asserts the state change that this action made.
    ///
    /// The action checked is the one this call dispatched (or what a middleware replaced it with),
    /// found wherever it landed in the log; actions that reached the reducer before it or meanwhile
    /// (graph nodes applied by other threads, actions a middleware or subscriber dispatched) are
    /// left for `receive`.
    ///
    /// - Parameters:
    ///   - action: the action to dispatch.
    ///   - update: the expected change, written as a mutation of the state before the action;
    ///     omit it when the action must not change the state.
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if the action did not reach the reducer, or if the state after it
    ///   differs from the expected one.
    public func send(
        _ action: some Action, _ update: ((inout State) -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        try send(action, unasserted: [], update, place)
    }

    /// Dispatches a sync action and asserts the state change it made, except in the parts of the
    /// state that `unasserted` names: those are taken as the action left them, unchecked.
    ///
    /// For a part the test cannot write or does not care about, such as a value an inspector
    /// recording cut (a generated test says so in a comment above the call):
    ///
    /// ```swift
    /// try store.send(AddPost(post: post), notAsserting: [\.feed]) { $0.draft = "" }
    /// ```
    /// - Parameters:
    ///   - action: the action to dispatch.
    ///   - unasserted: writable key paths (`\.feed`, `\.profile.avatar`) into the state whose values
    ///     are not checked; the rest of the state is, exactly as ``send(_:_:fileID:filePath:line:column:)``
    ///     checks it.
    ///   - update: the expected change to the rest of the state, as a mutation of the state before the
    ///     action.
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Throws: ``TestStoreFailure`` if the action did not reach the reducer, if the rest of the state
    ///   after it differs from the expected one, or if a key path of `unasserted` is not writable.
    public func send(
        _ action: some Action, notAsserting unasserted: [PartialKeyPath<State>],
        _ update: ((inout State) -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        try send(action, unasserted: unasserted, update, place)
    }

    private func send(
        _ action: some Action, unasserted: [PartialKeyPath<State>], _ update: ((inout State) -> Void)?,
        _ place: Place
    ) throws {
        let mark = SendMark(owner: log.identity, id: log.withLock { $0.nextSendID() })
        mark.during { store.dispatch(action) }
        let received = try log.withLock { log -> Received<State> in
            guard let index = log.sendLandings.removeValue(forKey: mark.id) else {
                throw TestStoreFailure(
                    place, "\(type(of: action)) was sent but did not reach the reducer (a middleware dropped it?)")
            }
            log.markAsserted(index)
            return log.received[index]
        }
        try check(received, update, unasserted: unasserted, name: "\(type(of: received.action))", place)
    }

    /// Waits for the next action of type `A` to reach the reducer and asserts the state change it made.
    ///
    /// In exhaustive mode the next unasserted action must be an `A`; otherwise earlier actions of
    /// other types are skipped. The wait ends with a failure, never a hang: at once when every run
    /// and task started through this test store has ended without producing it, and after `timeout`
    /// otherwise, listing what is still in flight.
    /// - Parameters:
    ///   - type: the action type expected next.
    ///   - timeout: how long to wait in real time; ``timeout`` of the store when `nil`.
    ///   - update: the expected change, as a mutation of the state before the action. It runs on the
    ///     caller's actor, so it need not be `Sendable`.
    ///   - isolation: the caller's actor (filled in for you).
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Returns: the action, to check its fields.
    @discardableResult
    public func receive<A: Action>(
        _ type: A.Type, timeout: Duration? = nil,
        _ update: ((inout State) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws -> A {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        return try await receive(type, unasserted: [], timeout: timeout, update, isolation: isolation, place)
    }

    /// Waits for the next action of type `A` to reach the reducer and asserts the state change it
    /// made, except in the parts of the state that `unasserted` names: those are taken as the action
    /// left them, unchecked. It waits as the type-based `receive(_:timeout:_:)` does.
    ///
    /// For a part the test cannot write or does not care about, such as a value an inspector
    /// recording cut (a generated test says so in a comment above the call):
    ///
    /// ```swift
    /// try await store.receive(ShowHome.self, notAsserting: [\.feed]) { $0.screen = .home }
    /// ```
    /// - Parameters:
    ///   - type: the action type expected next.
    ///   - unasserted: writable key paths (`\.feed`, `\.profile.avatar`) into the state whose values
    ///     are not checked; the rest of the state is.
    ///   - timeout: how long to wait in real time; ``timeout`` of the store when `nil`.
    ///   - update: the expected change to the rest of the state, as a mutation of the state before the
    ///     action. It runs on the caller's actor, so it need not be `Sendable`.
    ///   - isolation: the caller's actor (filled in for you).
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    /// - Returns: the action, to check its fields.
    /// - Throws: ``TestStoreFailure`` as the other `receive` does, or if a key path of `unasserted` is
    ///   not writable.
    @discardableResult
    public func receive<A: Action>(
        _ type: A.Type, notAsserting unasserted: [PartialKeyPath<State>], timeout: Duration? = nil,
        _ update: ((inout State) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws -> A {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        return try await receive(type, unasserted: unasserted, timeout: timeout, update, isolation: isolation, place)
    }

    private func receive<A: Action>(
        _ type: A.Type, unasserted: [PartialKeyPath<State>], timeout: Duration?,
        _ update: ((inout State) -> Void)?, isolation: isolated (any Actor)?, _ place: Place
    ) async throws -> A {
        let received = try await waitForReceived(named: "\(A.self)", matching: { $0 is A }, timeout: timeout, place)
        try check(received, update, unasserted: unasserted, name: "\(A.self)", place)
        return received.action as! A
    }

    /// Waits for the next action equal to `action` to reach the reducer and asserts its state change;
    /// see the type-based `receive(_:timeout:_:)` for the rest.
    public func receive<A: Action & Equatable>(
        _ action: A, timeout: Duration? = nil,
        _ update: ((inout State) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        let received = try await waitForReceived(
            named: "\(action)", matching: { $0 as? A == action },
            timeout: timeout, place)
        try check(received, update, name: "\(action)", place)
    }

    private func waitForReceived(
        named name: String, matching matches: @escaping @Sendable (any Action) -> Bool,
        timeout: Duration?, _ place: Place
    ) async throws -> Received<State> {
        try throwClockFailures(place)
        let limit = timeout ?? self.timeout
        var step = ReceiveStep.wait
        let ended = await counter.wait(timeout: limit) {
            step = log.withLock { log -> ReceiveStep in
                for index in log.unassertedIndices {
                    let candidate = log.received[index]
                    if matches(candidate.action) {
                        for skipped in log.unassertedIndices where skipped < index { log.markAsserted(skipped) }
                        log.markAsserted(index)
                        return .found(candidate)
                    }
                    if log.exhaustivity == .on { return .mismatch(candidate.action) }
                }
                return log.tracked.isEmpty ? .idle : .wait
            }
            if case .wait = step { return false }
            return true
        }
        switch step {
        case .found(let received):
            return received
        case .mismatch(let other):
            throw TestStoreFailure(place, "expected to receive \(name), but received \(other) first")
        case .idle:
            try throwRecordedFailures(place)
            throw TestStoreFailure(
                place,
                """
                expected to receive \(name), but every run and task has finished and it never reached the reducer
                """)
        case .wait:
            precondition(!ended, "OresRedux: a receive ended while still waiting")
            try throwRecordedFailures(place)
            throw TestStoreFailure(
                place,
                """
                waited \(describeSeconds(limit)) to receive \(name), but it did not reach the reducer, and \
                nothing progressed meanwhile
                \(clock.inFlightLines().joined(separator: "\n"))
                """)
        }
    }

    private enum ReceiveStep {
        case found(Received<State>)
        case mismatch(any Action)
        case idle
        case wait
    }

    // MARK: Dispatching (the StoreProtocol members)

    /// Where this test store's dispatches go: its ``store``, tracked, so that `receive` and `finish`
    /// wait for the async actions and graphs started through it (and name them when they time out).
    /// Sync actions are recorded for `receive` whichever way they were dispatched.
    @_spi(OresReduxInternals)
    public var dispatchTarget: DispatchTarget<State> {
        DispatchTarget(store: store, tracker: Tracker(log: log, counter: counter))
    }

    /// Calls `observer` at once with the current state, then after every committed action.
    public func subscribe(_ observer: @escaping @Sendable (State) -> Void) -> Subscription {
        store.subscribe(observer)
    }

    /// Calls `observer` at once with the selected value, then whenever a committed action changes it.
    public func subscribe<Value: Equatable & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        _ observer: @escaping @Sendable (Value) -> Void
    ) -> Subscription {
        store.subscribe(select, observer)
    }

    /// The current state, then every committed state, as an async sequence.
    public func states() -> AsyncStream<State> {
        store.states()
    }

    /// Follows the work started through `dispatchTarget` (or an owner of this test store) until it
    /// ends.
    struct Tracker: DispatchTracker {
        let log: LockedValue<ReducerLog<State>>
        let counter: WorkCounter
        /// For an owner's work: its name, and whether it has ended.
        var owner: (name: String, isEnded: @Sendable () -> Bool)? = nil

        func track<Response: Sendable>(_ task: ActionTask<Response>, named name: String) {
            guard let owner else { return follow(.task(name)) { _ = try? await task.value } }
            let log = log
            follow(.task(name)) {
                let endedBefore = owner.isEnded()
                // A value from a task the owner's end cancelled: its `run` ignored the cancellation.
                // Work that ended before the owner did was not cancelled by it, however late this
                // follower looks.
                guard (try? await task.value) != nil, !endedBefore, owner.isEnded(), task.wasCancelled else {
                    return
                }
                log.withLock { $0.outlived.append("async action \(name) of the owner \"\(owner.name)\"") }
            }
        }

        func track(_ run: GraphRun<State>) {
            follow(.run(run)) { _ = await run.wait() }
        }

        var withoutOwner: any DispatchTracker<State> {
            var tracker = self
            tracker.owner = nil
            return tracker
        }

        private func follow(_ tracked: Tracked<State>, until end: @escaping @Sendable () async -> Void) {
            let id = log.withLock { log in log.startTracking(tracked) }
            let (log, counter) = (log, counter)
            Task {
                await end()
                log.withLock { log in log.tracked[id] = nil }
                counter.noteProgress()
            }
        }
    }

    // MARK: Graph facts

    /// Asserts that the first `later` action reached the reducer after the first of each `earlier` one.
    public func assertReached(
        _ later: any Action.Type, after earlier: any Action.Type...,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        let actions = log.withLock { $0.received.map(\.action) }
        func position(of type: any Action.Type) -> Int? { actions.firstIndex { Swift.type(of: $0) == type } }
        guard let laterIndex = position(of: later) else {
            throw TestStoreFailure(place, "\(later) never reached the reducer (received: \(Self.names(actions)))")
        }
        for type in earlier {
            guard let index = position(of: type) else {
                throw TestStoreFailure(place, "\(type) never reached the reducer (received: \(Self.names(actions)))")
            }
            if index > laterIndex {
                throw TestStoreFailure(
                    place, "\(later) reached the reducer before \(type) (received: \(Self.names(actions)))")
            }
        }
    }

    /// Waits for `node` and asserts it was skipped because `cause`, one of its prerequisites direct or
    /// not, did not succeed.
    /// - Parameters:
    ///   - node: the node that must have been skipped.
    ///   - run: the run it belongs to.
    ///   - cause: a prerequisite of `node`, direct or not, that did not succeed.
    ///   - timeout: how long to wait for both nodes to end; the store's ``timeout`` when `nil`.
    ///   - fileID: where the assertion is, for the failure (filled in for you).
    ///   - filePath: the same place as a path (filled in for you).
    ///   - line: the same place's line (filled in for you).
    ///   - column: the same place's column (filled in for you).
    public func assertSkipped<R, C>(
        _ node: Node<R>, in run: GraphRun<State>, because cause: Node<C>,
        timeout: Duration? = nil,
        fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        try throwClockFailures(place)
        let limit = timeout ?? self.timeout
        var outcomes: (node: OutcomeKind?, cause: OutcomeKind?) = (nil, nil)
        let ended = await counter.wait(timeout: limit) {
            let report = run.report
            outcomes = (report[node].outcome, report[cause].outcome)
            return outcomes.node != nil && outcomes.cause != nil
        }
        guard ended, let outcome = outcomes.node, let causeOutcome = outcomes.cause else {
            throw TestStoreFailure(
                place,
                """
                waited \(describeSeconds(limit)) for \(run.graph.label(of: node.index)) (\(node)) and \
                \(run.graph.label(of: cause.index)) (\(cause)) to end, and nothing progressed meanwhile
                \(clock.inFlightLines().joined(separator: "\n"))
                """)
        }
        guard outcome == .skipped else {
            throw TestStoreFailure(
                place, "\(run.graph.label(of: node.index)) (\(node)) was \(outcome.rawValue), not skipped")
        }
        guard causeOutcome != .succeeded else {
            throw TestStoreFailure(
                place,
                "\(run.graph.label(of: cause.index)) (\(cause)) succeeded, so it cannot be why \(node) was skipped")
        }
        guard run.graph.dependsOn(node.index, cause.index) else {
            throw TestStoreFailure(
                place, "\(node) does not depend on \(cause), so it cannot have been skipped because of it")
        }
    }

    /// Waits until every run and task started through this test store has finished, then asserts that
    /// nothing is left: no held call unanswered, no async action without a stub, no work of an owner
    /// (``makeOwner(_:)``) that finished after its owner ended with no policy that allows it, and
    /// (exhaustive mode) no action that reached the reducer unasserted.
    ///
    /// Answer held calls and advance the clock past pending timers first: `finish` waits for the work
    /// itself, so work that waits on them fails it, with the list of what is in flight: as soon as
    /// nothing progressed for a moment when none of the work runs and some sleeps on the test
    /// store's clock, which only the test moves; after `timeout` when the work runs on with no
    /// progress.
    public func finish(
        timeout: Duration? = nil, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let place = Place(fileID: fileID, filePath: filePath, line: line, column: column)
        let held = stubs.unansweredHeldCalls()
        if !held.isEmpty {
            throw TestStoreFailure(
                place,
                """
                calls still wait for an answer: \(held.joined(separator: ", ")); respond to them or cancel the run
                \(clock.inFlightLines().joined(separator: "\n"))
                """)
        }
        try throwClockFailures(place)
        let limit = timeout ?? self.timeout
        let (log, clock, counter) = (self.log, self.clock, self.counter)
        let isFinished = { log.withLock { $0.tracked.isEmpty } }
        let waitsForTheClock = { counter.snapshot.running == 0 && clock.hasSleepingWork }
        var done = false
        var waitsOnlyForTheClock = false
        while !waitsOnlyForTheClock {
            done = await counter.wait(timeout: limit) { isFinished() || waitsForTheClock() }
            if !done || isFinished() { break }
            // The follower of work that just ended may not have noted it yet, while a sleeper of other
            // work (not started here) goes on: only a quiet moment with no progress at all shows that
            // what is tracked here waits for the clock.
            let moved = await counter.wait(timeout: Self.quietBeforeBlamingTheClock) {
                isFinished() || !waitsForTheClock()
            }
            waitsOnlyForTheClock = !moved
        }
        if waitsOnlyForTheClock {
            try throwRecordedFailures(place)
            throw TestStoreFailure(
                place,
                """
                the work in flight waits for the test store's clock, which only the test moves: advance the clock \
                past it (store.clock.advance(by:), store.clock.run()) or cancel that work before finish()
                \(clock.inFlightLines().joined(separator: "\n"))
                """)
        }
        guard done else {
            try throwRecordedFailures(place)
            throw TestStoreFailure(
                place,
                """
                waited \(describeSeconds(limit)) for the work in flight to finish, and nothing progressed meanwhile
                \(clock.inFlightLines().joined(separator: "\n"))
                """)
        }
        try throwRecordedFailures(place)
        let outlived = log.withLock { $0.outlived }
        if !outlived.isEmpty {
            throw TestStoreFailure(
                place,
                """
                work outlived its owner, with no policy that allows it: \(outlived.joined(separator: ", ")) \
                finished after its owner ended (its `run` ignored the cancellation; check `Task.isCancelled`, \
                or dispatch it to the store if it must finish)
                """)
        }
        let pending = log.withLock { log in
            log.exhaustivity == .on ? log.unassertedIndices.map { log.received[$0].action } : []
        }
        if !pending.isEmpty {
            throw TestStoreFailure(
                place, "\(pending.count) action(s) reached the reducer but were not asserted: \(Self.names(pending))")
        }
    }

    /// How long, in pool time, nothing must progress before `finish` takes work that sleeps on the
    /// clock, with nothing running, to wait for the test.
    static var quietBeforeBlamingTheClock: Duration { .milliseconds(100) }

    // MARK: Checks

    private func check(
        _ received: Received<State>, _ update: ((inout State) -> Void)?,
        unasserted: [PartialKeyPath<State>] = [], name: String, _ place: Place
    ) throws {
        var expected = received.before
        update?(&expected)
        for path in unasserted {
            guard let field = path as? any UnassertedField<State> else {
                throw TestStoreFailure(place, "\(path) is not a writable key path, so it cannot be left unasserted")
            }
            field.copy(from: received.after, into: &expected)
        }
        guard expected != received.after else { return }
        let diff = StateDiff.lines(expected: expected, actual: received.after)
        let header =
            update == nil
            ? "\(name) changed the state, but no change was expected:"
            : "state after \(name) differs from the expected state:"
        throw TestStoreFailure(place, ([header] + diff.map { "  " + $0 }).joined(separator: "\n"))
    }

    private func throwRecordedFailures(_ place: Place) throws {
        try throwClockFailures(place)
        let failures = stubs.failures()
        if !failures.isEmpty {
            throw TestStoreFailure(place, failures.joined(separator: "\n"))
        }
    }

    /// Throws what an advance of the clock that gave up recorded: once, from the first wait after it.
    private func throwClockFailures(_ place: Place) throws {
        let failures = log.withLock { log in
            defer { log.failures.removeAll() }
            return log.failures
        }
        if !failures.isEmpty {
            throw TestStoreFailure(place, failures.joined(separator: "\n"))
        }
    }

    private static func names(_ actions: [any Action]) -> String {
        actions.isEmpty ? "nothing" : actions.map { "\(type(of: $0))" }.joined(separator: ", ")
    }
}

/// A test store drives feature code written against `StoreProtocol`.
extension TestStore: StoreProtocol {}

/// A part of the state a test leaves unasserted: its value is copied from the actual state into the
/// expected one before they are compared.
private protocol UnassertedField<Root> {
    associatedtype Root
    func copy(from actual: Root, into expected: inout Root)
}

extension WritableKeyPath: UnassertedField {
    fileprivate func copy(from actual: Root, into expected: inout Root) {
        expected[keyPath: self] = actual[keyPath: self]
    }
}
