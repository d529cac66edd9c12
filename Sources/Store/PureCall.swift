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

    /// The thread-local slot. It holds this thread's mark: a cell the thread owns, made on its first
    /// marked call and freed when the thread exits. Marking and unmarking write the cell, never the
    /// slot, so a reducer call costs one read of the slot (writing it costs several reads).
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { cell in free(cell) }
        precondition(result == 0, "OresRedux: pthread_key_create failed with \(result)")
        return key
    }()

    /// What pure code this thread is running, if any.
    @inlinable
    static var current: Context? {
        guard let cell = pthread_getspecific(key) else { return nil }
        return Context(rawValue: cell.load(as: Int.self))
    }

    /// Runs `body` marked as `context`.
    @inlinable
    static func run<T>(_ context: Context, _ body: () throws -> T) rethrows -> T {
        try Slot().thisThreadsMark.run(context, body)
    }

    /// The thread-local slot (``key``), as a value: a store keeps one, so that its dispatch reads
    /// the key as a field, where reading the lazy global runs its once-check every time.
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline let key: pthread_key_t

        @inlinable
        init() { key = PureCall.key }

        /// This thread's mark, made on the first call: a dispatch reads it once, both to refuse
        /// dispatching from pure code and to mark its reducer call, where two reads of the slot
        /// would cost more than the rest of the mark.
        @inlinable
        var thisThreadsMark: Mark {
            Mark(cell: pthread_getspecific(key) ?? newCell())
        }
    }

    /// One thread's mark: its cell, which only that thread reads and writes.
    @usableFromInline
    struct Mark {
        @usableFromInline let cell: UnsafeMutableRawPointer

        @inlinable
        init(cell: UnsafeMutableRawPointer) { self.cell = cell }

        /// What pure code the thread is running, if any.
        @inlinable
        var context: Context? { Context(rawValue: cell.load(as: Int.self)) }

        /// Runs `body` marked as `context`.
        @inlinable
        func run<T>(_ context: Context, _ body: () throws -> T) rethrows -> T {
            let outer = cell.load(as: Int.self)
            cell.storeBytes(of: context.rawValue, as: Int.self)
            defer { cell.storeBytes(of: outer, as: Int.self) }
            return try body()
        }
    }

    /// This thread's cell, unmarked: made once per thread.
    @usableFromInline
    static func newCell() -> UnsafeMutableRawPointer {
        guard let cell = malloc(MemoryLayout<Int>.size) else { fatalError("OresRedux: out of memory") }
        cell.storeBytes(of: 0, as: Int.self)
        let result = pthread_setspecific(key, cell)
        precondition(result == 0, "OresRedux: pthread_setspecific failed with \(result)")
        return cell
    }
}
