import Foundation

// The C library; the journal needs POSIX open, pwrite, ftruncate and flock (flushes: FileSync).
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif os(Windows)
    #error("OresRedux: FileRunJournal needs POSIX open, pwrite, fsync and flock; Windows is not supported yet")
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android)")
#endif

/// The two system calls through which a ``FileRunJournal`` writes its records: the seam where a
/// test makes the Nth write fail with `ENOSPC`, or write only part of its bytes.
struct JournalFileIO: Sendable {
    /// Writes `bytes` at `offset` of `descriptor` (`pwrite`): the number of bytes written, which may
    /// be fewer than asked, or `-1` and the `errno` code.
    var write: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: off_t) -> (Int, Int32)
    /// Flushes `descriptor` to stable storage (``FileSync/toDisk(_:)``: `F_FULLFSYNC` on Darwin,
    /// `fsync` elsewhere): 0, or the `errno` code.
    var sync: @Sendable (_ descriptor: Int32) -> Int32

    /// The real system calls.
    static let system = JournalFileIO(
        write: { descriptor, bytes, offset in
            let result = pwrite(descriptor, bytes.baseAddress, bytes.count, offset)
            return result < 0 ? (-1, errno) : (result, 0)
        },
        sync: { descriptor in FileSync.toDisk(descriptor) })
}

/// Small POSIX helpers of the journal; each failure is a ``JournalError`` naming the path and the
/// system's reason.
enum JournalPOSIX {
    /// The error for the system error `code` from `operation` on `path`: a permission or read-only
    /// volume when writing is ``JournalError/notWritable(path:reason:)``, a full volume
    /// ``JournalError/noSpace(path:reason:)``, anything else ``JournalError/ioFailed(path:operation:reason:)``.
    static func error(_ code: Int32, path: String, operation: String, writing: Bool = true) -> JournalError {
        let reason = "\(operation): \(String(cString: strerror(code)))"
        switch code {
        case EACCES where writing, EPERM where writing, EROFS where writing:
            return .notWritable(path: path, reason: reason)
        case ENOSPC, EDQUOT: return .noSpace(path: path, reason: reason)
        default: return .ioFailed(path: path, operation: operation, reason: String(cString: strerror(code)))
        }
    }

    /// Flushes the directory at `path`, so that a file created or removed in it stays so after a
    /// power loss.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, path: path, operation: "open the folder", writing: false) }
        defer { close(descriptor) }
        let code = FileSync.toDisk(descriptor)
        guard code == 0 else { throw error(code, path: path, operation: "flush the folder") }
    }

    /// The whole file at `path`.
    static func readAll(_ path: String) throws(JournalError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, path: path, operation: "open", writing: false) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(errno, path: path, operation: "read", writing: false)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Cuts the file open as `descriptor` at `path` back to `length` bytes and flushes it.
    static func truncate(_ descriptor: Int32, to length: Int, path: String) throws(JournalError) {
        guard let size = off_t(exactly: length) else {
            throw .ioFailed(path: path, operation: "truncate", reason: "length \(length) out of range")
        }
        guard ftruncate(descriptor, size) == 0 else { throw error(errno, path: path, operation: "truncate") }
        let code = FileSync.toDisk(descriptor)
        guard code == 0 else { throw error(code, path: path, operation: "flush after truncating") }
    }
}
