/// Why a durable run could not start, or why one of its nodes failed because of the journal.
public enum DurableRunError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No graph is registered under this name.
    case unknownGraph(String)
    /// Node `node` (its index in the graph) has no label; a durable graph names every node with
    /// ``ActionGraph/setLabel(_:for:)``, since the journal knows nodes by name.
    case missingLabel(node: Int)
    /// The nodes `nodes` (indices) share the label; a durable graph's labels are unique.
    case duplicateLabel(String, nodes: [Int])
    /// The async node `node` was not declared with ``ActionGraph/setDurable(_:inDoubt:)``, or is a
    /// join (a join waits on work of this launch, which a relaunch cannot resume).
    case notDurable(node: String)
    /// A run with this id is in flight in this process; run ids are unique among unfinished runs.
    case runAlreadyActive(String)
    /// The journal holds an unfinished run with this id that this launch has not resumed: starting
    /// it again would append a second start to that run. Call ``DurableRuns/resumeUnfinished()``
    /// first; a run it did not resume (see ``DurableResumeReport/notResumed``) is started again only
    /// once the app has removed it from the journal (``RunJournal/removeRun(_:)``).
    case runNotResumed(String)
    /// The previous run with this id ended, but has not left the journal: with a durable
    /// ``StatePersistence``, a run leaves it only once a saved state holds its sync work, and the
    /// state could not be saved now (`reason`: the persistence was stopped or released, or its
    /// write failed). A new run under the id would share the old run's records, so it did not
    /// start; start it again once the state is saved (``StatePersistence/flush()``).
    case runEndNotSaved(String, reason: String)
    /// The parameters given to ``DurableRuns/start(_:runID:parameters:)`` for the graph `graph`
    /// could not be encoded, or not decoded back (a type that does not round-trip): the run did not
    /// start.
    case parametersNotEncodable(graph: String, reason: String)
    /// The journaled parameters of a run of the graph `graph` no longer decode as the type its
    /// builder is registered with (see <doc:RunsThatSurviveARelaunch>, "Changing a durable graph"):
    /// the run is not resumed, and stays in the journal.
    case parametersNotDecodable(graph: String, reason: String)
    /// The response of the node `node` could not be encoded: the node fails, and the journal says
    /// so (its call happened).
    case responseNotEncodable(node: String, reason: String)
    /// The journal could not record the run's start (`node` is `nil`: the run did not start) or an
    /// attempt of `node` (its start: it was not called; its end: the call happened, and stays in
    /// doubt for a relaunch). Nothing recorded before is lost.
    case journalFailed(node: String?, JournalError)
    /// The graph registered as `graph` no longer has the shape its run was journaled with (its
    /// fingerprint was `journaled`, it is `current` now; see
    /// ``JournalRecord/runStarted(runID:graph:parameters:fingerprint:formatVersion:instance:)`` for
    /// their form; the description shows their digests): the run is not resumed, and stays in the
    /// journal with its records for the app to decide about. `OresReduxTesting`'s replay check
    /// (`ReplayCheck`) names the nodes that changed.
    case graphChanged(graph: String, journaled: String, current: String)
    /// An attempt of `node` started before a relaunch and never recorded its end, and the node's
    /// policy (``InDoubtPolicy/failInDoubt``, or the app's answer ``InDoubtAnswer/fail``) is not
    /// to call it again: the call may or may not have happened, with `key`.
    case inDoubt(node: String, key: IdempotencyKey)
    /// `node` used up its attempts before a relaunch; `description` is its last error as the
    /// journal kept it (errors are journaled as text).
    case failedBeforeRelaunch(node: String, description: String)
    /// The journaled response of `node` could not be decoded by the graph as it is built now.
    case responseNotDecodable(node: String, reason: String)
    /// The journal holds records for run `runID` that do not start with the run's start.
    case unreadableRun(runID: String, reason: String)

    /// A sentence for a person, naming the graph, node or run.
    public var description: String {
        switch self {
        case .unknownGraph(let name):
            "no durable graph is registered as \"\(name)\""
        case .missingLabel(let node):
            "node #\(node) of a durable graph has no label; give every node a unique one with setLabel(_:for:)"
        case .duplicateLabel(let label, let nodes):
            "the nodes \(nodes.map { "#\($0)" }.joined(separator: ", ")) of a durable graph share the label \"\(label)\""
        case .notDurable(let node):
            "the async node \"\(node)\" of a durable graph is not declared durable with setDurable(_:inDoubt:), or is a join"
        case .runAlreadyActive(let runID):
            "a durable run \"\(runID)\" is already in flight"
        case .runNotResumed(let runID):
            "the journal holds an unfinished durable run \"\(runID)\" that this launch has not resumed; call resumeUnfinished() first (a run it does not resume starts again only once removed from the journal)"
        case .runEndNotSaved(let runID, let reason):
            "the durable run \"\(runID)\" ended, but leaves the journal only once a saved state holds its sync work, and \(reason); a new run under its id starts once the state is saved (StatePersistence.flush())"
        case .parametersNotEncodable(let graph, let reason):
            "the parameters of the durable graph \"\(graph)\" could not be encoded and decoded back: \(reason)"
        case .parametersNotDecodable(let graph, let reason):
            "the journaled parameters of the durable graph \"\(graph)\" no longer decode as its builder's type: \(reason); the run was not resumed"
        case .responseNotEncodable(let node, let reason):
            "the response of the durable node \"\(node)\" could not be encoded: \(reason)"
        case .journalFailed(nil, let error):
            "the durable run could not be journaled, so it did not start: \(error)"
        case .journalFailed(let node?, let error):
            "the journal could not record an attempt of the durable node \"\(node)\": \(error)"
        case .graphChanged(let graph, let journaled, let current):
            "the durable graph \"\(graph)\" changed shape since its run was journaled (\(DurableFingerprint(journaled: journaled).digest), now \(DurableFingerprint(journaled: current).digest)); the run was not resumed"
        case .inDoubt(let node, let key):
            "the durable node \"\(node)\" was in flight when the app stopped, and may or may not have happened (key \(key)); it is not called again"
        case .failedBeforeRelaunch(let node, let description):
            "the durable node \"\(node)\" failed before the relaunch: \(description)"
        case .responseNotDecodable(let node, let reason):
            "the journaled response of the durable node \"\(node)\" could not be decoded: \(reason)"
        case .unreadableRun(let runID, let reason):
            "the journal of the durable run \"\(runID)\" cannot be resumed: \(reason)"
        }
    }
}
