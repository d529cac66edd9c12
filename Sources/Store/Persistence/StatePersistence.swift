import Foundation

// The C library; this file needs POSIX stat, which Windows does not have.
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
    #error("OresRedux: StatePersistence needs POSIX stat; Windows is not supported yet")
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc)")
#endif

/// Saves a store's state (or a `Codable` part of it) to a file after it changes, and restores it at
/// the next launch.
///
/// ```swift
/// let url = URL.applicationSupportDirectory.appendingPathComponent("settings.json")
/// let (settings, error) = StatePersistence.restore(from: url, default: Settings())
/// if let error { log(error) }                       // unreadable, or corrupt (and kept aside)
/// let store = Store(initialState: AppState(settings: settings), reducer: appReducer)
/// let persistence = StatePersistence(store: store, url: url, select: \.settings)
/// // ... on the way out:
/// try persistence.flush()
/// ```
///
/// What it promises:
/// - **Debounced.** The first change after a write starts a timer of `debounce` on the clock; the
///   changes that follow are coalesced, and when the timer fires the *latest* state is written once.
///   So a burst of a thousand dispatches costs one write, and there is at most one timed write per
///   `debounce` interval. Only changes are written: the state it finds at start is not.
/// - **Atomic.** Each write goes to a temporary file in the same directory, then is renamed over the
///   file (``writeAtomically(_:to:)``): a crash never leaves half a file.
/// - **Ordered.** Writes never run at the same time and never go backwards: each one takes the newest
///   state at the moment it starts.
/// - **Cheap for the store.** The subscriber only keeps the newest state; selecting, encoding and
///   writing happen on the timer's task (or in ``flush()``), never inside `dispatch`.
///
/// - **Never loses a file.** ``restore(from:default:)`` keeps a file it cannot decode aside, named
///   with the date, before anything can overwrite it. A saved type that changes between versions of
///   the app reads older files through optional fields, or a version and a migration
///   (``init(store:url:version:select:debounce:clock:writer:onError:)``,
///   ``restore(from:default:version:migrate:)``); see <doc:Persistence>.
///
/// The state is encoded as JSON with sorted keys. A timed write that fails is reported to `onError`
/// and retried by the next write (timed or ``flush()``). Releasing this object or calling ``stop()``
/// stops saving *without* writing pending changes: call ``flush()`` first when they matter.
public final class StatePersistence: Sendable {
    /// Writes encoded state to a file. The default is ``writeAtomically(_:to:)``; tests pass a writer
    /// that counts calls, then forwards to it.
    public typealias Writer = @Sendable (_ data: Data, _ url: URL) throws -> Void

    /// The file the state is saved to.
    public let url: URL

    private let engine: any PersistenceEngineProtocol
    private let subscription: Subscription

    /// Saves the part of `store`'s state that `select` picks, to `url`, after it changes.
    /// - Parameters:
    ///   - store: the store to watch (through `store.subscribe`); it is not kept alive by this object.
    ///   - url: the file; its directory must exist.
    ///   - select: picks what to save from the state; called off the store's dispatch path, on the
    ///     latest state only.
    ///   - debounce: the longest a change waits before it is written, and the shortest time between
    ///     two timed writes; one second by default.
    ///   - clock: the clock the debounce sleeps on; `nil` (the default) uses the store's clock
    ///     (`StoreOptions.clock`), so a store with a `VirtualClock` debounces in virtual time.
    ///   - writer: writes the encoded state; ``writeAtomically(_:to:)`` by default.
    ///   - onError: receives failures of timed writes (``flush()`` throws its own instead); prints to
    ///     standard error by default.
    public init<State: Sendable, Saved: Encodable & Sendable>(
        store: Store<State>, url: URL,
        select: @escaping @Sendable (State) -> Saved,
        debounce: Duration = .seconds(1),
        clock: (any Clock<Duration>)? = nil,
        writer: @escaping Writer = { data, url in try StatePersistence.writeAtomically(data, to: url) },
        onError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError
    ) {
        self.url = url
        let engine = PersistenceEngine<State>(
            url: url, debounce: debounce, clock: clock ?? store.core.options.clock,
            encode: { state in Result { () throws(PersistenceError) in try StatePersistence.encode(select(state)) } },
            writer: writer, onError: onError)
        self.engine = engine
        self.subscription = store.subscribe { state in engine.stateChanged(state) }
    }

