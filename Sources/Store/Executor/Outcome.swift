/// How a node of a ``GraphRun`` ended.
public enum Outcome<Value: Sendable>: Sendable {
    /// The node ran and produced `Value` (`()` for sync, delay nodes).
    case succeeded(Value)
    /// The node's own error, after its last attempt (a timeout is ``GraphError/timedOut(after:)``).
    case failed(any Error)
    /// A prerequisite failed, was skipped or cancelled; this node never ran.
    case skipped
    /// The run was cancelled before or while the node ran.
    case cancelled

    /// The response, when the node succeeded.
    public var value: Value? {
        if case .succeeded(let value) = self { return value }
        return nil
    }

    /// The node's own error, when it failed.
    public var error: (any Error)? {
        if case .failed(let error) = self { return error }
        return nil
    }

    /// Which of the four cases this is, without its payload.
    public var kind: OutcomeKind {
        switch self {
        case .succeeded: .succeeded
        case .failed: .failed
        case .skipped: .skipped
        case .cancelled: .cancelled
        }
    }
}

/// The case of an ``Outcome`` without its payload: what reports and pictures show.
public enum OutcomeKind: String, Sendable, Equatable, CaseIterable {
    /// The node ran and produced its response.
    case succeeded
    /// The node threw (or timed out) on its last attempt.
    case failed
    /// A prerequisite did not succeed; the node never ran.
    case skipped
    /// The run was cancelled before or while the node ran.
    case cancelled
}

/// Errors of graphs and their runs, each with a sentence that says what went wrong.
public enum GraphError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A node of another graph was used here (as a prerequisite, in a setting, or asked of a run).
    /// The node that used it fails with this error when the graph runs.
    case foreignNode(index: Int)
    /// An attempt ran longer than the node's timeout.
    case timedOut(after: Duration)
    /// The node was skipped because a prerequisite did not succeed (thrown by `GraphRun.value(of:)`).
    case skipped
    /// A join node waited on another run's node, which ended skipped or cancelled.
    case joinedNodeDidNotSucceed(OutcomeKind)
    /// A join node named a run of another store.
    case joinedRunOfAnotherStore

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .foreignNode(let index):
            "node #\(index) belongs to another graph; a node may only wait on nodes added before it to the same graph"
        case .timedOut(let duration):
            "the attempt timed out after \(duration)"
        case .skipped:
            "the node was skipped because a prerequisite did not succeed"
        case .joinedNodeDidNotSucceed(let kind):
            "the joined node of the other run was \(kind.rawValue)"
        case .joinedRunOfAnotherStore:
            "the joined run belongs to another store; a graph can only join runs of the store it runs in"
        }
    }
}
