// The C library; this file needs fsync, and fcntl's F_FULLFSYNC on Darwin.
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
    #error("OresRedux: FileSync needs POSIX fsync; Windows is not supported yet")
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc)")
#endif

/// What the library means by "on disk": the one function through which the journal and state
/// persistence flush a file or a folder, so each platform's meaning is decided in one place.
///
/// - Darwin (macOS, iOS, tvOS, watchOS, visionOS): `fcntl(F_FULLFSYNC)`, which asks the drive to
///   write its cache to permanent storage. There `fsync` only hands the data to the drive, whose
///   cache a power loss can lose, records the journal reported as written included. A volume that
///   refuses `F_FULLFSYNC` (network volumes among them; they answer `ENOTSUP` or the like) gets
///   `fsync` instead, as SQLite does: the best that volume offers.
/// - Elsewhere (Linux): `fsync`, which on Linux file systems with write barriers (the default of
///   ext4, XFS and Btrfs) also flushes the drive's cache.
///
/// The durable runs guide's table says the same; keep them together.
enum FileSync {
    /// How a call of ``toDisk(_:)`` flushed, for tests.
    enum Method: Equatable, Sendable {
        /// `fcntl(F_FULLFSYNC)` succeeded (Darwin).
        case fullSync
        /// `fcntl(F_FULLFSYNC)` failed with this `errno` code, so `fsync` was called (Darwin).
        case fsyncAfterFullSyncFailed(Int32)
        /// `fsync`: every platform but Darwin.
        case fsync
    }

    /// One call of ``toDisk(_:)``, as a test sees it: which file (device and inode, the same for
    /// every path and descriptor of it) and how it was flushed.
    struct Call: Equatable, Sendable {
        var device: dev_t
        var inode: ino_t
        var method: Method
        /// 0, or the `errno` code the flush failed with.
        var result: Int32
    }

    /// The calls each ``watching(_:)`` in progress has seen; empty (and cheap to check) otherwise.
    private static let watchers = LockedValue<[Int: [Call]]>([:])
    private static let nextWatcher = LockedValue(0)

    /// Flushes `descriptor` (a file, or a folder after a file in it was created, renamed or
    /// removed) to the storage device, as said above. Returns 0, or the `errno` code of the failure.
    static func toDisk(_ descriptor: Int32) -> Int32 {
        let method: Method
        var result: Int32 = 0
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 {
                method = .fullSync
            } else {
                method = .fsyncAfterFullSyncFailed(errno)
                if fsync(descriptor) != 0 { result = errno }
            }
        #else
            method = .fsync
            if fsync(descriptor) != 0 { result = errno }
        #endif
        if watchers.withLock({ !$0.isEmpty }) {
            note(descriptor, method: method, result: result)
        }
        return result
    }

    /// Runs `body` and returns its result with every call of ``toDisk(_:)`` made meanwhile, on any
    /// thread (other tests' calls included: look for your own files' device and inode).
    static func watching<T>(_ body: () throws -> T) rethrows -> (T, [Call]) {
        let id = nextWatcher.withLock { next in
            defer { next += 1 }
            return next
        }
        watchers.withLock { $0[id] = [] }
        defer { _ = watchers.withLock { $0.removeValue(forKey: id) } }
        let value = try body()
        return (value, watchers.withLock { $0[id] ?? [] })
    }

    private static func note(_ descriptor: Int32, method: Method, result: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        let call = Call(device: status.st_dev, inode: status.st_ino, method: method, result: result)
        watchers.withLock { watchers in
            for id in watchers.keys { watchers[id]?.append(call) }
        }
    }
}
