/// A run's side of the ``WorkOwner`` it was dispatched under, and waits that end with their task.
extension GraphRun {
    /// The owner the run was dispatched under ended: the machine decides node by node, from the
    /// graph's policies (``ActionGraph/setOwnerEndPolicy(_:for:)``). When this returns, no node
    /// that did not outlive the owner is being reduced, and none will be.
    func endForOwner() {
        let policies = storage.settings.compactMapValues(\.ownerEnd)
        let (now, insidePipeline) = (elapsed(), core.isInsidePipeline)
        perform(
            state.withLock {
                $0.handle(.ownerEnded(now: now, policies: policies), insidePipeline: insidePipeline)
            })
    }

    /// Whether the ``WorkOwner`` the run was dispatched under ended before the run finished: its
    /// nodes that did not outlive the owner are `.cancelled` because their owner ended.
    public var isEndedByOwner: Bool { read(bornFinished: false) { $0.machine.isEndedByOwner } }

    /// Waits as ``wait()`` does; when `cancelsOnTaskCancel` is true and the waiting task is
    /// cancelled, the run is cancelled too (``cancel()``), and the wait still returns its report
    /// once every node is terminal. So a SwiftUI `.task { await run.wait(cancelsOnTaskCancel: true) }`
    /// ends the work when its view disappears.
    @discardableResult
    public func wait(cancelsOnTaskCancel: Bool) async -> GraphReport {
        guard cancelsOnTaskCancel else { return await wait() }
        return await withTaskCancellationHandler {
            await wait()
        } onCancel: {
            cancel()
        }
    }

    /// The response of `node`, as ``value(of:)``; when `cancelsOnTaskCancel` is true and the waiting
    /// task is cancelled, the run is cancelled too (and this throws `CancellationError` if `node`
    /// had not succeeded by then).
    public func value<R>(of node: Node<R>, cancelsOnTaskCancel: Bool) async throws -> R {
        guard cancelsOnTaskCancel else { return try await value(of: node) }
        return try await withTaskCancellationHandler {
            try await value(of: node)
        } onCancel: {
            cancel()
        }
    }
}

extension ActionTask {
    /// The action's response, as ``value``; when `cancelsOnTaskCancel` is true and the waiting task
    /// is cancelled, the action is cancelled too (``cancel()``).
    public func value(cancelsOnTaskCancel: Bool) async throws -> Response {
        guard cancelsOnTaskCancel else { return try await value }
        return try await withTaskCancellationHandler {
            try await value
        } onCancel: {
            cancel()
        }
    }
}
