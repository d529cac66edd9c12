/// A store for tests about the order in which things happen.
///
/// It wraps a real ``Store`` (the same reducer, middleware and graph executor as the app), answers
/// async actions with stubs instead of the network, runs time on a ``TestClock``, and records every
/// action that reaches the reducer so the test can assert them in order, each with the exact state
/// change it made:
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
/// Failures are thrown as ``TestStoreFailure``, whose message names the place in the test and shows a
/// field-by-field ``StateDiff``, so the same test runs under Swift Testing and XCTest.
///
/// **Exhaustive by default**: every action that reaches the reducer must be asserted with `send`
/// or `receive`, in order, and `finish` fails if any was not. Set ``exhaustivity``
/// to `.off` for large features: `receive` then skips actions until it finds the one asked for.
public final class TestStore<State: Sendable & Equatable>: Sendable {
    /// The real store under test.
    public let store: Store<State>
    /// The clock that paces the store's timeouts, back-off and delays; advance it to move time.
    public let clock: TestClock

    private let log: LockedValue<ReducerLog<State>>
    private let stubs: StubTable

    /// Creates a test store.
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: the app's reducer.
    ///   - middleware: the app's middleware, if the test needs it.
    ///   - exhaustivity: `.on` (the default) to require every received action to be asserted.
    public init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = [],
                exhaustivity: Exhaustivity = .on) {
        let log = LockedValue(ReducerLog<State>(exhaustivity: exhaustivity))
        let stubs = StubTable()
        let clock = TestClock()
        let recording = Reducer<State> { state, action in
            let before = state
            reducer(&state, action)
            let received = Received(action: action, before: before, after: state)
            let waiters = log.withLock { log in
                log.received.append(received)
                return log.takeWaiters()
            }
            for waiter in waiters { waiter.resume() }
        }
        var options = StoreOptions(clock: clock)
        options.interceptor = stubs
        self.store = Store(initialState: initialState, reducer: recording, middleware: middleware, options: options)
        self.clock = clock
        self.log = log
        self.stubs = stubs
    }

    /// The store's current state.
    public var state: State { store.state }

    /// Whether every received action must be asserted (`.on`), or `receive` may skip some (`.off`).
    public var exhaustivity: Exhaustivity {
        get { log.withLock { $0.exhaustivity } }
        set { log.withLock { $0.exhaustivity = newValue } }
    }

    // MARK: Stubs

    /// Answers every call of `type` with `respond(action)`; replaces an earlier stub of the type.
    public func stub<A: AsyncAction>(_ type: A.Type, _ respond: @escaping @Sendable (A) throws -> A.Response)
    where A.State == State {
        stubs.set(for: A.self) { action in try respond(action as! A) }
    }

    /// Answers every call of `type` with `response`.
    public func stub<A: AsyncAction>(_ type: A.Type, with response: A.Response) where A.State == State {
        stub(type) { _ in response }
    }

    /// Fails every call of `type` with `error`.
    public func stub<A: AsyncAction>(_ type: A.Type, throwing error: any Error) where A.State == State {
        stub(type) { _ in throw error }
    }

    /// Answers successive calls of `type` with successive results; calls past the end get the last one.
    /// Handy for retries: `[.failure(Offline()), .success(feed)]`.
    public func stub<A: AsyncAction>(_ type: A.Type, sequence: [Result<A.Response, any Error>])
    where A.State == State {
        precondition(!sequence.isEmpty, "OresRedux: a stub sequence needs at least one result")
        let next = LockedValue(0)
        stub(type) { _ in
            let index = next.withLock { index -> Int in
                defer { index += 1 }
                return Swift.min(index, sequence.count - 1)
            }
            return try sequence[index].get()
        }
    }

    /// Answers calls of exactly `action` (by `==`) with `response`; checked before stubs by type.
    public func stub<A: AsyncAction & Equatable>(_ action: A, with response: A.Response) where A.State == State {
        stubs.set(for: A.self, matching: { $0 as? A == action }) { _ in response }
    }

    /// Fails calls of exactly `action` (by `==`) with `error`; checked before stubs by type.
    public func stub<A: AsyncAction & Equatable>(_ action: A, throwing error: any Error) where A.State == State {
        stubs.set(for: A.self, matching: { $0 as? A == action }) { _ in throw error }
    }

    /// Holds every call of `type` until the test answers it through the returned ``HeldCalls``.
    public func hold<A: AsyncAction>(_ type: A.Type) -> HeldCalls<A> where A.State == State {
        let held = HeldCalls<A>()
        stubs.set(for: A.self, held: held) { action in try await held.call(action as! A) }
        return held
    }

    /// Every call of `type` made so far (stubbed, held or unanswered), oldest first.
    public func calls<A: AsyncAction>(to type: A.Type) -> [A] {
        stubs.calls(of: A.self).map { $0 as! A }
    }

    // MARK: Sending and receiving

    /// Dispatches a sync action and asserts the state change it made.
    ///
    /// - Parameters:
    ///   - action: the action to dispatch.
    ///   - update: the expected change, written as a mutation of the state before the action;
    ///     omit it when the action must not change the state.
    ///   - fileID: where the assertion is, for the failure message (filled in for you).
    ///   - line: where the assertion is, for the failure message (filled in for you).
    /// - Throws: ``TestStoreFailure`` if received actions were left unasserted (exhaustive mode), if the
    ///   action did not reach the reducer, or if the state differs from the expected one.
    public func send(_ action: some Action, _ update: ((inout State) -> Void)? = nil,
                     fileID: StaticString = #fileID, line: UInt = #line) throws {
        let where_ = Place(fileID: fileID, line: line)
        let (pending, first) = log.withLock { log in (log.unasserted.map(\.action), log.received.count) }
        if exhaustivity == .on, !pending.isEmpty {
            throw TestStoreFailure(where_, """
                \(pending.count) received action(s) must be asserted with receive(...) before sending \
                \(type(of: action)): \(pending.map { "\(type(of: $0))" }.joined(separator: ", "))
                """)
        }
        store.dispatch(action)
        let received = try log.withLock { log -> Received<State> in
            guard first < log.received.count else {
                throw TestStoreFailure(where_, "\(type(of: action)) was sent but did not reach the reducer (a middleware dropped it?)")
            }
            log.asserted = Swift.max(log.asserted, first + 1)
            return log.received[first]
        }
        try check(received, update, name: "\(type(of: action))", where_)
    }

    /// Waits for the next action of type `A` to reach the reducer and asserts the state change it made.
    ///
    /// In exhaustive mode the next unasserted action must be an `A`; otherwise earlier actions of
    /// other types are skipped. Waiting ends with a failure, never a hang, once every run and task
    /// started through this test store has finished without producing it.
    /// - Parameters:
    ///   - type: the action type expected next.
    ///   - update: the expected change, as a mutation of the state before the action.
    ///   - fileID: where the assertion is, for the failure message (filled in for you).
    ///   - line: where the assertion is, for the failure message (filled in for you).
    /// - Returns: the action, to check its fields.
    @discardableResult
    public func receive<A: Action>(_ type: A.Type, _ update: ((inout State) -> Void)? = nil,
                                   fileID: StaticString = #fileID, line: UInt = #line) async throws -> A {
        try await receive(named: "\(A.self)", matching: { $0 is A }, update, Place(fileID: fileID, line: line)).action as! A
    }

    /// Waits for the next action equal to `action` to reach the reducer and asserts its state change.
    public func receive<A: Action & Equatable>(_ action: A, _ update: ((inout State) -> Void)? = nil,
                                               fileID: StaticString = #fileID, line: UInt = #line) async throws {
        _ = try await receive(named: "\(action)", matching: { $0 as? A == action }, update,
                              Place(fileID: fileID, line: line))
    }

    private func receive(named name: String, matching matches: @escaping (any Action) -> Bool,
                         _ update: ((inout State) -> Void)?, _ where_: Place) async throws -> Received<State> {
        while true {
            var step = ReceiveStep.wait
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                step = log.withLock { log -> ReceiveStep in
                    var index = log.asserted
                    while index < log.received.count {
                        let candidate = log.received[index]
                        if matches(candidate.action) {
                            log.asserted = index + 1
                            return .found(candidate)
                        }
                        if log.exhaustivity == .on { return .mismatch(candidate.action) }
                        index += 1
                    }
                    if log.inFlight == 0 { return .idle }
                    log.waiters.append(continuation)
                    return .wait
                }
                if case .wait = step { return }
                continuation.resume()
            }
            switch step {
            case .found(let received):
                try check(received, update, name: name, where_)
                return received
            case .mismatch(let other):
                throw TestStoreFailure(where_, "expected to receive \(name), but received \(other) first")
            case .idle:
                try throwRecordedFailures(where_)
                throw TestStoreFailure(where_, """
                    expected to receive \(name), but every run and task has finished and it never reached the reducer
                    """)
            case .wait:
                continue
            }
        }
    }

    private enum ReceiveStep {
        case found(Received<State>)
        case mismatch(any Action)
        case idle
        case wait
    }

    // MARK: Async work

    /// Starts an async action in the store, tracked so that `receive` and `finish` know when it is done.
    @discardableResult
    public func dispatch<A: AsyncAction>(_ action: A) -> ActionTask<A.Response> where A.State == State {
        let task = store.dispatch(action)
        track { _ = try? await task.value }
        return task
    }

    /// Starts a graph in the store, tracked so that `receive` and `finish` know when it is done.
    @discardableResult
    public func dispatch(_ graph: ActionGraph<State>) -> GraphRun<State> {
        let run = store.dispatch(graph)
        track { _ = await run.wait() }
        return run
    }

    private func track(_ work: @escaping @Sendable () async -> Void) {
        log.withLock { $0.inFlight += 1 }
        Task {
            await work()
            let waiters = log.withLock { log in
                log.inFlight -= 1
                return log.takeWaiters()
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: Graph facts

    /// Asserts that the first `later` action reached the reducer after the first of each `earlier` one.
    public func assertReached(_ later: any Action.Type, after earlier: any Action.Type...,
                              fileID: StaticString = #fileID, line: UInt = #line) throws {
        let where_ = Place(fileID: fileID, line: line)
        let actions = log.withLock { $0.received.map(\.action) }
        func position(of type: any Action.Type) -> Int? { actions.firstIndex { Swift.type(of: $0) == type } }
        guard let laterIndex = position(of: later) else {
            throw TestStoreFailure(where_, "\(later) never reached the reducer (received: \(Self.names(actions)))")
        }
        for type in earlier {
            guard let index = position(of: type) else {
                throw TestStoreFailure(where_, "\(type) never reached the reducer (received: \(Self.names(actions)))")
            }
            if index > laterIndex {
                throw TestStoreFailure(where_, "\(later) reached the reducer before \(type) (received: \(Self.names(actions)))")
            }
        }
    }

    /// Waits for `node` and asserts it was skipped because `cause`, one of its prerequisites direct or
    /// not, did not succeed.
    public func assertSkipped<R, C>(_ node: Node<R>, in run: GraphRun<State>, because cause: Node<C>,
                                    fileID: StaticString = #fileID, line: UInt = #line) async throws {
        let where_ = Place(fileID: fileID, line: line)
        let outcome = await run.outcome(of: node).kind
        guard outcome == .skipped else {
            throw TestStoreFailure(where_, "\(run.graph.label(of: node.index)) (\(node)) was \(outcome.rawValue), not skipped")
        }
        let causeOutcome = await run.outcome(of: cause).kind
        guard causeOutcome != .succeeded else {
            throw TestStoreFailure(where_, "\(run.graph.label(of: cause.index)) (\(cause)) succeeded, so it cannot be why \(node) was skipped")
        }
        guard run.graph.dependsOn(node.index, cause.index) else {
            throw TestStoreFailure(where_, "\(node) does not depend on \(cause), so it cannot have been skipped because of it")
        }
    }

    /// Waits until every run and task started through this test store has finished, then asserts that
    /// nothing is left: no held call unanswered, no async action without a stub, and (exhaustive mode)
    /// no action that reached the reducer unasserted.
    ///
    /// Answer held calls and advance the clock past pending timers first: `finish` waits for the work
    /// itself, so work that waits on them would never finish.
    public func finish(fileID: StaticString = #fileID, line: UInt = #line) async throws {
        let where_ = Place(fileID: fileID, line: line)
        let held = stubs.unansweredHeldCalls()
        if !held.isEmpty {
            throw TestStoreFailure(where_, "calls still wait for an answer: \(held.joined(separator: ", ")); respond to them or cancel the run")
        }
        while true {
            var done = false
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                done = log.withLock { log -> Bool in
                    if log.inFlight == 0 { return true }
                    log.waiters.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
            if done { break }
        }
        try throwRecordedFailures(where_)
        let pending = log.withLock { log in log.exhaustivity == .on ? log.unasserted.map(\.action) : [] }
        if !pending.isEmpty {
            throw TestStoreFailure(where_, "\(pending.count) action(s) reached the reducer but were not asserted: \(Self.names(pending))")
        }
    }

    // MARK: Checks

    private func check(_ received: Received<State>, _ update: ((inout State) -> Void)?, name: String,
                       _ where_: Place) throws {
        var expected = received.before
        update?(&expected)
        guard expected != received.after else { return }
        let diff = StateDiff.lines(expected: expected, actual: received.after)
        let header = update == nil
            ? "\(name) changed the state, but no change was expected:"
            : "state after \(name) differs from the expected state:"
        throw TestStoreFailure(where_, ([header] + diff.map { "  " + $0 }).joined(separator: "\n"))
    }

    private func throwRecordedFailures(_ where_: Place) throws {
        let failures = stubs.failures()
        if !failures.isEmpty {
            throw TestStoreFailure(where_, failures.joined(separator: "\n"))
        }
    }

    private static func names(_ actions: [any Action]) -> String {
        actions.isEmpty ? "nothing" : actions.map { "\(type(of: $0))" }.joined(separator: ", ")
    }
}

/// Whether a ``TestStore`` requires every received action to be asserted.
public enum Exhaustivity: Sendable, Equatable {
    /// Every action that reaches the reducer must be asserted, in order (the default).
    case on
    /// `receive` skips actions it was not asked for; `finish` does not list unasserted ones.
    case off
}

/// A failed ``TestStore`` assertion: where it was made and what differed.
public struct TestStoreFailure: Error, Sendable, CustomStringConvertible {
    /// `File.swift:42`: the assertion that failed.
    public let location: String
    /// What was expected and what happened, with a state diff where one applies.
    public let message: String

    init(_ place: Place, _ message: String) {
        self.location = "\(place.fileID):\(place.line)"
        self.message = message
    }

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
}

struct Place {
    let fileID: StaticString
    let line: UInt
}

/// One action that reached the reducer, with the state before and after it.
struct Received<State: Sendable>: Sendable {
    let action: any Action
    let before: State
    let after: State
}

/// What the test store recorded, under its lock.
struct ReducerLog<State: Sendable> {
    var exhaustivity: Exhaustivity
    var received: [Received<State>] = []
    /// Actions before this index have been asserted (or skipped).
    var asserted = 0
    var inFlight = 0
    var waiters: [CheckedContinuation<Void, Never>] = []

    init(exhaustivity: Exhaustivity) {
        self.exhaustivity = exhaustivity
    }

    var unasserted: ArraySlice<Received<State>> { received[asserted...] }

    mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters.removeAll() }
        return waiters
    }
}

/// The stubs of a test store, by action type: the store's interceptor.
final class StubTable: AsyncActionInterceptor, Sendable {
    private struct Stub {
        let matches: (@Sendable (Any) -> Bool)?
        let respond: @Sendable (Any) async throws -> Any
        let held: (@Sendable () -> Int)?
        let name: String
    }

    private struct Table {
        var stubs: [ObjectIdentifier: [Stub]] = [:]
        var calls: [ObjectIdentifier: [Any]] = [:]
        var failures: [String] = []
    }

    private let table = LockedValue(Table())

    func set<A: AsyncAction>(for type: A.Type, matching: (@Sendable (Any) -> Bool)? = nil,
                             held: HeldCalls<A>? = nil,
                             _ respond: @escaping @Sendable (Any) async throws -> A.Response) {
        var waitingCount: (@Sendable () -> Int)?
        if let held { waitingCount = { held.waitingCount } }
        let stub = Stub(matches: matching, respond: { action in try await respond(action) },
                        held: waitingCount, name: "\(A.self)")
        table.withLock { table in
            var stubs = table.stubs[ObjectIdentifier(A.self)] ?? []
            if matching == nil { stubs.removeAll { $0.matches == nil } }
            stubs.insert(stub, at: matching == nil ? stubs.endIndex : 0)
            table.stubs[ObjectIdentifier(A.self)] = stubs
        }
    }

    func perform<A: AsyncAction>(_ action: A, context: ActionContext<A.State>) async throws -> A.Response {
        let stub = table.withLock { table -> Stub? in
            table.calls[ObjectIdentifier(A.self), default: []].append(action)
            let stub = table.stubs[ObjectIdentifier(A.self)]?.first { $0.matches?(action) ?? true }
            if stub == nil {
                table.failures.append("\(A.self) was run but has no stub: add store.stub(\(A.self).self, ...) or store.hold(\(A.self).self)")
            }
            return stub
        }
        guard let stub else {
            throw MissingStub(action: "\(A.self)")
        }
        return try await stub.respond(action) as! A.Response
    }

    func calls<A>(of type: A.Type) -> [Any] {
        table.withLock { $0.calls[ObjectIdentifier(A.self)] ?? [] }
    }

    func failures() -> [String] {
        table.withLock { $0.failures }
    }

    func unansweredHeldCalls() -> [String] {
        table.withLock { table in
            table.stubs.values.flatMap { $0 }.compactMap { stub in
                guard let waiting = stub.held?(), waiting > 0 else { return nil }
                return "\(waiting) x \(stub.name)"
            }
        }
    }
}

/// What an async action without a stub throws in a ``TestStore``; `finish` reports it too.
struct MissingStub: Error, CustomStringConvertible {
    let action: String
    var description: String { "\(action) has no stub" }
}

extension ActionGraph {
    /// Whether `node` waits, directly or not, on `ancestor`.
    func dependsOn(_ node: Int, _ ancestor: Int) -> Bool {
        var stack = [node]
        var seen = Set<Int>()
        while let current = stack.popLast() {
            for prerequisite in prerequisites(of: current) {
                let prerequisite = Int(prerequisite)
                if prerequisite == ancestor { return true }
                if seen.insert(prerequisite).inserted { stack.append(prerequisite) }
            }
        }
        return false
    }
}
