/// A declared set of actions and the actions each one waits for.
///
/// Build a graph by adding nodes: `send` adds a sync action (it goes to the reducer), `run` adds an
/// async action (it produces a typed response). Each node may name prerequisites, nodes added before
/// it; it starts only once all of them succeeded. A node built with typed prerequisites and a `make`
/// closure receives their responses, with their types:
///
/// ```swift
/// var graph = ActionGraph<AppState>()
/// let token   = graph.run(LogIn(user: "ada", password: "secret"))
/// let profile = graph.run(after: token) { token in FetchProfile(token: token) }
/// let feed    = graph.run(after: token) { token in FetchFeed(token: token) }
/// graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
/// let run = store.dispatch(graph)
/// ```
///
/// Because prerequisites must already exist, no graph can contain a cycle. A node of another graph
/// used here is recorded in ``problems`` and makes the node that used it fail when the graph runs,
/// with ``GraphError/foreignNode(index:)``; its dependents are skipped, other branches run.
///
/// A graph is a value: build it once and dispatch it as often as needed; each dispatch is a new
/// ``GraphRun``. Copies share the nodes added before the copy was made.
public struct ActionGraph<State: Sendable>: Sendable {
    /// Everything the graph holds.
    var storage = GraphStorage()

    /// Every bad input seen while building, in order.
    public var problems: [GraphError] { storage.problems }

    var settings: [Int: NodeSettings] { storage.settings }
    var nodeProblems: [Int: GraphError] { storage.nodeProblems }

    /// Creates an empty graph.
    public init() {}

    /// The graph whose nodes `storage` holds.
    init(storage: GraphStorage) {
        self.storage = storage
    }

    /// The number of nodes.
    public var count: Int { storage.count }

    /// Makes room for `nodes` nodes and `prerequisites` prerequisites in all (counting each node's
    /// prerequisites), so that building a large graph up to that size allocates its storage once
    /// instead of growing it step by step.
    ///
    /// Call it once, before adding the nodes: like `Array.reserveCapacity`, it grows the storage
    /// to exactly what is asked, so calling it again and again with growing counts costs more than
    /// it saves. Room for nodes that are never added stays allocated until the graph is released.
    /// A count of zero or less reserves nothing.
    public mutating func reserveCapacity(nodes: Int, prerequisites: Int = 0) {
        storage.reserveCapacity(nodes: nodes, prerequisites: prerequisites)
    }

    /// Whether `node` was made by this graph (or by the graph it was copied from, before the copy).
    public func owns<R>(_ node: Node<R>) -> Bool {
        storage.owns(graph: node.graph, index: node.index)
    }

    // MARK: Sync nodes

    /// Adds a sync action that reaches the reducer once all `prerequisites` succeeded.
    /// - Returns: the node; its response is `Void`.
    @discardableResult
    public mutating func send(_ action: some Action, after prerequisites: any GraphNode...) -> Node<Void> {
        send(action, after: prerequisites)
    }

    /// Adds a sync action that reaches the reducer once all `prerequisites` succeeded; the array form,
    /// for graphs built in a loop.
    @discardableResult
    public mutating func send(_ action: some Action, after prerequisites: [any GraphNode]) -> Node<Void> {
        addNode(.action(action), isSync: true, after: prerequisites)
    }

    /// Adds a sync action built from the responses of `prerequisites` once they all succeeded.
    ///
    /// ```swift
    /// graph.send(after: user, posts) { user, posts in SetHome(user: user, posts: posts) }
    /// ```
    /// - Parameters:
    ///   - prerequisites: the nodes whose responses `make` receives; all must succeed first.
    ///   - make: receives the prerequisites' responses, in order and typed; called once.
    @discardableResult
    public mutating func send<each R, A: Action>(
        after prerequisites: repeat Node<each R>,
        make: @escaping @Sendable (repeat each R) -> A
    ) -> Node<Void> {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        return endNode(
            .makeAction(
                { inputs, _ in
                    var position = 0
                    return make(repeat inputs.next((each R).self, &position))
                }, ActionType(A.self)),
            isSync: true)
    }

