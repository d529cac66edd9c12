import Foundation

// The C library; this file needs POSIX open, write and rename, which Windows does not have.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(WASILibc)
    import WASILibc
#elseif os(Windows)
    #error(
        "OresRedux: StatePersistence.writeAtomically needs POSIX open, fsync and rename; Windows is not supported yet")
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc)")
#endif

extension StatePersistence {
    /// Replaces the file at `url` with `data` atomically: readers, and the file after a crash or
    /// power loss, see either the old contents or the new, never a mix or half a file.
    ///
    /// It writes a hidden temporary file in the same directory (`.<name>.<random>.tmp`), flushes it
    /// to disk (`F_FULLFSYNC` on Apple platforms, `fsync` elsewhere: see the table in
    /// <doc:RunsThatSurviveARelaunch>), then renames it over `url` (a rename within one directory is
    /// atomic) and flushes the folder. On failure the
    /// temporary file is removed and `url` is left as it was. The new file is its owner's only, like
    /// the durable journal: mode `0600`, and on iOS, tvOS, watchOS and visionOS the protection
    /// `completeUntilFirstUserAuthentication` (unreadable after a restart until the first unlock).
    /// - Throws: ``PersistenceError/writeFailed(path:description:)`` with the system's reason.
    public static func writeAtomically(_ data: Data, to url: URL) throws(PersistenceError) {
        let path = url.path
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp", isDirectory: false).path
        func failure(_ step: String, code: Int32? = nil) -> PersistenceError {
            .writeFailed(path: path, description: "\(step): \(String(cString: strerror(code ?? errno)))")
        }

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(FileProtection.fileMode))
        guard descriptor >= 0 else { throw failure("cannot create a temporary file") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        if let reason = FileProtection.protect(temporary) {
            close(descriptor)
            throw .writeFailed(path: path, description: "cannot set the file protection: \(reason)")
        }

        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += result
            }
            return true
        }
        guard written else {
            let error = failure("cannot write the temporary file")
            close(descriptor)
            throw error
        }
        let synced = FileSync.toDisk(descriptor)
        guard synced == 0 else {
            let error = failure("cannot flush the temporary file to disk", code: synced)
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure("cannot close the temporary file") }
        guard rename(temporary, path) == 0 else { throw failure("cannot rename the temporary file") }
        renamed = true

        // Make the rename itself durable; best effort, the file is already complete and in place.
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = FileSync.toDisk(directory)
            close(directory)
        }
    }
}
