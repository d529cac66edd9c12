import Foundation
import Testing

@testable import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// "On disk" is `FileSync.toDisk` (F_FULLFSYNC on Darwin, fsync elsewhere), and the journal and
/// state persistence flush through it exactly where the durable runs guide's table says.
@Suite struct FileSyncTests {
    /// A file's device and inode, as `FileSync.Call` names it.
    struct Identity: Equatable {
        var device: dev_t
        var inode: ino_t
    }

    static func identity(_ path: String) throws -> Identity {
        var status = stat()
        try #require(stat(path, &status) == 0, "stat \(path)")
        return Identity(device: status.st_dev, inode: status.st_ino)
    }

    /// The calls among `calls` that flushed `file`, each checked to have used this platform's way.
    static func flushes(of file: Identity, in calls: [FileSync.Call]) -> [FileSync.Call] {
        let mine = calls.filter { Identity(device: $0.device, inode: $0.inode) == file }
        for call in mine {
            #expect(call.result == 0)
            #if canImport(Darwin)
                #expect(call.method != .fsync, "Darwin asks for F_FULLFSYNC first")
            #else
                #expect(call.method == .fsync)
            #endif
        }
        return mine
    }

    @Test("the seam flushes a file and answers the errno of a failure")
    func seam() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("oresredux-sync-\(UUID().uuidString)")
        try Data("x".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDWR | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let (result, calls) = FileSync.watching { FileSync.toDisk(descriptor) }
        #expect(result == 0)
        #expect(Self.flushes(of: try Self.identity(url.path), in: calls).count == 1)
        #expect(FileSync.toDisk(-1) == EBADF)
    }

    @Test(
        "the journal flushes the parent when it creates its folder, a new run's file and then the folder, each record, and the folder when a run leaves"
    )
    func journalFlushes() throws {
        try withJournalFolder { folder in
            let parent = try Self.identity(folder.deletingLastPathComponent().path)
            let (journal, opening) = try FileSync.watching { try FileRunJournal(folder: folder) }
            #expect(Self.flushes(of: parent, in: opening).count == 1, "the folder's creation")
            let folderIdentity = try Self.identity(folder.path)

            let start = JournalRecord.runStarted(runID: "r", graph: "g", parameters: Data([1]), fingerprint: "f")
            let ((), creating) = try FileSync.watching { try journal.append(start, to: "r") }
            let file = try Self.identity(runFile("r", in: folder))
            #expect(Self.flushes(of: file, in: creating).count == 1, "the new run's file")
            #expect(Self.flushes(of: folderIdentity, in: creating).count == 1, "the folder, for the new file")
            let fileAt = try #require(creating.firstIndex { Identity(device: $0.device, inode: $0.inode) == file })
            let folderAt = try #require(
                creating.firstIndex { Identity(device: $0.device, inode: $0.inode) == folderIdentity })
            #expect(fileAt < folderAt, "the file, then the folder")

            let attempt = JournalRecord.attemptStarted(
                node: "n", attempt: 1, key: IdempotencyKey(runID: "r", node: "n"))
            let ((), appending) = try FileSync.watching { try journal.append(attempt, to: "r") }
            #expect(Self.flushes(of: file, in: appending).count == 1, "each record")

            let ((), removing) = try FileSync.watching { try journal.removeRun("r") }
            #expect(Self.flushes(of: folderIdentity, in: removing).count == 1, "the folder, for the removed file")
            journal.close()
        }
    }

    @Test("cutting off a torn tail is flushed before the next record")
    func tornTailFlushes() throws {
        try withJournalFolder { folder in
            let first = try FileRunJournal(folder: folder)
            let start = JournalRecord.runStarted(runID: "r", graph: "g", parameters: Data([1]), fingerprint: "f")
            try first.append(start, to: "r")
            first.close()
            let path = runFile("r", in: folder)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0x01, 0x02, 0x03]))  // a record cut short
            try handle.close()

            let second = try FileRunJournal(folder: folder)
            let attempt = JournalRecord.attemptStarted(
                node: "n", attempt: 1, key: IdempotencyKey(runID: "r", node: "n"))
            let ((), appending) = try FileSync.watching { try second.append(attempt, to: "r") }
            #expect(
                Self.flushes(of: try Self.identity(path), in: appending).count == 2, "the cut, then the record")
            #expect(try second.loadUnfinishedRuns().runs == [JournalRun(runID: "r", records: [start, attempt])])
            second.close()
        }
    }

    @Test("a saved state's file is flushed before it is renamed into place, and its folder after")
    func statePersistenceFlushes() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-sync-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("state.json")

        let ((), calls) = try FileSync.watching { try StatePersistence.writeAtomically(Data("{}".utf8), to: url) }
        let file = try Self.identity(url.path)  // the temporary file's inode, renamed
        let folder = try Self.identity(directory.path)
        #expect(Self.flushes(of: file, in: calls).count == 1)
        #expect(Self.flushes(of: folder, in: calls).count == 1)
        let fileAt = try #require(calls.firstIndex { Identity(device: $0.device, inode: $0.inode) == file })
        let folderAt = try #require(calls.firstIndex { Identity(device: $0.device, inode: $0.inode) == folder })
        #expect(fileAt < folderAt, "the file, then the folder")
    }
}
