/// Something that happened to a store's async work: an async action started or finished, a graph
/// run started, one of its nodes started or ended, or the run finished. What a logger, analytics or a debugging
/// tool needs to tell the whole story, which middleware alone cannot (it sees only sync actions).
///
/// Observe events with `Store.observeEvents(_:)`, or from the first dispatch on with
/// ``StoreOptions/onEvent``. ``StoreEvent/logger(_:)`` writes one line per event.
///
/// ```swift
/// let subscription = store.observeEvents { event in
///     if case .nodeFinished(let run, let node) = event, case .failed(let error) = node.outcome {
///         print("run \(run.id): \(node.label) failed: \(error)")
///     }
/// }
/// ```
///
/// ## Order and threads
/// - **One at a time.** A store delivers its events one by one, to every observer in the order they
///   were added, and never calls observers for two events at once (not even from two threads).
///   Every observer sees the same sequence.
/// - **In the order they happened.** The sequence is the order in which the store recorded the
///   events. For one run: ``runStarted(_:)`` first; then, per node, one ``nodeStarted(_:_:)`` per
///   attempt (none for a node that never started) before its one ``nodeFinished(_:_:)``, nodes in
///   the order they started and ended, so a node's events come after the end of its prerequisites;
///   then ``runFinished(_:_:)`` last. For one async action: ``actionStarted(_:)`` before
///   ``actionFinished(_:_:)``. Events of different runs and actions interleave in the order they
///   were recorded: events made one after the other on one thread keep that order, events made at
///   the same moment on two threads come in either order.
/// - **Outside every lock.** Observers are called on whichever thread delivers the events (often
///   the one where the event happened), never while the store holds a lock and never from inside
///   its pipeline: an event that happens while a thread applies an action (a graph's sync node,
///   a subscriber that cancels a run) is delivered once that thread has applied its actions.
/// - **Before the waits return.** When a run was observed, ``GraphRun/wait()`` returns after its
///   `runFinished` was delivered, and ``GraphRun/outcome(of:)`` and ``GraphRun/value(of:)`` after
///   the node's `nodeFinished`; ``ActionTask/value`` returns after `actionFinished`. So a log read
///   after `await run.wait()` tells the run's whole story.
///
/// An observer may dispatch, cancel a run, subscribe or observe: what that causes is delivered after
/// the observer returns. It should return soon and must not block waiting for the store's work
/// (the waits above wait for it).
///
/// A run or async action is reported when the store had an observer when it was dispatched; each of
/// its events goes to the observers present when it is delivered. Once the store is released, no
/// more events are delivered. Async actions are reported when their `run` starts: a dispatch of a
/// ``KeyedAsyncAction`` that joins a call in flight reports nothing of its own. An async action run
/// as a graph node is reported as that node.
public enum StoreEvent: Sendable, CustomStringConvertible {
    /// An async action dispatched on its own (not as a graph node) started its `run`.
    case actionStarted(AsyncActionInfo)
    /// That async action ended: ``Outcome/succeeded(_:)`` with its response, ``Outcome/failed(_:)``
    /// with the error it threw, or ``Outcome/cancelled`` when it threw after its task was cancelled
    /// (``ActionTask/cancel()``, or the store's release). Never ``Outcome/skipped``.
    case actionFinished(AsyncActionInfo, Outcome<any Sendable>)
    /// A graph run started (or was refused: then every node ends cancelled right after).
    case runStarted(RunInfo)
    /// A node of the run started: an async, delay or join node's attempt is about to call its work
    /// (once per attempt, so a retried node reports each try), or the pipeline took a sync node to
    /// apply it (middleware, reducer, subscribers come next).
    case nodeStarted(RunInfo, NodeStartInfo)
    /// A node of the run ended. Its outcome carries the node's response (`()` for a sync, delay
    /// node) or its own error.
    case nodeFinished(RunInfo, NodeInfo)
    /// The run finished: every node is terminal, every fallback and the cancel action applied. The
    /// report is the one ``GraphRun/wait()`` returns.
    case runFinished(RunInfo, GraphReport)

    /// Tells one run or async action from another, within one store: runs and async actions share
    /// one sequence, numbered from 1 in the order they start (a run dispatched under an id with a
    /// debounce or throttle, once its wait is over). Only reported work takes a number: work
    /// dispatched while the store had no event observer has none.
    public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The number.
        public let rawValue: UInt64

        /// Creates an identifier from its number.
        public init(rawValue: UInt64) {
            self.rawValue = rawValue
        }

