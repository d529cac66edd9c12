/// Which sync nodes and fallbacks of unfinished durable runs a state already holds: saved with the
/// state, so that a relaunch that resumes those runs applies none of them twice.
///
/// A store keeps its marks as it applies durable sync work: the mark of a sync node (or of a failed
/// node's fallback) is set on the thread that applies it, right before it enters the pipeline, so
/// any state a subscriber sees after that action holds both the action and its mark, and no state
/// before it holds the mark. ``StatePersistence/init(durableStore:url:debounce:clock:writer:onError:)``
/// writes the marks in the same file as the state (one atomic rename), and
/// ``StatePersistence/restoreDurable(from:default:)`` reads them back for
/// ``StoreOptions/durableMarks``. On resume, a sync node whose mark is there is not applied again;
/// one whose mark is missing was not in the saved state, and is applied (again).
///
/// Why marks and not the store's commit count: a count starts again at every launch and the commits
/// of a launch that died before saving are lost, so a count in the journal cannot tell whether a
/// state saved by another launch holds it. A mark travels with the state it describes.
///
/// Marks name the run by id and by the instance number its start journaled, so a run id used again
/// later never inherits the marks of an earlier run. A finished run's marks are dropped once its
/// journal entry is removed, and resume drops the marks of runs the journal no longer holds.
public struct DurableMarks: Sendable, Hashable, Codable {
    /// One applied sync node, or one applied fallback, of one durable run.
    struct Mark: Sendable, Hashable, Codable, Comparable {
        var runID: String
        var instance: UInt64
        var node: String
        var isFallback: Bool

        static func < (lhs: Mark, rhs: Mark) -> Bool {
            (lhs.runID, lhs.instance, lhs.node, lhs.isFallback ? 1 : 0)
                < (rhs.runID, rhs.instance, rhs.node, rhs.isFallback ? 1 : 0)
        }
    }

    var marks: Set<Mark>

    /// No marks: a state that holds no durable sync work (a first launch).
    public init() {
        marks = []
    }

    init(_ marks: Set<Mark>) {
        self.marks = marks
    }

    /// Whether the state holds no durable sync work of any unfinished run.
    public var isEmpty: Bool { marks.isEmpty }

    /// How many sync nodes and fallbacks are marked.
    public var count: Int { marks.count }

    private enum CodingKeys: String, CodingKey { case applied }

    /// Decodes marks written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        marks = Set(try container.decode([Mark].self, forKey: .applied))
    }

    /// Encodes the marks as a sorted list, so the same marks always give the same bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(marks.sorted(), forKey: .applied)
    }
}

/// The marks of a store, as it applies durable sync work (see ``DurableMarks``), with the commit
/// count each one was set for, so that a test can take the marks of any past state.
///
/// It also holds back the removal of a finished run from the journal until a saved state holds the
/// run's sync work, when a ``StatePersistence`` saves the marks: removed earlier, a kill before the
/// save would lose the run's last sync nodes (the state lacks them, and no journal says to resume).
final class DurableMarksTable: Sendable {
    /// Each mark, with the commit count of the action it marks (restored marks: 0, the first state).
    private let entries: LockedValue<[DurableMarks.Mark: UInt64]>
    private let saves = LockedValue(Saves())

    /// What a durable ``StatePersistence`` saved, and what waits for it.
    private struct Saves {
        /// A durable persistence saves this store's state: removals wait for its writes.
        var isPersisted = false
        /// The commit count of the newest state on disk (0: the restored state, already on disk).
        var savedThrough: UInt64 = 0
        /// Work waiting for a state of at least this commit count to be on disk.
        var waiting: [(through: UInt64, then: @Sendable () -> Void)] = []
        /// Writes the newest state now, one per durable persistence attached; each returns why it
        /// could not, or `nil`.
        var savers: [@Sendable () -> String?] = []
    }

    init(_ restored: DurableMarks) {
        entries = LockedValue(Dictionary(uniqueKeysWithValues: restored.marks.map { ($0, 0) }))
    }

    /// Marks sync work about to be applied as the store's commit `commitCount`. Called on the
    /// applying thread before the action enters the pipeline: no state a subscriber sees before it
    /// is committed can carry the mark, every state after it does.
    func willApply(_ mark: DurableMarks.Mark, asCommit commitCount: UInt64) {
        entries.withLock { entries in
            if entries[mark] == nil { entries[mark] = commitCount }
        }
    }

    func contains(_ mark: DurableMarks.Mark) -> Bool {
        entries.withLock { $0[mark] != nil }
    }

    /// The marks now, or those of the state after commit `commitCount`.
    func marks(upTo commitCount: UInt64 = .max) -> DurableMarks {
        DurableMarks(entries.withLock { Set($0.filter { $0.value <= commitCount }.keys) })
    }

    /// Drops the marks of the run `runID` started as `instance`: it finished and left the journal.
    func remove(runID: String, instance: UInt64) {
        entries.withLock { entries in
            entries = entries.filter { !($0.key.runID == runID && $0.key.instance == instance) }
        }
    }

    /// A durable ``StatePersistence`` saves this store's state from now on; `save` writes its
    /// newest state now, and returns why it could not, or `nil`.
    func persistenceAttached(save: @escaping @Sendable () -> String?) {
        saves.withLock { saves in
            saves.isPersisted = true
            saves.savers.append(save)
        }
    }

    /// Has every durable persistence write its newest state now (no lock held: it encodes the app's
    /// state and calls its writer), which runs the work waiting for it; why any could not.
    func saveNow() -> [String] {
        saves.withLock { $0.savers }.compactMap { $0() }
    }

    /// The state after commit `commitCount`, with its marks, is on disk: runs what waited for it.
    func saved(through commitCount: UInt64) {
        let due = saves.withLock { saves -> [@Sendable () -> Void] in
            saves.savedThrough = Swift.max(saves.savedThrough, commitCount)
            let through = saves.savedThrough
            let due = saves.waiting.filter { $0.through <= through }.map(\.then)
            saves.waiting.removeAll { $0.through <= through }
            return due
        }
        for then in due { then() }
    }

    /// Calls `then` once a saved state holds every sync node and fallback of the run `runID`
    /// started as `instance` (at once without a durable persistence, or when it already does).
    func whenSaved(runID: String, instance: UInt64, _ then: @escaping @Sendable () -> Void) {
        let through = entries.withLock { entries in
            entries.filter { $0.key.runID == runID && $0.key.instance == instance }.values.max() ?? 0
        }
        let now = saves.withLock { saves -> Bool in
            guard saves.isPersisted, through > saves.savedThrough else { return true }
            saves.waiting.append((through, then))
            return false
        }
        if now { then() }
    }

    /// Keeps only the marks of the runs `keep` (id and instance) holds: the others finished.
    func retain(runs keep: Set<RunInstance>) {
        entries.withLock { entries in
            entries = entries.filter { keep.contains(RunInstance(runID: $0.key.runID, instance: $0.key.instance)) }
        }
    }
}

/// A durable run, by its id and the instance number its start journaled.
struct RunInstance: Hashable, Sendable {
    let runID: String
    let instance: UInt64
}

extension Store {
    /// How many actions the store has committed so far (test support: a relaunch simulation reads
    /// it in a subscriber, where it is the count of the state the subscriber receives).
    package var commitCount: UInt64 { core.commitCount }

    /// The store's durable marks now, or those of the state after commit `commitCount`.
    package func durableMarks(upTo commitCount: UInt64 = .max) -> DurableMarks {
        core.durableMarks.marks(upTo: commitCount)
    }
}
