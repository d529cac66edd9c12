import Foundation

/// A run's journal file read as resume reads it, without opening a ``FileRunJournal``: no lock is
/// taken, nothing is cut, repaired or removed, so a file kept as a test fixture stays exactly as it
/// was. The replay check of `OresReduxTesting` reads fixtures with it.
package enum RecordedJournalFile {
    /// The run the file at `path` holds, read with ``JournalFileFormat`` as ``FileRunJournal`` reads
    /// it on launch: a torn last record is dropped (and returned), as resume drops it; a file without
    /// one whole record (cut inside its header or its first record) holds no run (`nil`).
    /// - Throws: ``JournalError`` if the file cannot be read, is not a run journal, is damaged in
    ///   the middle, or was written by a newer format.
    package static func read(path: String) throws(JournalError) -> (run: JournalRun?, dropped: JournalDiagnostic?) {
        switch try JournalFileFormat.read(try JournalPOSIX.readAll(path), path: path) {
        case .nothingAcknowledged(let diagnostic):
            return (nil, diagnostic)
        case .run(let runID, let records, _, let dropped):
            return (JournalRun(runID: runID, records: records), dropped)
        }
    }

    /// The run id the header of the file at `path` names, if the header is whole and its
    /// checksums hold: a file damaged after its header still says whose run it holds.
    package static func runID(path: String) -> String? {
        guard let bytes = try? JournalPOSIX.readAll(path) else { return nil }
        return JournalFileFormat.runID(inHeaderOf: bytes)
    }

    /// The paths of the run files in `folder` (`run-*.journal`, the form ``FileRunJournal`` names
    /// them in), sorted by name.
    /// - Throws: ``JournalError/ioFailed(path:operation:reason:)`` if the folder cannot be listed:
    ///   it does not exist, is a file, or cannot be read.
    package static func paths(in folder: URL) throws(JournalError) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw .ioFailed(path: folder.path, operation: "list the folder", reason: "it does not exist")
        }
        guard isFolder.boolValue else {
            throw .ioFailed(path: folder.path, operation: "list the folder", reason: "it is a file, not a folder")
        }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasPrefix("run-") && $0.hasSuffix(".journal") }
                .sorted()
                .map { folder.appendingPathComponent($0).path }
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw .ioFailed(path: folder.path, operation: "list the folder", reason: reason)
        }
    }
}
