import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// The default ``RunJournal``: one append-only file per run in a folder the app names.
///
/// What it promises, beyond ``RunJournal``'s contract:
/// - **Durable appends.** Each record is written at the end of its run's file and flushed to the
///   drive before ``append(_:to:)`` returns (`fcntl(F_FULLFSYNC)` on Apple platforms, or `fsync`
///   where a volume refuses it; `fsync` on Linux: see the table in <doc:RunsThatSurviveARelaunch>);
///   creating or removing a run's file also flushes the folder.
///   A failed append cuts the file back to its previous length, so the records already there stay
///   readable and the next append starts clean.
/// - **Torn tails.** A record cut short by a crash is dropped on reading, with a
///   ``JournalDiagnostic``, and cut off before the next append to that run (see
///   ``JournalContents``). A run's file cut inside its header or its first record holds nothing
///   that was acknowledged: it is removed, with a diagnostic, and its run id is free; damage with records after it is a
///   ``JournalError/corruptRecord(path:offset:reason:)`` for that run only.
/// - **One journal per folder.** The folder's `.lock` file is locked (`flock`, exclusive) until
///   ``close()`` or, without it, until the journal is deinitialized: a second journal on the same
///   folder, in this process or another, fails with ``JournalError/locked(path:reason:)`` instead of
///   corrupting the first one's runs. Dropping your last reference does not release the folder at
///   once (a run's task that is still ending, or the journal's write queue, may hold the journal a
///   moment longer); to open the folder again in the same process, call ``close()`` first. A volume
///   that does not lock files (some network volumes answer `ENOTSUP`) cannot hold a journal: the
///   initializer throws ``JournalError/ioFailed(path:operation:reason:)`` rather than run unlocked.
/// - **Where it may live on iOS.** In the app's own container (Application Support, say), where a
///   suspended app may keep the lock. Not in an App Group container: iOS kills an app that is
///   suspended while it holds a file lock there (`0xdead10cc`); if the journal must live there,
///   ``close()`` it before the app is suspended and open a new one when it returns. See
///   <doc:RunsThatSurviveARelaunch>.
/// - **Secrets.** A folder it creates has mode `0700` and every file `0600`; on iOS, tvOS, watchOS
///   and visionOS files are also protected `completeUntilFirstUserAuthentication` (readable by a
///   relaunch in the background after the first unlock, never before).
/// - **Safe names.** A run's file is `run-<32 hex digits>.journal`, the first 16 bytes of the
///   SHA-256 of `OresRedux.RunJournalFile.v1`, a zero byte and the run id's UTF-8: any run id
///   (`"../x"`, `"a/b"`, empty, any length) names a file in the folder, never a path outside it.
/// - **Bounded.** At most `pendingRunLimit` runs are kept at once; starting another is
///   ``JournalError/pendingRunLimitReached(path:limit:)``.
///
/// Calls may come from any thread; they are applied one at a time.
public final class FileRunJournal: RunJournal, @unchecked Sendable {
    // @unchecked: `runs` and `lockDescriptor` are read and written only while `lock` is held (or in
    // deinit, when no other reference is left); every other stored property is a `let` of a
    // Sendable type.

    /// The folder holding the runs' files.
    public let folder: URL
    /// The most runs the journal keeps at once.
    public let pendingRunLimit: Int

    private let path: String
    private let io: JournalFileIO
    /// The open `.lock` file, which holds the folder's `flock`; `nil` once ``close()`` released it.
    private var lockDescriptor: Int32?
    private let lock = Lock()
    /// The run files in the folder, by file name, with what is known of each.
    private var runs: [String: RunFile]

    /// What the journal knows of one run file.
    private struct RunFile {
        /// The length of the file's valid prefix, once read (or written) by this journal.
        var validLength: Int?
        /// The file may hold bytes past `validLength` (a torn tail, a failed append) to cut first.
        var needsTruncation = false
    }

    /// Opens (creating if needed) the journal in `folder`, and locks it for this journal's lifetime.
    /// - Parameters:
    ///   - folder: a folder of its own; created with mode `0700` (and its parents) if missing.
    ///   - pendingRunLimit: the most runs kept at once (default 100).
    /// - Throws: ``JournalError/locked(path:reason:)`` if another journal holds the folder,
    ///   ``JournalError/notWritable(path:reason:)`` if it cannot be created or written, or another
    ///   ``JournalError`` naming the path and the system's reason.
    public convenience init(folder: URL, pendingRunLimit: Int = 100) throws(JournalError) {
        try self.init(folder: folder, pendingRunLimit: pendingRunLimit, io: .system)
    }

