/// Why a run journal could not record, read or remove a run, with the path and the system's reason.
///
/// Whatever the error, nothing the journal had already recorded is lost: a failed append leaves the
/// run's records as they were before it.
public enum JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The folder or a file in it cannot be created or written (permissions, a read-only volume).
    case notWritable(path: String, reason: String)
    /// The volume holding `path` is full (or the user's quota is used up).
    case noSpace(path: String, reason: String)
    /// Another journal (in this process or another) holds the folder's lock; two journals on one
    /// folder would corrupt each other's runs.
    case locked(path: String, reason: String)
    /// The journal at `path` was written by a newer format than this build reads.
    case newerFormat(path: String, version: Int, newestReadable: Int)
    /// The journal at `path` is damaged at byte `offset` (not a torn last record, which is dropped
    /// with a diagnostic): records after it exist, so it cannot be skipped without losing them.
    case corruptRecord(path: String, offset: Int, reason: String)
    /// `limit` runs are already pending in the journal at `path`; a new run cannot start until one
    /// is finished and removed.
    case pendingRunLimitReached(path: String, limit: Int)
    /// The record for the journal at `path` could not be encoded (too large, or a number out of
    /// range); nothing was written.
    case encodingFailed(path: String, reason: String)
    /// Any other failure of the system call `operation` on `path`.
    case ioFailed(path: String, operation: String, reason: String)

    /// A sentence for a person, naming the path and the reason.
    public var description: String {
        switch self {
        case .notWritable(let path, let reason):
            "the run journal cannot write to \(path): \(reason)"
        case .noSpace(let path, let reason):
            "the run journal has no space left at \(path): \(reason)"
        case .locked(let path, let reason):
            "the run journal folder \(path) is in use by another journal: \(reason)"
        case .newerFormat(let path, let version, let newestReadable):
            "the run journal \(path) has format version \(version); this build reads up to version \(newestReadable)"
        case .corruptRecord(let path, let offset, let reason):
            "the run journal \(path) is corrupt at byte \(offset): \(reason)"
        case .pendingRunLimitReached(let path, let limit):
            "the run journal \(path) already holds \(limit) pending runs, its limit; finish or remove one first"
        case .encodingFailed(let path, let reason):
            "a record for the run journal \(path) could not be encoded: \(reason)"
        case .ioFailed(let path, let operation, let reason):
            "the run journal failed to \(operation) \(path): \(reason)"
        }
    }
}
