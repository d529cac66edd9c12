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
    /// What each node does, by index.
    var bodies: [NodeBody] = []
    /// Compressed prerequisite lists: node `i`'s are `prerequisites[prerequisiteEnds[i - 1] ..< prerequisiteEnds[i]]`.
    var prerequisiteEnds: [Int32] = []
    var prerequisites: [Int32] = []
    /// Timeouts, retries, fallbacks and labels, for the few nodes that have them.
    var settings: [Int: NodeSettings] = [:]
    /// Nodes that cannot run because they were given bad input, and why.
    var nodeProblems: [Int: GraphError] = [:]
    /// Every bad input seen while building, in order.
    public private(set) var problems: [GraphError] = []

    /// Copies made before a mutation share `identity`; the first copy to mutate afterwards takes a
    /// new lineage, so a node added to one copy is never taken for a node of the other.
    private var identity = GraphIdentity()
    /// `Node<R>` types seen as `any GraphNode` prerequisites (see `identity(of:)`).
    private var nodeTypes: [ObjectIdentifier] = []
    private var lineage: [(id: UInt64, end: Int)] = [(GraphIdentifiers.next(), Int.max)]

    /// Creates an empty graph.
    public init() {}

    /// The number of nodes.
    public var count: Int { bodies.count }

    /// Whether `node` was made by this graph (or by the graph it was copied from, before the copy).
    public func owns<R>(_ node: Node<R>) -> Bool {
        owns(graph: node.graph, index: node.index)
    }

    func owns(graph: UInt64, index: Int) -> Bool {
        guard index >= 0, index < bodies.count else { return false }
        if graph == lineage[lineage.count - 1].id { return true }
        return lineage.contains { $0.id == graph && index < $0.end }
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
        addNode(.action(action), erasedPrerequisites: prerequisites)
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
    public mutating func send<each R, A: Action>(after prerequisites: repeat Node<each R>,
                                                 make: @escaping @Sendable (repeat each R) -> A) -> Node<Void> {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        let nodes = (repeat each prerequisites)
        return endNode(.makeAction({ inputs in make(repeat inputs.value(each nodes)) }, ActionType(A.self)))
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
        addNode(.async({ _, core in AsyncNodeWork(action, core: core as! StoreCore<State>) }, ActionType(A.self)),
                erasedPrerequisites: prerequisites)
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
    public mutating func run<each R, A: AsyncAction>(after prerequisites: repeat Node<each R>,
                                                     make: @escaping @Sendable (repeat each R) -> A)
    -> Node<A.Response> where A.State == State {
        let index = beginNode()
        for node in repeat each prerequisites { addPrerequisite(graph: node.graph, index: node.index, to: index) }
        let nodes = (repeat each prerequisites)
        return endNode(.async({ inputs, core in
            AsyncNodeWork(make(repeat inputs.value(each nodes)), core: core as! StoreCore<State>)
        }, ActionType(A.self)))
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
        addNode(.delay(duration), erasedPrerequisites: prerequisites)
    }

    /// Adds a node that waits for an async action the store is already running and answers its
    /// response (or fails with its error), without starting it again.
    ///
    /// Cancelling the run stops the wait but not the joined work, which belongs to whoever started it.
    @discardableResult
    public mutating func join<R>(_ task: ActionTask<R>) -> Node<R> {
        _ = beginNode()
        return endNode(.join({ _ in ResponseBox<R>.wrap(try await task.value) }, ActionType(R.self)))
    }

    /// Adds a node that waits for `node` of another run of the same store and answers its response.
    ///
    /// If that node fails, this one fails with the same error; if it is skipped or cancelled, this one
    /// fails with ``GraphError/joinedNodeDidNotSucceed(_:)``. A run of another store makes this node
    /// fail with ``GraphError/joinedRunOfAnotherStore``.
    @discardableResult
    public mutating func join<R>(_ node: Node<R>, of run: GraphRun<State>) -> Node<R> {
        _ = beginNode()
        return endNode(.join({ core in
            guard run.core === core as AnyObject else { throw GraphError.joinedRunOfAnotherStore }
            switch await run.outcome(of: node) {
            case .succeeded(let value): return ResponseBox<R>.wrap(value)
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
    public mutating func setFallback<R, A: Action>(for node: Node<R>,
                                                   _ make: @escaping @Sendable (any Error) -> A) {
        updateSettings(of: node) { $0.fallback = { error in make(error) } }
    }

    /// Names `node` in reports and pictures (by default, its action type's name).
    public mutating func setLabel<R>(_ label: String, for node: Node<R>) {
        updateSettings(of: node) { $0.label = label }
    }

    // MARK: Building

    private mutating func updateSettings<R>(of node: Node<R>, _ update: (inout NodeSettings) -> Void) {
        guard owns(node) else {
            problems.append(.foreignNode(index: node.index))
            return
        }
        update(&settings[node.index, default: NodeSettings()])
    }

    private mutating func addNode<R>(_ body: NodeBody, erasedPrerequisites: [any GraphNode]) -> Node<R> {
        let index = beginNode()
        for prerequisite in erasedPrerequisites {
            let (graph, node) = identity(of: prerequisite)
            addPrerequisite(graph: graph, index: node, to: index)
        }
        return endNode(body)
    }

    /// A prerequisite's graph and index, read through `any GraphNode`.
    ///
    /// The protocol-conformance lookup that recognises a `Node<R>` costs ~500 instructions, so the
    /// graph remembers the few `Node<R>` types it has seen and reads their fields directly after that.
    private mutating func identity(of prerequisite: any GraphNode) -> (graph: UInt64, index: Int) {
        let type = ObjectIdentifier(Swift.type(of: prerequisite))
        if nodeTypes.contains(type) { return Self.fields(of: prerequisite) }
        guard let reference = prerequisite as? any NodeReference else {
            return (0, -1)     // not a node of any graph: an outside type conforming to GraphNode
        }
        nodeTypes.append(type)
        return (reference.graph, reference.index)
    }

    /// Reads a value known to be a `Node<R>`: every `Node<R>` has `Node<Void>`'s layout, as `R`
    /// appears in no stored property.
    private static func fields<N: GraphNode>(of node: N) -> (graph: UInt64, index: Int) {
        let node = unsafeBitCast(node, to: Node<Void>.self)
        return (node.graph, node.index)
    }

    /// Starts a node: takes a new lineage if this graph shares nodes with a copy, returns the new index.
    private mutating func beginNode() -> Int {
        if !isKnownUniquelyReferenced(&identity) {
            identity = GraphIdentity()
            lineage[lineage.count - 1].end = bodies.count
            lineage.append((GraphIdentifiers.next(), Int.max))
        }
        return bodies.count
    }

    private mutating func addPrerequisite(graph: UInt64, index prerequisite: Int, to index: Int) {
        if owns(graph: graph, index: prerequisite) {
            prerequisites.append(Int32(prerequisite))
        } else if nodeProblems[index] == nil {
            let problem = GraphError.foreignNode(index: prerequisite)
            nodeProblems[index] = problem
            problems.append(problem)
        }
    }

    private mutating func endNode<R>(_ body: NodeBody) -> Node<R> {
        let index = bodies.count
        bodies.append(body)
        prerequisiteEnds.append(Int32(prerequisites.count))
        return Node(graph: lineage[lineage.count - 1].id, index: index)
    }

    /// The prerequisites of node `index`.
    func prerequisites(of index: Int) -> ArraySlice<Int32> {
        let start = index == 0 ? 0 : Int(prerequisiteEnds[index - 1])
        return prerequisites[start..<Int(prerequisiteEnds[index])]
    }

    /// A node's name for people: its label, or its action type's name.
    func label(of index: Int) -> String {
        if let label = settings[index]?.label { return label }
        return bodies[index].defaultLabel
    }
}

/// Shared by copies of a graph until one of them adds a node.
private final class GraphIdentity: Sendable {}

/// Per-node settings, stored only for the nodes that have some.
struct NodeSettings: Sendable {
    var timeout: Duration?
    var retry: RetryPolicy?
    var fallback: (@Sendable (any Error) -> any Action)?
    var label: String?
}

/// An action type, kept to name a node without building a string per node.
struct ActionType: @unchecked Sendable {
    // @unchecked: a metatype is an immutable, process-wide value.
    let type: Any.Type

    init(_ type: Any.Type) {
        self.type = type
    }

    var name: String { String(describing: type) }
}

/// What a node does when it starts. Not generic over the state (the store's core is passed as
/// `AnyObject` and cast back inside the closure that knows its type), so an executor reading a body
/// per node needs no generic metadata.
enum NodeBody: Sendable {
    /// A sync action known when the graph was built.
    case action(any Action)
    /// A sync action built from the prerequisites' responses.
    case makeAction(@Sendable (NodeInputs) -> any Action, ActionType)
    /// An async action, built from the prerequisites' responses when the node starts.
    case async(@Sendable (NodeInputs, any AnyStoreCore) -> AsyncNodeWork, ActionType)
    /// A wait on the store's clock.
    case delay(Duration)
    /// A wait on work that is already running.
    case join(@Sendable (any AnyStoreCore) async throws -> ResponseSlot, ActionType)

    var isSync: Bool {
        switch self {
        case .action, .makeAction: true
        case .async, .delay, .join: false
        }
    }

    var kind: NodeKind {
        switch self {
        case .action, .makeAction: .sync
        case .async: .async
        case .delay: .delay
        case .join: .join
        }
    }

    var defaultLabel: String {
        switch self {
        case .action(let action): String(describing: type(of: action))
        case .makeAction(_, let type), .async(_, let type): type.name
        case .delay(let duration): "delay \(duration)"
        case .join(_, let type): "join \(type.name)"
        }
    }
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

/// A store's core with its state type erased, as graph nodes receive it.
typealias AnyStoreCore = AnyObject & Sendable