    /// Saves `store`'s whole state to `url` after it changes (see
    /// ``init(store:url:select:debounce:clock:writer:onError:)`` for the parameters).
    public convenience init<State: Sendable & Encodable>(
        store: Store<State>, url: URL,
        debounce: Duration = .seconds(1),
        clock: (any Clock<Duration>)? = nil,
        writer: @escaping Writer = { data, url in try StatePersistence.writeAtomically(data, to: url) },
        onError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError
    ) {
        self.init(
            store: store, url: url, select: { $0 }, debounce: debounce, clock: clock,
            writer: writer, onError: onError)
    }

    /// Saves `store`'s whole state together with its ``DurableMarks`` (which durable sync work the
    /// state holds), in one file, after it changes: the persistence of a store that runs durable
    /// graphs (see ``DurableRuns``). Read it back with ``restoreDurable(from:default:)``.
    ///
    /// The marks saved are always those of the state saved with them: a mark is set before its
    /// action is applied and read with the state after each commit, so a relaunch from this file
    /// applies every durable sync node exactly once into the state. The file is
    /// `{"durableMarks": …, "state": …}` (JSON, sorted keys); ``load(_:from:)`` and
    /// ``restore(from:default:)`` do not read it as a plain state. The other parameters are those of
    /// ``init(store:url:select:debounce:clock:writer:onError:)``.
    public init<State: Sendable & Encodable>(
        durableStore store: Store<State>, url: URL,
        debounce: Duration = .seconds(1),
        clock: (any Clock<Duration>)? = nil,
        writer: @escaping Writer = { data, url in try StatePersistence.writeAtomically(data, to: url) },
        onError: @escaping @Sendable (PersistenceError) -> Void = StatePersistence.printToStandardError
    ) {
        self.url = url
        let engine = PersistenceEngine<DurableSnapshot<State>>(
            url: url, debounce: debounce, clock: clock ?? store.core.options.clock,
            encode: { snapshot in Result { () throws(PersistenceError) in try StatePersistence.encode(snapshot) } },
            writer: writer, onError: onError,
            // A finished durable run leaves the journal only once a saved state holds its sync work.
            didWrite: { [marks = store.core.durableMarks] snapshot in marks.saved(through: snapshot.commitCount) })
        self.engine = engine
        let core = store.core
        // A durable run's `start` saves now rather than wait for the debounce when the run id's
        // previous run waits for a save to leave the journal.
        core.durableMarks.persistenceAttached { [weak engine] in
            guard let engine else { return "its StatePersistence was released" }
            return engine.writeNow()
        }
        // Called on the thread that committed, before anything else is applied: the marks and the
        // commit count read here are exactly those of `state`.
        self.subscription = store.subscribe { [core] state in
            engine.stateChanged(
                DurableSnapshot(state: state, durableMarks: core.durableMarks.marks(), commitCount: core.commitCount))
        }
    }

    deinit {
        subscription.cancel()
        engine.stop()
    }

    /// Writes the latest state now, if it changed since the last write, and cancels the pending timer.
    /// Returns once the file is written. Call it when the app goes to the background or quits.
    /// - Throws: ``PersistenceError/encodingFailed(description:)`` or
    ///   ``PersistenceError/writeFailed(path:description:)``; the change stays pending and the next
    ///   write tries again.
    public func flush() throws(PersistenceError) {
        try engine.writeIfChanged()
    }

    /// Stops saving: no further change is written and a pending timed write is cancelled. Does not
    /// write pending changes (call ``flush()`` first for that). Calling it again does nothing.
    public func stop() {
        subscription.cancel()
        engine.stop()
    }

    // MARK: Restoring

