// The C library; this file needs POSIX threads (pthread_mutex), which Windows does not have.
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
    #error("OresRedux: Lock needs POSIX threads (pthread_mutex); Windows is not supported yet")
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc)")
#endif

/// A pthread mutex owned by the object that stores it.
///
/// Why pthread and not `Synchronization.Mutex`: on Linux, ThreadSanitizer does not see a contended
/// `Mutex` synchronise (it waits on a futex directly) and reports races that are not there, while
/// pthread mutexes are intercepted.
///
/// The lock is `~Copyable`: exactly one owner destroys it, and it never moves after `init`
/// because the mutex itself lives on the heap.
@usableFromInline
// Why this is safe to share: the only stored property points at a pthread mutex, whose whole purpose is to be
// used from several threads at once; it is created in init and destroyed only in deinit.
struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// - Parameter recursive: whether the thread that holds the lock may take it again (the store's
    ///   state lock is recursive: code a reducer calls may take it again, such as a run's `cancel()`).
    init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        }
        let result = pthread_mutex_init(mutex, &attributes)
        precondition(result == 0, "OresRedux: pthread_mutex_init failed with \(result)")
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Takes the lock if no other thread holds it (a recursive lock its holder may take again);
    /// returns whether it did. Never waits.
    @inlinable
    func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    @inlinable
    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    @inlinable
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value reachable only through a lock: the thin shell for small pieces of shared state.
///
/// Copies share one value and one lock, as references to one object would.
// Why this is safe to share: the value is read and written only inside `withLock`, under the mutex
// stored beside it.
package struct LockedValue<Value>: @unchecked Sendable {
    private let storage: Storage

    /// - Parameter value: evaluated once, into the value's place: a large value is not copied there.
    package init(_ value: @autoclosure () -> Value) {
        storage = Storage.make(value)
    }

    /// The same for every copy, and for no other `LockedValue` while this one lives.
    package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value and its mutex in one allocation: the value is the buffer's header, the mutex its
    /// one element. A buffer's memory never moves, so the mutex keeps the address it was
    /// initialised at; reached through the buffer's pointers, the value needs no runtime
    /// exclusivity check (the mutex is what keeps its accesses apart).
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: () -> Value) -> Storage {
            let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value() }, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                let result = pthread_mutex_init(mutex, nil)
                precondition(result == 0, "OresRedux: pthread_mutex_init failed with \(result)")
            }
            return storage
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}

/// A pthread condition variable, used with one ``Lock``: a thread that must wait for the store's
/// pipeline blocks on it instead of spinning, and ThreadSanitizer sees it synchronise.
@usableFromInline
// Why this is safe to share: the only stored property points at a pthread condition, made to be
// waited on and signalled from several threads; it is created in init and destroyed only in deinit.
struct Condition: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .allocate(capacity: 1)
        let result = pthread_cond_init(condition, nil)
        precondition(result == 0, "OresRedux: pthread_cond_init failed with \(result)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Releases `lock` (which the caller holds), waits for a signal, and takes `lock` again. May
    /// return without a signal: check the awaited condition in a loop.
    @inlinable
    func wait(releasing lock: borrowing Lock) {
        pthread_cond_wait(condition, lock.mutex)
    }

    /// Wakes one waiting thread.
    @inlinable
    func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiting thread.
    @inlinable
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// Which thread runs this code: how the store's pipeline tells its applier from other threads.
@usableFromInline
typealias ThreadID = pthread_t

/// The calling thread's id.
@inlinable
func currentThreadID() -> ThreadID {
    pthread_self()
}