    /// Adds a sync action built, when the node starts, from the store's state at that moment and the
    /// responses of `prerequisites`, so that it reads the state as it is then, not as it was when
    /// the graph was built.
    ///
    /// ```swift
    /// graph.send(after: page) { state, page in AppendPage(page, replacing: state.feed.isEmpty) }
    /// ```
    /// - Parameters:
    ///   - prerequisites: the nodes whose responses `make` receives; all must succeed first. None
    ///     for a root node, which reads the state when the run starts it.
    ///   - make: receives the state as it is right before the action is applied (after the
    ///     actions applied before it), then the prerequisites' responses, in order and typed;
    ///     called once. Like every `make` closure it must be pure: a dispatch from it is dropped.
    @discardableResult
    public mutating func send<each R, A: Action>(
        after prerequisites: repeat Node<each R>,
        makeFromState make: @escaping @Sendable (State, repeat each R) -> A
    ) -> Node<Void> {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        return endNode(
            .makeAction(
                { inputs, run in
                    var position = 0
                    return make(Self.run(run).backend.currentState, repeat inputs.next((each R).self, &position))
                },
                ActionType(A.self)),
            isSync: true)
    }

    // MARK: Async nodes

    /// Adds an async action that runs once all `prerequisites` succeeded.
    /// - Returns: the node; its response is the action's `Response`.
    @discardableResult
    public mutating func run<A: AsyncAction>(_ action: A, after prerequisites: any GraphNode...) -> Node<A.Response>
    where A.State == State {
        run(action, after: prerequisites)
    }

    /// Adds an async action that runs once all `prerequisites` succeeded; the array form, for graphs
    /// built in a loop.
    @discardableResult
    public mutating func run<A: AsyncAction>(_ action: A, after prerequisites: [any GraphNode]) -> Node<A.Response>
    where A.State == State {
        addNode(.async(.action(action, KeyedActionCheck(A.self))), after: prerequisites)
    }

    /// Adds an async action built from the responses of `prerequisites` once they all succeeded.
    ///
    /// ```swift
    /// let profile = graph.run(after: token) { token in FetchProfile(token: token) }
    /// ```
    /// - Parameters:
    ///   - prerequisites: the nodes whose responses `make` receives; all must succeed first.
    ///   - make: receives the prerequisites' responses, in order and typed; called once, even
    ///     when the node is retried (every attempt runs the same action).
    @discardableResult
    public mutating func run<each R, A: AsyncAction>(
        after prerequisites: repeat Node<each R>,
        make: @escaping @Sendable (repeat each R) -> A
    )
        -> Node<A.Response> where A.State == State
    {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        let keyedCheck = KeyedActionCheck(A.self)
        return endNode(
            .async(
                .make(
                    { start in
                        await Self.attempts(start, keyedCheck) { inputs, _ in
                            var position = 0
                            return make(repeat inputs.next((each R).self, &position))
                        }
                    }, ActionType(A.self))))
    }

    /// Adds an async action built, when the node starts, from the store's state at that moment and
    /// the responses of `prerequisites`: "load the next page" reads the page count the state has
    /// when the request leaves, not when the graph was built.
    ///
    /// ```swift
    /// let page = graph.run(after: token) { state, token in FetchPage(token: token, number: state.pages + 1) }
    /// ```
    /// - Parameters:
    ///   - prerequisites: the nodes whose responses `make` receives; all must succeed first. None
    ///     for a root node, which reads the state when the run starts it.
    ///   - make: receives the state when the node starts, then the prerequisites' responses, in
    ///     order and typed; called once, even when the node is retried (every attempt runs the same
    ///     action). It must be pure: a dispatch from it is dropped.
    @discardableResult
    public mutating func run<each R, A: AsyncAction>(
        after prerequisites: repeat Node<each R>,
        makeFromState make: @escaping @Sendable (State, repeat each R) -> A
    )
        -> Node<A.Response> where A.State == State
    {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        let keyedCheck = KeyedActionCheck(A.self)
        return endNode(
            .async(
                .make(
                    { start in
                        await Self.attempts(start, keyedCheck) { inputs, backend in
                            var position = 0
                            return make(backend.currentState, repeat inputs.next((each R).self, &position))
                        }
                    }, ActionType(A.self))))
    }

    // MARK: Delays and joins

    /// Adds a node that waits `duration` on the store's clock once all `prerequisites` succeeded, so
    /// that "poll again in 5 s" is a node, not a timer kept by hand.
    @discardableResult
    public mutating func delay(_ duration: Duration, after prerequisites: any GraphNode...) -> Node<Void> {
        delay(duration, after: prerequisites)
    }

