#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Android)
    import Android
#else
    #error("OresRedux needs POSIX threads (pthread thread-local keys) on this platform")
#endif

/// Marks the code that must be pure while it runs on this thread: a reducer, and a graph node's
/// `make` or fallback closure. A dispatch made from inside is dropped with a ``StoreDiagnostic``
/// instead of re-entering the store in the middle of an update.
///
/// A thread-local mark rather than a flag of the store: a `make` closure of an async node runs on a
/// task, outside the store's pipeline, and a reducer may capture another store. The marked code is
/// synchronous, so it starts and ends on one thread.
@usableFromInline
enum PureCall {
    /// What is running; its description names it in the diagnostic.
    @usableFromInline
    enum Context: Int, CustomStringConvertible {
        case reducer = 1, makeClosure, fallbackClosure

        @usableFromInline
        var description: String {
            switch self {
            case .reducer: "a reducer"
            case .makeClosure: "a graph node's make closure"
            case .fallbackClosure: "a graph node's fallback closure"
            }
        }
    }

    /// The thread-local slot. It holds a `Context` raw value as a pointer-sized tag; no memory is
    /// ever read through it.
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "OresRedux: pthread_key_create failed with \(result)")
        return key
    }()

    /// What pure code this thread is running, if any.
    @inlinable
    static var current: Context? {
        Context(rawValue: Int(bitPattern: pthread_getspecific(key)))
    }

    /// Runs `body` marked as `context`.
    @inlinable
    static func run<T>(_ context: Context, _ body: () throws -> T) rethrows -> T {
        let key = key  // one lazy-global check, not three
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeMutableRawPointer(bitPattern: context.rawValue))
        defer { pthread_setspecific(key, outer) }
        return try body()
    }
}
