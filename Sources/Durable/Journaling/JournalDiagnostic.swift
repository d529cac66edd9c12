/// Something a journal noticed and repaired on its own while reading: a torn last record (the
/// process or the machine stopped in the middle of writing it) dropped, never misread.
///
/// Nothing acknowledged is lost by a dropped record: an append returns only once its record is on
/// disk, so a torn record is one whose append never returned, and whose side effect never started.
public struct JournalDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The journal file (or, for an app's own journal, whatever names where the run is kept).
    public var path: String
    /// Where the dropped bytes start.
    public var offset: Int
    /// How many bytes were dropped, up to the end of the file.
    public var droppedBytes: Int
    /// What was wrong with them, for a person.
    public var reason: String

    /// Describes a dropped tail of `droppedBytes` bytes at `offset` in `path`.
    public init(path: String, offset: Int, droppedBytes: Int, reason: String) {
        self.path = path
        self.offset = offset
        self.droppedBytes = droppedBytes
        self.reason = reason
    }

    /// A sentence for a person, naming the path, the offset and the reason.
    public var description: String {
        "dropped a torn record of \(droppedBytes) bytes at byte \(offset) of \(path): \(reason)"
    }
}