        /// Whether `lhs` was dispatched before `rhs`.
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `#` and the number, as in `run #3`.
        public var description: String { "#\(rawValue)" }
    }

    /// An async action dispatched on its own.
    public struct AsyncActionInfo: Sendable {
        /// Which dispatch this is.
        public let id: ID
        /// The action, as dispatched.
        public let action: any AsyncAction

        /// The action's type name, as reports name nodes.
        public var name: String { String(describing: type(of: action)) }
    }

    /// A graph run.
    public struct RunInfo: Sendable {
        /// Which run this is.
        public let id: ID
        /// How many nodes its graph has.
        public let nodeCount: Int
        /// The name of the ``WorkOwner`` the run was dispatched under ("Log-in screen"); `nil` for a
        /// run dispatched to the store itself.
        public let owner: String?
        /// The graph's shape and names, for tools of this module (the inspector draws the graph
        /// from it).
        let shape: GraphShape?

        init(id: ID, nodeCount: Int, shape: GraphShape? = nil, owner: String? = nil) {
            self.id = id
            self.nodeCount = nodeCount
            self.owner = owner
            self.shape = shape
        }
    }

    /// A node of a run that just started an attempt, or a sync node the pipeline just took.
    public struct NodeStartInfo: Sendable {
        /// The node's index in its graph (see ``Node/index``).
        public let index: Int
        /// Its label, or its action type's name: the name ``GraphReport`` shows.
        public let label: String
        /// What kind of work it does.
        public let kind: NodeKind
        /// Which attempt this is, from 1; always 1 for a sync node.
        public let attempt: Int
        /// When the attempt started, since the run started, on the store's clock (the times of
        /// ``GraphReport``).
        public let time: Duration
        /// The back-off the node waited before this attempt, by its retry policy: zero for the first.
        public let backoff: Duration
    }

    /// A node of a run that just ended.
    public struct NodeInfo: Sendable {
        /// The node's index in its graph (see ``Node/index``).
        public let index: Int
        /// Its label, or its action type's name: the name ``GraphReport`` shows.
        public let label: String
        /// What kind of work it does.
        public let kind: NodeKind
        /// How it ended: its response, its own error, skipped or cancelled.
        public let outcome: Outcome<any Sendable>
        /// It ended `.cancelled` because the ``WorkOwner`` its run was dispatched under ended.
        public var isCancelledByOwnerEnd = false
    }

    /// One line for a person, with line breaks and other control characters in names and errors
    /// shown escaped, so that one event is always one line:
    /// ```
    /// async #1 started: FetchAvatar(userID: 7)
    /// async #1 FetchAvatar succeeded
    /// run #2 started: 4 nodes
    /// run #2 node 1 FetchFeed started, attempt 1
    /// run #2 node 1 FetchFeed failed: Offline()
    /// run #2 node 3 ShowHome skipped
    /// run #2 finished: 4 nodes: 2 succeeded, 1 failed, 1 skipped, 0 cancelled in 1.2 ms
    /// run #3 node 2 FetchFeed cancelled because its owner ended
    /// ```
    /// A response is not written (it may be large or private); it is in the event.
    public var description: String {
        switch self {
        case .actionStarted(let info):
            return "async \(info.id) started: \(GraphReport.oneLine(String(describing: info.action)))"
        case .actionFinished(let info, let outcome):
            return "async \(info.id) \(GraphReport.oneLine(info.name)) \(Self.describe(outcome))"
        case .runStarted(let run):
            return "run \(run.id) started: \(run.nodeCount) nodes"
        case .nodeStarted(let run, let node):
            return
                "run \(run.id) node \(node.index) \(GraphReport.oneLine(node.label)) started, attempt \(node.attempt)"
        case .nodeFinished(let run, let node):
            let reason = node.isCancelledByOwnerEnd ? " because its owner ended" : ""
            return
                "run \(run.id) node \(node.index) \(GraphReport.oneLine(node.label)) \(Self.describe(node.outcome))\(reason)"
        case .runFinished(let run, let report):
            return "run \(run.id) finished: \(report.summary)"
        }
    }

    private static func describe(_ outcome: Outcome<any Sendable>) -> String {
        switch outcome {
        case .failed(let error): "failed: \(GraphReport.oneLine(String(describing: error)))"
        default: outcome.kind.rawValue
        }
    }
}

extension StoreEvent {
    /// An event observer that writes each event as one line (its ``description``): the companion of
    /// `Middleware.logger(_:)`, which logs sync actions and states. Give both the same `log` to read
    /// the whole story in one place:
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.onEvent = StoreEvent.logger()               // async actions and graph runs
    /// let store = Store(initialState: AppState(), reducer: appReducer,
    ///                   middleware: [.logger()],          // sync actions and states
    ///                   options: options)
    /// ```
    /// - Parameter log: where the lines go; `print` by default.
    /// - Returns: an observer for ``StoreOptions/onEvent`` or `Store.observeEvents(_:)`.
    public static func logger(
        _ log: @escaping @Sendable (String) -> Void = { print($0) }
    ) -> @Sendable (StoreEvent) -> Void {
        { event in log(event.description) }
    }
}
