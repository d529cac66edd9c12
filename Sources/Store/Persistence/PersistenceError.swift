/// Why a saved state could not be read or written, with the file's path and a sentence for a person.
public enum PersistenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no file at `path` (``StatePersistence/restore(from:default:)`` treats this as a first
    /// launch, not an error).
    case missing(path: String)
    /// The file exists but could not be read (permissions, I/O error).
    case unreadable(path: String, description: String)
    /// The file was read but does not decode as the expected type: damaged, truncated, or written by
    /// an incompatible version of the app.
    case corrupt(path: String, description: String)
    /// The state's own `encode(to:)` threw.
    case encodingFailed(description: String)
    /// The file could not be written; what was there before is unchanged.
    case writeFailed(path: String, description: String)

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .missing(let path): "no saved state at \(path)"
        case .unreadable(let path, let description): "the saved state at \(path) could not be read: \(description)"
        case .corrupt(let path, let description): "the saved state at \(path) is corrupt: \(description)"
        case .encodingFailed(let description): "the state could not be encoded: \(description)"
        case .writeFailed(let path, let description): "the state could not be written to \(path): \(description)"
        }
    }
}
