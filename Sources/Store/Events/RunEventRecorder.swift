/// Turns the steps of an observed run into ``StoreEvent``s, queued in the store's event hub in the
/// order the run's machine decided them (it observes under the run's lock).
final class RunEventRecorder: RunObserver {
    let hub: EventHub
    let info: StoreEvent.RunInfo
    let shape: GraphShape
    let settings: [Int: NodeSettings]
    /// Set once the run's start was queued: it comes before the run's first other event.
    private var announced = false

    /// A recorder when the store is observed (`isObserved`); `nil` otherwise, so that an unobserved
    /// run records nothing. (Not a failable initializer: a class's allocates before it fails.)
    static func ifObserved(
        _ isObserved: Bool, hub: EventHub, storage: GraphStorage, owner: String?
    ) -> RunEventRecorder? {
        isObserved ? RunEventRecorder(hub: hub, storage: storage, owner: owner) : nil
    }

    private init(hub: EventHub, storage: GraphStorage, owner: String?) {
        self.hub = hub
        self.shape = GraphShape(storage)
        self.info = StoreEvent.RunInfo(id: hub.nextID(), nodeCount: storage.count, shape: shape, owner: owner)
        self.settings = storage.settings
    }

    func observe(_ step: RunStep, of machine: RunStateMachine) {
        var items: [EventHub.Item] = []
        if !announced {
            announced = true
            items.append(.event(.runStarted(info)))
        }
        switch step {
        case .attemptStarted(let start):
            let backoff =
                start.inLaunch > 1
                ? (settings[start.node]?.retry ?? .never).backoff.delay(beforeRetry: start.inLaunch - 1) : .zero
            let node = StoreEvent.NodeStartInfo(
                index: start.node, label: shape.label(start.node), kind: shape.kind(start.node),
                attempt: start.attempt, time: machine.latestTime, backoff: backoff)
            items.append(.event(.nodeStarted(info, node)))
        case .nodeEnded(let node):
            guard let outcome = machine.outcome(of: node) else {
                preconditionFailure("OresRedux: node #\(node) reported before it ended")
            }
            var ended = StoreEvent.NodeInfo(
                index: node, label: shape.label(node), kind: shape.kind(node), outcome: outcome)
            ended.isCancelledByOwnerEnd = machine.cancelledByOwner.contains(node)
            items.append(.event(.nodeFinished(info, ended)))
        case .runFinished:
            items.append(.event(.runFinished(info, machine.report(shape: shape))))
        default:
            break
        }
        if !items.isEmpty { hub.enqueue(items) }
    }

    /// Applies `item` with where its actions come from set, for the inspector's recorder.
    func apply(_ item: RunStateMachine.SyncItem, on host: any RunHost, _ apply: () -> Void) {
        let origin =
            switch item {
            case .node(let node): SyncOrigin(run: info.id, node: node, kind: .node)
            case .fallback(let node): SyncOrigin(run: info.id, node: node, kind: .fallback)
            case .cancelAction: SyncOrigin(run: info.id, node: nil, kind: .cancelAction)
            }
        SyncOrigin.$current.withValue(origin) { apply() }
    }
}
