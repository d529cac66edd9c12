/// What a node of a graph does when the ``WorkOwner`` it was dispatched under ends before the node
/// ended: a screen closed while its chain of calls was still running.
///
/// Set it per node with ``ActionGraph/setOwnerEndPolicy(_:for:)``. A graph dispatched to a store
/// rather than to an owner never reads it.
public enum OwnerEndPolicy: Sendable, Equatable {
    /// The node ends with its owner (the default): if it had not started it ends `.cancelled` and
    /// never runs; an async node in flight gets Swift task cancellation and ends `.cancelled` at once.
    case cancel
    /// The node runs to its end, and its response is kept for whoever still awaits it (another
    /// node that outlives the owner, ``GraphRun/value(of:)``, a cache). Its dependents follow their
    /// own policies: the screen's own sync nodes (the default, ``cancel``) are dropped, and the
    /// graph's cancel action, if it has one, is applied once the run's other work ended.
    case finish
    /// The node runs to its end, and so does everything that depends on it, as if the owner were
    /// still there: the post the user already sent reaches the server, and the list that shows
    /// posts learns of it.
    case finishWithDependents
}

extension ActionGraph {
    /// Says what `node` does when the ``WorkOwner`` the run was dispatched under ends before the
    /// node ended (by default ``OwnerEndPolicy/cancel``).
    ///
    /// A node outlives its owner only if every prerequisite it still waits for outlives it too;
    /// otherwise it ends `.cancelled` with them. What outlives the owner applies in the order it
    /// would have had with the owner still there.
    ///
    /// ```swift
    /// let post = graph.run(SendPost(text: draft))
    /// graph.send(after: post) { sent in PostAppeared(sent) }
    /// graph.setOwnerEndPolicy(.finishWithDependents, for: post)
    /// ```
    public mutating func setOwnerEndPolicy<R>(_ policy: OwnerEndPolicy, for node: Node<R>) {
        updateSettings(of: node) { $0.ownerEnd = policy }
    }
}