    /// The same, writing records through `io` (tests inject faults there).
    init(folder: URL, pendingRunLimit: Int, io: JournalFileIO) throws(JournalError) {
        self.folder = folder
        self.pendingRunLimit = pendingRunLimit
        self.io = io
        let path = folder.standardizedFileURL.path
        self.path = path
        try Self.createFolder(path)
        let lockPath = path + "/.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(FileProtection.fileMode))
        guard descriptor >= 0 else {
            throw JournalPOSIX.error(errno, path: lockPath, operation: "create the lock file")
        }
        // portability: held until close(). On iOS only outside App Group containers (0xdead10cc at
        // suspension otherwise); a volume without flock (ENOTSUP) is refused below. The guide says so.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            if code == EWOULDBLOCK {
                throw .locked(
                    path: path,
                    reason:
                        "flock on \(lockPath): \(String(cString: strerror(code))) (another FileRunJournal is open on it)"
                )
            }
            throw JournalPOSIX.error(code, path: lockPath, operation: "lock the lock file")
        }
        lockDescriptor = descriptor
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
            runs = Dictionary(uniqueKeysWithValues: names.filter(Self.isRunFileName).map { ($0, RunFile()) })
        } catch {
            Self.release(descriptor)
            throw .ioFailed(path: path, operation: "list the folder", reason: "\(error)")
        }
    }

    deinit {
        if let lockDescriptor { Self.release(lockDescriptor) }
    }

    /// Releases the folder now: returns once no other call of this journal is under way and the
    /// folder's lock is released, so that another journal (the next launch's, in this process or
    /// another) can open the folder.
    ///
    /// Call it when the journal's last write is done, for example after ``DurableRuns/flush()``
    /// once your runs ended: a run's task may hold the journal for a moment after
    /// ``GraphRun/wait()`` returned, so dropping your references releases the folder only later, at
    /// an instant nothing tells you. Every call after `close()` throws
    /// ``JournalError/notWritable(path:reason:)`` and changes nothing on disk (a durable run then
    /// reports it as a journal failure); closing again does nothing.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        guard let descriptor = lockDescriptor else { return }
        lockDescriptor = nil
        Self.release(descriptor)
    }

    /// Runs `body` while this journal holds the folder's lock, and no other call of the journal is
    /// under way: how ``DurableLaunch`` saves the state file under the journal's lock, so that a
    /// process that has not taken the lock never writes it, and no save lands after ``close()``.
    /// - Throws: ``JournalError/notWritable(path:reason:)`` without calling `body` once the journal
    ///   was closed; otherwise what `body` throws.
    package func whileHoldingFolder<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try checkOpenLocked()
        return try body()
    }

    /// Unlocks the lock file, then closes it. Closing alone is not enough: a `flock` belongs to the
    /// open file, which a child process that another thread is spawning at that moment shares until
    /// it execs (close-on-exec closes it only then); unlocking releases it for every copy.
    private static func release(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        closeDescriptor(descriptor)
    }

    /// Throws unless the journal is open (see ``close()``); called with `lock` held.
    private func checkOpenLocked() throws(JournalError) {
        guard lockDescriptor != nil else {
            throw .notWritable(path: path, reason: "the journal was closed (FileRunJournal.close())")
        }
    }

    /// Records `record` as the next record of the run `runID`: returns once it is on disk.
    /// - Throws: ``JournalError/pendingRunLimitReached(path:limit:)`` for a new run beyond the limit,
    ///   ``JournalError/noSpace(path:reason:)``, ``JournalError/notWritable(path:reason:)``,
    ///   ``JournalError/encodingFailed(path:reason:)``,
    ///   ``JournalError/corruptRecord(path:offset:reason:)`` if the run's file is damaged, or
    ///   another error naming the path. The run's records are then as they were before the call.
    public func append(_ record: JournalRecord, to runID: String) throws(JournalError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpenLocked()
        let name = Self.fileName(runID)
        let filePath = path + "/" + name
        let frame = try JournalFileFormat.frame(record, path: filePath)
        if let known = runs[name] {
            try appendLocked(frame, to: filePath, name: name, file: known, runID: runID)
        } else {
            guard runs.count < pendingRunLimit else {
                throw .pendingRunLimitReached(path: path, limit: pendingRunLimit)
            }
            try createRun(runID, name: name, path: filePath, firstFrame: frame)
        }
    }

    /// Every unfinished run with its records, ordered by run id. A file without one whole record
    /// (cut inside its header or its first record: its first append never returned, so nothing in it
    /// was acknowledged) is removed with a ``JournalDiagnostic``, and the file of a run that ends with
    /// ``JournalRecord/runFinished`` (its removal was interrupted) are removed on the way.
    /// - Throws: only if the folder cannot be listed; a run that cannot be read is in
    ///   ``JournalContents/failures`` and left on disk.
    public func loadUnfinishedRuns() throws(JournalError) -> JournalContents {
        lock.lock()
        defer { lock.unlock() }
        try checkOpenLocked()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).filter(Self.isRunFileName).sorted()
        } catch {
            throw .ioFailed(path: path, operation: "list the folder", reason: "\(error)")
        }
        var contents = JournalContents(runs: [])
        for name in names {
            let filePath = path + "/" + name
            do throws(JournalError) {
                let bytes = try JournalPOSIX.readAll(filePath)
                switch try JournalFileFormat.read(bytes, path: filePath) {
                case .nothingAcknowledged(let diagnostic):
                    contents.diagnostics.append(diagnostic)
                    try removeLocked(name: name, path: filePath)
                case .run(let runID, let records, let validLength, let dropped):
                    if let dropped { contents.diagnostics.append(dropped) }
                    if records.last == .runFinished {
                        try removeLocked(name: name, path: filePath)
                        continue
                    }
                    runs[name] = RunFile(validLength: validLength, needsTruncation: validLength < bytes.count)
                    contents.runs.append(JournalRun(runID: runID, records: records))
                }
            } catch {
                runs[name] = runs[name] ?? RunFile()
                contents.failures.append(error)
            }
        }
        contents.runs.sort { $0.runID < $1.runID }
        return contents
    }

    /// Removes the run `runID`'s file, and flushes the folder. Removing a run that is not there is
    /// no error.
    public func removeRun(_ runID: String) throws(JournalError) {
        lock.lock()
        defer { lock.unlock() }
        try checkOpenLocked()
        let name = Self.fileName(runID)
        try removeLocked(name: name, path: path + "/" + name)
    }

    /// The name of the run `runID`'s file in the folder (see the type's documentation).
    static func fileName(_ runID: String) -> String {
        var message = Array("OresRedux.RunJournalFile.v1".utf8)
        message.append(0)
        message.append(contentsOf: runID.utf8)
        return "run-" + SHA256.hex(SHA256.digest(message).prefix(16)) + ".journal"
    }

    private static func isRunFileName(_ name: String) -> Bool {
        name.hasPrefix("run-") && name.hasSuffix(".journal") && name.utf8.count == 4 + 32 + 8
    }

    // MARK: Under the lock

    /// Writes the header and the first frame of a new run's file, flushes it and the folder. On
    /// failure, no file is left.
    private func createRun(_ runID: String, name: String, path filePath: String, firstFrame: [UInt8])
        throws(JournalError)
    {
        let bytes = try JournalFileFormat.header(runID: runID, path: filePath) + firstFrame
        let descriptor = open(filePath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(FileProtection.fileMode))
        guard descriptor >= 0 else { throw JournalPOSIX.error(errno, path: filePath, operation: "create") }
        var created = false
        defer {
            closeDescriptor(descriptor)
            if !created {
                unlink(filePath)
                try? JournalPOSIX.syncDirectory(path)
            }
        }
        try Self.protect(filePath)
        try write(bytes, to: descriptor, at: 0, path: filePath)
        let code = io.sync(descriptor)
        guard code == 0 else { throw JournalPOSIX.error(code, path: filePath, operation: "flush") }
        try JournalPOSIX.syncDirectory(path)
        created = true
        runs[name] = RunFile(validLength: bytes.count)
    }

    /// Appends `frame` to an existing run file, after reading it if this journal has not yet, and
    /// cutting off a torn tail. On failure the file is cut back to its valid length.
    private func appendLocked(_ frame: [UInt8], to filePath: String, name: String, file: RunFile, runID: String)
        throws(JournalError)
    {
        var file = file
        let descriptor = open(filePath, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw JournalPOSIX.error(errno, path: filePath, operation: "open") }
        defer { closeDescriptor(descriptor) }
        if file.validLength == nil {
            let bytes = try JournalPOSIX.readAll(filePath)
            switch try JournalFileFormat.read(bytes, path: filePath) {
            case .nothingAcknowledged:
                // Nothing in it was ever acknowledged: start the file again.
                let header = try JournalFileFormat.header(runID: runID, path: filePath)
                try JournalPOSIX.truncate(descriptor, to: 0, path: filePath)
                try write(header, to: descriptor, at: 0, path: filePath)
                file = RunFile(validLength: header.count, needsTruncation: false)
            case .run(let storedRunID, _, let validLength, _):
                guard storedRunID == runID else {
                    throw .corruptRecord(
                        path: filePath, offset: 20, reason: "the file belongs to run \(storedRunID), not \(runID)")
                }
                file = RunFile(validLength: validLength, needsTruncation: validLength < bytes.count)
            }
            runs[name] = file
        }
        guard let validLength = file.validLength else { return }
        if file.needsTruncation {
            try JournalPOSIX.truncate(descriptor, to: validLength, path: filePath)
            runs[name]?.needsTruncation = false
        }
        do throws(JournalError) {
            try write(frame, to: descriptor, at: validLength, path: filePath)
            let code = io.sync(descriptor)
            guard code == 0 else { throw JournalPOSIX.error(code, path: filePath, operation: "flush") }
        } catch {
            // Keep what was recorded readable: cut the partial record off now, or before the next append.
            do throws(JournalError) {
                try JournalPOSIX.truncate(descriptor, to: validLength, path: filePath)
            } catch _ {
                runs[name]?.needsTruncation = true
            }
            throw error
        }
        runs[name] = RunFile(validLength: validLength + frame.count, needsTruncation: false)
    }

    /// Writes all of `bytes` at `offset`, going on after a short write; fails on the first error.
    private func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int, path filePath: String)
        throws(JournalError)
    {
        var done = 0
        while done < bytes.count {
            guard let position = off_t(exactly: offset + done) else {
                throw .ioFailed(path: filePath, operation: "write", reason: "offset \(offset + done) out of range")
            }
            let (count, code) = bytes.withUnsafeBytes { buffer in
                io.write(descriptor, UnsafeRawBufferPointer(rebasing: buffer[done...]), position)
            }
            if count < 0 {
                if code == EINTR { continue }
                throw JournalPOSIX.error(code, path: filePath, operation: "write")
            }
            guard count > 0 else {
                throw .ioFailed(path: filePath, operation: "write", reason: "the system wrote nothing")
            }
            done += count
        }
    }

    private func removeLocked(name: String, path filePath: String) throws(JournalError) {
        if unlink(filePath) != 0, errno != ENOENT {
            throw JournalPOSIX.error(errno, path: filePath, operation: "remove")
        }
        runs[name] = nil
        try JournalPOSIX.syncDirectory(path)
    }

    // MARK: Creating the folder

    /// Creates the folder at `path` with mode `0700` unless it exists (its parents with the
    /// default mode), and flushes its parent.
    private static func createFolder(_ path: String) throws(JournalError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .notWritable(path: path, reason: "it is a file, not a folder")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(path: parent, reason: "cannot create the folder: \(error)")
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw JournalPOSIX.error(errno, path: path, operation: "create the folder")
        }
        // The process's umask may have taken bits away, never added: 0700 is set explicitly anyway.
        guard chmod(path, 0o700) == 0 else { throw JournalPOSIX.error(errno, path: path, operation: "chmod 0700") }
        try protect(path)
        try JournalPOSIX.syncDirectory(parent)
    }

    /// Gives `path` the strictest protection that still lets a relaunch in the background read it.
    private static func protect(_ path: String) throws(JournalError) {
        if let reason = FileProtection.protect(path) {
            throw .ioFailed(path: path, operation: "set the file protection", reason: reason)
        }
    }
}

/// `close(2)`, named apart from ``FileRunJournal/close()``, which would shadow it inside the class.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
