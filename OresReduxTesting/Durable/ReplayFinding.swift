/// One reason a durable run recorded by an earlier build of the app would not resume as it was
/// recorded with today's graph builders: what ``ReplayCheck/findings(_:)`` and
/// ``ReplayCheck/findings(journalFolder:)`` return.
///
/// ``description`` is one sentence for a person that names the run, the node and what changed, such
/// as `run "post-42" (graph "publishPost"): node "post" was renamed "create post"`; ``kind`` is
/// for a test that expects a particular finding.
public struct ReplayFinding: Sendable, Hashable, CustomStringConvertible {
    /// What kind of change a finding is.
    ///
    /// Resume refuses a run whose graph changed shape (``nodeRenamed``, ``nodeRemoved``,
    /// ``nodeAdded``, ``nodeKindChanged``, ``prerequisitesChanged``, ``shapeChanged``,
    /// ``unknownNode``), whose builder is missing (``unknownGraph``), whose parameters no longer
    /// decode (``parametersNotDecodable``) or whose graph cannot run durably (``graphNotDurable``):
    /// the run stays in the user's journal, unfinished. A ``responseNotDecodable`` node fails when
    /// the run resumes, and its dependents are skipped.
    public enum Kind: Sendable, Hashable {
        /// There was nothing to check: no run given, or a folder with no `run-*.journal` file that
        /// holds a run (a fixture path that is wrong must not pass).
        case noRecordedRuns
        /// A journal file could not be read (not a journal, damaged in the middle, written by a
        /// newer format), or a run's first record is not its start.
        case unreadableJournal
        /// No builder is registered under the run's graph name.
        case unknownGraph
        /// The journaled parameters no longer decode as the registered builder's parameters type.
        case parametersNotDecodable
        /// The journaled parameters decode, but a field they hold is not read by today's type (it
        /// was renamed to an optional field, or removed): a resume drops its value.
        case parametersFieldDropped
        /// The graph built today cannot run durably (a node without a label, two nodes with one
        /// label, an async node not declared durable).
        case graphNotDurable
        /// A node of the recorded graph is in today's graph under another label (the same kind,
        /// waiting for the same nodes). ``ReplayFinding/node`` is the recorded label.
        case nodeRenamed
        /// A node of the recorded graph is not in today's graph.
        case nodeRemoved
        /// Today's graph has a node the recorded graph did not have.
        case nodeAdded
        /// A node is of another kind (sync, async, delay) than it was, or was declared durable and
        /// is not (or the other way round).
        case nodeKindChanged
        /// A node waits for other nodes than it did, or for the same ones in another order.
        case prerequisitesChanged
        /// The graph's shape changed in a way no node names (the same nodes added in another
        /// order), or in a way the journal cannot tell, having been written before run starts
        /// recorded the shape (see ``unknownNode``).
        case shapeChanged
        /// A journal written before run starts recorded the graph's shape names a node (in an
        /// attempt or a sync node's application) that today's graph does not have: renamed or
        /// removed, the journal cannot say which.
        case unknownNode
        /// A node's journaled response no longer decodes with the node's codec (its response type
        /// changed, for instance): resume would fail the node instead of replaying the response.
        case responseNotDecodable
    }

    /// The recorded run's id (`"post-42"`); `nil` when a file could not be read far enough to tell.
    public let runID: String?
    /// The node the finding is about, by its label in the recorded run (today's label for
    /// ``Kind/nodeAdded``); `nil` for a finding about the whole run.
    public let node: String?
    /// What kind of change it is.
    public let kind: Kind
    /// What changed, as one sentence for a person that names the run and the node.
    public let description: String

    /// A finding about `node` of the run `runID`.
    public init(runID: String?, node: String?, kind: Kind, description: String) {
        self.runID = runID
        self.node = node
        self.kind = kind
        self.description = description
    }
}