    /// Reads a state saved by this type. It only reads: a corrupt file stays where it is (see
    /// ``restore(from:default:)``, which keeps it aside).
    /// - Throws: ``PersistenceError/missing(path:)`` when there is no file (nor, on a first launch,
    ///   its directory); ``PersistenceError/unreadable(path:description:)`` when it cannot be read,
    ///   including when its directory cannot be searched (permissions, or a part of the path is not
    ///   a directory); ``PersistenceError/corrupt(path:description:)`` when it does not decode as
    ///   `type`.
    public static func load<T: Decodable>(_ type: T.Type = T.self, from url: URL) throws(PersistenceError) -> T {
        let data = try read(url)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .corrupt(path: url.path, description: String(describing: error))
        }
    }

    /// The saved state, or `initial` when there is none or it cannot be used; never throws, never
    /// crashes, never loses a file.
    ///
    /// A missing file is a first launch: `(initial, nil)`. An unreadable file gives `(initial,
    /// error)` and is left alone, so the app can start and still log what it could not read. A file
    /// that does not decode (damaged, or written by an older shape of `T` that `T` cannot read) is
    /// first moved aside with ``keepAside(_:at:)`` (`state.json` becomes
    /// `state.corrupt-2026-11-22-153000.json` beside it), so the next write cannot overwrite it; the
    /// error's description ends with where it was kept. To read older shapes instead, see
    /// <doc:Persistence> and ``restore(from:default:version:migrate:)``.
    public static func restore<T: Decodable>(from url: URL, default initial: T) -> (state: T, error: PersistenceError?)
    {
        restoring(url, initial) { () throws(PersistenceError) -> T in try load(T.self, from: url) }
    }

    /// The state and its ``DurableMarks`` saved by
    /// ``init(durableStore:url:debounce:clock:writer:onError:)``, or `initial` and no marks when
    /// there is none or it cannot be used; never throws, never crashes, never loses a file (a file
    /// that does not decode is kept aside, as ``restore(from:default:)`` does). Pass the marks to
    /// the store as ``StoreOptions/durableMarks``, then call ``DurableRuns/resumeUnfinished()``.
    /// ``DurableLaunch`` does all of that in the safe order: read the state only while the journal's
    /// lock is held, or another process may save its stale state over a run it finished meanwhile.
    public static func restoreDurable<T: Decodable>(
        from url: URL, default initial: T
    ) -> (state: T, durableMarks: DurableMarks, error: PersistenceError?) {
        let (saved, error) = restoring(url, DurableSnapshot(state: initial, durableMarks: DurableMarks())) {
            () throws(PersistenceError) -> DurableSnapshot<T> in try load(DurableSnapshot<T>.self, from: url)
        }
        return (saved.state, saved.durableMarks, error)
    }

    /// Runs `load`; a missing file gives `initial`, a corrupt one is kept aside first.
    static func restoring<T>(
        _ url: URL, _ initial: T, _ load: () throws(PersistenceError) -> T
    ) -> (state: T, error: PersistenceError?) {
        do {
            return (try load(), nil)
        } catch .missing {
            return (initial, nil)
        } catch .corrupt(let path, let description) {
            let kept: String
            do {
                kept = "the file was kept as \(try keepAside(url).path)"
            } catch {
                kept = "it could not be kept aside (\(error)), so the next write will replace it"
            }
            return (initial, .corrupt(path: path, description: "\(description); \(kept)"))
        } catch {
            return (initial, error)
        }
    }

    /// The file's bytes; `.missing` only when the file (or its directory) does not exist.
    static func read(_ url: URL) throws(PersistenceError) -> Data {
        let path = url.path
        var status = stat()
        if stat(path, &status) != 0 {
            let code = errno
            if code == ENOENT { throw .missing(path: path) }
            throw .unreadable(path: path, description: String(cString: strerror(code)))
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: path, description: String(describing: error))
        }
    }

    /// The default `onError`: one line on standard error.
    public static let printToStandardError: @Sendable (PersistenceError) -> Void = { error in
        FileHandle.standardError.write(Data("OresRedux: \(error.description)\n".utf8))
    }

    static func encode<T: Encodable>(_ value: T) throws(PersistenceError) -> Data {
        let encoder = JSONEncoder()
        // portability: sorted keys keep one platform's saves stable; Apple's Foundation may order
        // them differently from Linux's, so a file moved across decodes the same but differs in bytes.
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(value)
        } catch {
            throw .encodingFailed(description: String(describing: error))
        }
    }
}

/// A state and the durable marks it holds, as one file.
struct DurableSnapshot<State> {
    var state: State
    var durableMarks: DurableMarks
    /// The store's commit count of `state` (not saved: a count means nothing to another launch).
    var commitCount: UInt64 = 0

    private enum CodingKeys: String, CodingKey { case state, durableMarks }
}

extension DurableSnapshot: Sendable where State: Sendable {}
extension DurableSnapshot: Encodable where State: Encodable {}
extension DurableSnapshot: Decodable where State: Decodable {}
