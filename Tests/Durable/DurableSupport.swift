import Foundation
import Testing

@testable import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every call of a durable graph's async nodes (run, or answered by a stub), with the idempotency
/// key its context carried, in the order they were made.
final class CallLog: Sendable {
    private let calls = LockedValue<[(String, IdempotencyKey?)]>([])
    func append(_ name: String, _ key: IdempotencyKey?) { calls.withLock { $0.append((name, key)) } }
    var names: [String] { calls.withLock { $0.map(\.0) } }
    var keys: [IdempotencyKey?] { calls.withLock { $0.map(\.1) } }
}

/// A fresh folder under the temporary directory for one test, removed afterwards.
func withJournalFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let parent = FileManager.default.temporaryDirectory
        .appendingPathComponent("oresredux-journal-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: parent) }
    return try body(parent.appendingPathComponent("journal", isDirectory: true))
}

/// `withJournalFolder`, for an async body.
func withJournalFolderAsync(_ body: (URL) async throws -> Void) async throws {
    let parent = FileManager.default.temporaryDirectory
        .appendingPathComponent("oresredux-journal-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: parent) }
    try await body(parent.appendingPathComponent("journal", isDirectory: true))
}

/// The permission bits of the file or folder at `path`.
func mode(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// The path of the run `runID`'s file in `folder`.
func runFile(_ runID: String, in folder: URL) -> String {
    folder.appendingPathComponent(FileRunJournal.fileName(runID)).path
}

/// Records of every kind, for round trips.
let everyKindOfRecord: [JournalRecord] = [
    .runStarted(
        runID: "post-42", graph: "publishPost", parameters: Data("{\"photo\":\"p.jpg\"}".utf8),
        fingerprint: "upload>create>notify"),
    .attemptStarted(node: "upload", attempt: 1, key: IdempotencyKey(runID: "post-42", node: "upload")),
    .attemptEnded(node: "upload", attempt: 1, end: .failed(description: "URLError -1001: timed out")),
    .attemptStarted(node: "upload", attempt: 2, key: IdempotencyKey(runID: "post-42", node: "upload")),
    .attemptEnded(node: "upload", attempt: 2, end: .response(Data("https://cdn/p.jpg".utf8))),
    .attemptEnded(node: "token", attempt: Int.max, end: .responseNotJournaled),
    .attemptStarted(
        node: "post", attempt: 1, key: IdempotencyKey(runID: "post-42", node: "post"), inDoubt: .failInDoubt),
    .attemptEnded(node: "post", attempt: 1, end: .failedInDoubt(key: IdempotencyKey(runID: "post-42", node: "post"))),
    .attemptStarted(node: "check", attempt: 1, key: IdempotencyKey(rawValue: "k"), inDoubt: .ask),
    .attemptEnded(node: "check", attempt: 1, end: .cancelled),
    .attemptStarted(node: "check", attempt: 2, key: IdempotencyKey(rawValue: "k"), inDoubt: .rerunWithSameKey),
    .attemptEnded(node: "check", attempt: 2, end: .notCalled),
    .syncApplied(node: "showPost", commitCount: UInt64.max),
    .runCancelled,
    .runFinished,
]

/// Write faults for ``FileRunJournal``'s seam: the next write can fail or stop halfway, the next
/// flush can fail; the counts say how often each was called.
final class WriteFaults: @unchecked Sendable {
    // @unchecked: every `var` is read and written only under `lock`.
    enum Fault {
        case error(Int32)
        /// Writes half the bytes for real and reports that; the call after it fails with `ENOSPC`.
        case halfThenNoSpace
    }

    private let lock = NSLock()
    private var nextWrite: Fault?
    private var failNextWriteCall = false
    private var nextSync: Int32?

    func failNextWrite(_ fault: Fault) {
        lock.withLock { nextWrite = fault }
    }

    func failNextSync(_ code: Int32) {
        lock.withLock { nextSync = code }
    }

    var io: JournalFileIO {
        JournalFileIO(
            write: { descriptor, bytes, offset in
                let fault: Fault? = self.lock.withLock {
                    if self.failNextWriteCall {
                        self.failNextWriteCall = false
                        return .error(ENOSPC)
                    }
                    defer { self.nextWrite = nil }
                    return self.nextWrite
                }
                switch fault {
                case .error(let code)?:
                    return (-1, code)
                case .halfThenNoSpace?:
                    self.lock.withLock { self.failNextWriteCall = true }
                    return JournalFileIO.system.write(
                        descriptor, UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]), offset)
                case nil:
                    return JournalFileIO.system.write(descriptor, bytes, offset)
                }
            },
            sync: { descriptor in
                if let code = self.lock.withLock({
                    defer { self.nextSync = nil }; return self.nextSync
                }) {
                    return code
                }
                return JournalFileIO.system.sync(descriptor)
            })
    }
}

#if os(Linux)
    /// Runs `/bin/mount` or `/bin/umount` with `arguments`; the reason it failed, or nil. Linux only,
    /// like the tmpfs mounts it serves (and `Process`, which iOS does not have).
    func runMount(_ tool: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return "\(tool) could not start: \(error)" }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): "
                + String(decoding: output, as: UTF8.self)
        }
        return nil
    }
#endif

/// Mounts a fresh tmpfs of `options` on a new folder and runs `body` with it, then unmounts it; or
/// returns the reason it could not mount (not root, no permission), without running `body`.
func withTmpfs(options: String, _ body: (URL) throws -> Void) throws -> String? {
    #if os(Linux)
        let mountPoint = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-tmpfs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        if let reason = runMount("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint.path]) {
            return reason
        }
        defer { _ = runMount("/bin/umount", [mountPoint.path]) }
        try body(mountPoint)
        return nil
    #else
        return "tmpfs mounts are a Linux test"
    #endif
}