    /// Adds a node that waits `duration` on the store's clock; the array form.
    @discardableResult
    public mutating func delay(_ duration: Duration, after prerequisites: [any GraphNode]) -> Node<Void> {
        addNode(.delay(duration), after: prerequisites)
    }

    /// Adds a node that waits for an async action the store is already running and answers its
    /// response (or fails with its error), without starting it again.
    ///
    /// Cancelling the run stops the wait but not the joined work, which belongs to whoever started it.
    @discardableResult
    public mutating func join<R>(_ task: ActionTask<R>) -> Node<R> {
        _ = beginNode()
        return endNode(.join({ _ in wrapResponse(try await task.value) }, ActionType(R.self)))
    }

    /// Adds a node that waits for `node` of another run of the same store and answers its response.
    ///
    /// If that node fails, this one fails with the same error; if it is skipped or cancelled, this one
    /// fails with ``GraphError/joinedNodeDidNotSucceed(_:)``. A run of another store makes this node
    /// fail with ``GraphError/joinedRunOfAnotherStore``.
    @discardableResult
    public mutating func join<R>(_ node: Node<R>, of run: GraphRun<State>) -> Node<R> {
        _ = beginNode()
        return endNode(
            .join(
                { host in
                    guard run.core === host else { throw GraphError.joinedRunOfAnotherStore }
                    switch await run.outcome(of: node) {
                    case .succeeded(let value): return wrapResponse(value)
                    case .failed(let error): throw error
                    case .skipped: throw GraphError.joinedNodeDidNotSucceed(.skipped)
                    case .cancelled: throw GraphError.joinedNodeDidNotSucceed(.cancelled)
                    }
                }, ActionType(R.self)))
    }

    // MARK: Node settings

    /// Fails an attempt of an async, delay or join node that runs longer than `timeout` on the store's
    /// clock; the attempt is cancelled and counts as failed (``GraphError/timedOut(after:)``), so a
    /// retry policy may try again. Ignored for sync nodes, which never wait.
    public mutating func setTimeout<R>(_ timeout: Duration, for node: Node<R>) {
        updateSettings(of: node) { $0.timeout = timeout }
    }

    /// Retries a failed attempt of an async node according to `policy`.
    public mutating func setRetry<R>(_ policy: RetryPolicy, for node: Node<R>) {
        updateSettings(of: node) { $0.retry = policy }
    }

    /// Sends a sync action built from the error when `node` fails (after its last attempt), so the app
    /// can show "could not load". It is applied like a sync node, before the run finishes; it is not
    /// sent when the node is skipped or cancelled, nor after the run is cancelled.
    public mutating func setFallback<R, A: Action>(
        for node: Node<R>,
        _ make: @escaping @Sendable (any Error) -> A
    ) {
        updateSettings(of: node) { $0.fallback = { error in make(error) } }
    }

    /// Sends `action` when a run of this graph is cancelled, so that undoing what the run started
    /// ("stop the spinner") is declared with the graph instead of remembered by every caller of
    /// ``GraphRun/cancel()``. Setting it again replaces it.
    ///
    /// The action goes through the store's pipeline (middleware, reducer, subscribers) exactly once,
    /// after any sync node being applied at the moment of the cancel, and before ``GraphRun/wait()``
    /// returns; it is the last action of the run to reach the reducer. It is sent only when the
    /// cancel ends part of a run that has started (a node that had not ended, or a fallback not yet
    /// applied): not when the run finished first, not when all that was left was the sync node being
    /// applied at that moment (it completes, and the run finishes as it would have), not for a run
    /// refused before it started (dispatched from a reducer, or after its store was released), and
    /// not when releasing the store cancels the run.
    ///
    /// A ``WorkOwner``'s end is a cancel when nothing of the run outlives it. When part of the run
    /// outlives it (``OwnerEndPolicy``) and the end cancelled a node, the action is sent once that
    /// part ended (and after its fallbacks), as the run's last action: the screen's own sync nodes
    /// were dropped, and what the run started is still undone. An owner's end that cancelled no
    /// node, or that came before the run started, sends nothing.
    /// - Parameter action: a sync action; built once, with the graph.
    public mutating func setCancelAction(_ action: some Action) {
        storage.hooks = GraphHooks(cancelAction: action)
    }

