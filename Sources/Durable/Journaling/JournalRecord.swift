import Foundation

/// One entry of a durable run's journal: what happened, in the order it happened.
///
/// A run's journal starts with ``runStarted(runID:graph:parameters:fingerprint:formatVersion:instance:)``,
/// then holds, per node, the start and end of each attempt or the application of a sync node, and
/// ends with ``runFinished`` (after ``runCancelled`` if the app cancelled it). Resume reads it back: a node whose attempt ended is not called again,
/// an attempt that started but never ended is in doubt.
///
/// Counts are `Int` (attempt numbers) and `UInt64` (the store's commit count); the journal stores
/// them as 64-bit integers and never truncates one: a value that does not fit where it is read is a
/// ``JournalError/corruptRecord(path:offset:reason:)``, not a wrapped number.
public enum JournalRecord: Sendable, Hashable {
    /// The run `runID` (chosen by the app, e.g. `"post-42"`) started the graph registered as
    /// `graph`, built from `parameters` (encoded by the app); `fingerprint` describes the graph's
    /// shape, so that resume can refuse a graph that changed. The fingerprint is `sha256:` and 64
    /// lowercase hex digits, the SHA-256 of the shape's canonical text, then a newline and that
    /// text: `v1`, then for each node, in the order the graph added them,
    /// `|<label's UTF-8 byte count>:<label>:<kind>:<prerequisite indices, comma-separated>:<durable>`
    /// (for example `v1|6:upload:async::true|4:show:sync:0:false`). Resume compares the digests
    /// alone, so a journal written before the fingerprint carried the text (the digest alone)
    /// resumes as before; the text lets a check (`OresReduxTesting`'s `ReplayCheck`) name the
    /// nodes that were renamed, removed or added. `formatVersion` is the journal format
    /// the run was started with (``JournalRecord/currentFormatVersion`` when written by this build).
    /// `instance` tells this run from an earlier one with the same id (drawn at start; it only ties
    /// the run to its ``DurableMarks``, and never reaches a key or a server).
    case runStarted(
        runID: String, graph: String, parameters: Data, fingerprint: String,
        formatVersion: Int = JournalRecord.currentFormatVersion, instance: UInt64 = 0)

    /// Attempt `attempt` (1 for the first) of the async node `node` is about to start, with `key`,
    /// under the in-doubt policy `inDoubt`: if the app stops before the attempt's end is recorded,
    /// a relaunch settles the attempt by this policy, whatever the node's policy is then. `nil` in
    /// a record written by format 1, which did not journal it (today's policy settles those).
    /// Written, and on disk, before the attempt's side effect starts.
    case attemptStarted(node: String, attempt: Int, key: IdempotencyKey, inDoubt: InDoubtRule? = nil)

    /// Attempt `attempt` of the async node `node` ended, with `end`.
    case attemptEnded(node: String, attempt: Int, end: AttemptEnd)

    /// The sync node `node` was applied to the store's state as its commit number `commitCount`:
    /// resume compares it with the persisted state's count to know whether that state holds it.
    case syncApplied(node: String, commitCount: UInt64)

    /// The app cancelled the run: recorded at once, so that a relaunch never runs anything more of
    /// it. Until ``runFinished`` follows (once a saved state holds the sync work the run applied),
    /// a relaunch only applies, once, the sync nodes recorded by ``syncApplied(node:commitCount:)``
    /// that its restored state lacks.
    case runCancelled

    /// Every node of the run reached its outcome; the run can be removed from the journal.
    case runFinished

    /// How an attempt ended, as the journal keeps it. Resume reads the case, never a text.
    public enum AttemptEnd: Sendable, Hashable {
        /// It succeeded; its response, encoded by the node (possibly encrypted by the app).
        case response(Data)
        /// It failed with an error of its own, described for a person (errors are not required to
        /// be `Codable`): it counts towards the node's retry policy.
        case failed(description: String)
        /// It succeeded, and its response is kept out of the journal (a secret): on resume the node
        /// runs again instead of replaying a response.
        case responseNotJournaled
        /// It was announced but never called (its run was cancelled in between): not a failure,
        /// and not in doubt.
        case notCalled
        /// Its call was cut off by cancellation (the run's cancel, a timeout, the app's exit): the
        /// call may have reached the server, so a relaunch takes it as in doubt.
        case cancelled
        /// A relaunch found it in doubt and its policy said not to call it again: it failed with
        /// ``DurableRunError/inDoubt(node:key:)`` and `key`, and later relaunches replay that.
        case failedInDoubt(key: IdempotencyKey)
    }

    /// An in-doubt policy as the journal keeps it with each attempt's start (see
    /// ``InDoubtPolicy``; the check of ``InDoubtPolicy/ask(_:)`` is the app's code, not journaled).
    public enum InDoubtRule: Sendable, Hashable {
        /// ``InDoubtPolicy/rerunWithSameKey``: at least once.
        case rerunWithSameKey
        /// ``InDoubtPolicy/failInDoubt``: at most once.
        case failInDoubt
        /// ``InDoubtPolicy/ask(_:)``: the app's check decides; a relaunch whose graph has no check
        /// for the node any more does not call it again.
        case ask
    }

    /// The journal format this build writes, and the newest it reads. A journal or record of a
    /// newer format is refused with ``JournalError/newerFormat(path:version:newestReadable:)``.
    /// Format 2 journals each attempt's in-doubt policy and its end as a case; format 1 journaled
    /// every failure as text, which the decoder maps once (see ``init(decoding:)``).
    public static let currentFormatVersion = 2
}
