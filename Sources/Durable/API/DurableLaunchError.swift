/// Why ``DurableLaunch/open(journalFolder:stateURL:default:reducer:middleware:options:saveDebounce:lockWait:pendingRunLimit:onSaveError:isolation:register:)``
/// did not launch. Whatever the case, nothing was written: the journal and the saved state are as
/// they were, and the folder's lock is not held.
public enum DurableLaunchError: Error, Sendable, CustomStringConvertible {
    /// The journal could not be opened. ``JournalError/locked(path:reason:)`` when another process
    /// (an app extension, a second window's scene on iPad, the previous launch still dying), or
    /// another launch in this process, holds the folder: this launch read nothing, and can wait
    /// (see `lockWait`), try again later, or run without durability.
    case journal(JournalError)
    /// The saved state exists but cannot be read (permissions, an I/O error): launching from the
    /// default state would overwrite it at the first save, so the launch stops. A state file that
    /// does not decode is not this error: it is kept aside and the launch goes on (see
    /// ``DurableLaunch/restoreError``).
    case stateUnreadable(PersistenceError)

    /// A sentence for a person, naming the path and the reason.
    public var description: String {
        switch self {
        case .journal(let error): "the durable launch could not open its journal: \(error)"
        case .stateUnreadable(let error): "the durable launch could not read its saved state: \(error)"
        }
    }
}