    /// Names `node` in reports and pictures (by default, its action type's name).
    public mutating func setLabel<R>(_ label: String, for node: Node<R>) {
        updateSettings(of: node) { $0.label = label }
    }

    // MARK: Building

    mutating func updateSettings<R>(of node: Node<R>, _ update: (inout NodeSettings) -> Void) {
        storage.updateSettings(graph: node.graph, index: node.index, update)
    }

    /// Adds a node; `isSync` says what `body` is (see `GraphStorage.endNode(_:isSync:)`).
    private mutating func addNode<R>(
        _ body: consuming NodeBody, isSync: Bool = false, after prerequisites: [any GraphNode]
    ) -> Node<R> {
        let index = storage.addNode(body, isSync: isSync, after: prerequisites)
        return Node(graph: storage.lineageID, index: index)  // the lineage adding may have started
    }

    private mutating func beginNode() -> Int {
        storage.beginNode()
    }

    private mutating func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
        storage.addPrerequisite(graph: graph, index: prerequisite, to: index)
    }

    private mutating func endNode<R>(_ body: consuming NodeBody, isSync: Bool = false) -> Node<R> {
        Node(graph: storage.lineageID, index: storage.endNode(body, isSync: isSync))
    }

    /// The run, from what it hands a node's body. (A cast to the run's class is a cheap check; a
    /// cast to `any StoreBackend<State>` would look up a conformance on every node.)
    static func run(_ run: AnyObject) -> GraphRun<State> {
        guard let run = run as? GraphRun<State> else {
            preconditionFailure("OresRedux: a graph of \(State.self) ran in a run of another state type")
        }
        return run
    }

    /// The attempts of an async node whose action `make` builds from the node's inputs and the
    /// store or scope the graph was dispatched to: once, when the node starts (however many
    /// attempts follow), as a pure call (it is user code), and never for a node cancelled before
    /// its task ran it (its end, a `CancellationError`, is ignored by the run).
    @inline(__always)  // into the node's body: one async frame fewer between the task's loop and `run`
    private static func attempts<A: AsyncAction>(
        _ start: AsyncNodeStart, _ keyedCheck: KeyedActionCheck, of make: (NodeInputs, any StoreBackend<State>) -> A
    ) async -> Result<ResponseSlot, any Error> where A.State == State {
        let run = run(start.run)
        guard run.mayRun(start.node) else { return .failure(CancellationError()) }
        return await run.attempts(of: action(of: start.node, in: run, make), start, keyedCheck)
    }

    /// The action `make` builds for `node` of `run`, as a pure call. A sync function, never inlined:
    /// what building it takes stays on the thread's stack, not in the frame the node's task keeps
    /// while the action runs.
    @inline(never)
    private static func action<A: AsyncAction>(
        of node: Int, in run: GraphRun<State>, _ make: (NodeInputs, any StoreBackend<State>) -> A
    ) -> A {
        PureCall.run(.makeClosure) { make(run.inputs(of: node), run.backend) }
    }

    /// The prerequisites of node `index`.
    package func prerequisites(of index: Int) -> ArraySlice<Int> {
        storage.prerequisites(of: index)
    }

    /// A node's name for people: its label, or its action type's name.
    package func label(of index: Int) -> String {
        storage.label(of: index)
    }
}

/// Per-node settings, stored only for the nodes that have some.
struct NodeSettings: Sendable {
    var timeout: Duration?
    var retry: RetryPolicy?
    var fallback: (@Sendable (any Error) -> any Action)?
    var label: String?
    /// How a durable run journals the node (``ActionGraph/setDurable(_:inDoubt:)``); `nil` for most.
    var durable: DurableNode?
    /// What the node does when the owner its run was dispatched under ends (``OwnerEndPolicy``).
    var ownerEnd: OwnerEndPolicy?
}

/// An action type, kept to name a node without building a string per node.
// Why this is safe to share: a metatype is an immutable, process-wide value.
struct ActionType: @unchecked Sendable {
    let type: Any.Type

    init(_ type: Any.Type) {
        self.type = type
    }

    var name: String { String(describing: type) }
}

/// What kind of work a node does, as reports show it.
public enum NodeKind: String, Sendable, Equatable {
    /// A sync action applied to the state.
    case sync
    /// An async action run on a task.
    case async
    /// A wait on the store's clock.
    case delay
    /// A wait on work already running (an ``ActionTask`` or another run's node).
    case join
}
