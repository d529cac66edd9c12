import Foundation
import Testing

@testable import OresRedux
@testable import OresReduxTesting

/// Saving a store's state after changes (debounced, atomic) and restoring it at the next launch.
@Suite struct StatePersistenceTests {
    struct Settings: Codable, Equatable, Sendable {
        var theme = "light"
        var fontSize = 12
    }
    struct AppState: Codable, Equatable, Sendable {
        var count = 0
        var settings = Settings()
    }
    struct Increment: Action {}
    struct SetTheme: Action { let theme: String }

    static let reducer = Reducer<AppState>.combine(
        .on(Increment.self) { state, _ in state.count += 1 },
        .on(SetTheme.self) { $0.settings.theme = $1.theme }
    )

    /// A fresh directory, removed when `body` returns.
    func inTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-persistence-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// A writer that forwards to the atomic writer and announces each write on `written`.
    struct CountingWriter {
        let written: AsyncStream<Data>
        let count = LockedValue(0)
        let writer: StatePersistence.Writer

        init() {
            let (stream, continuation) = AsyncStream<Data>.makeStream()
            let count = self.count
            written = stream
            writer = { data, url in
                try StatePersistence.writeAtomically(data, to: url)
                count.withLock { $0 += 1 }
                continuation.yield(data)
            }
        }

        var writes: Int { count.withLock { $0 } }
    }

    // MARK: Restoring

    @Test func savedStateRoundTrips() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(store: store, url: url)
            store.dispatch(Increment())
            store.dispatch(SetTheme(theme: "dark"))
            try persistence.flush()

            let (restored, error) = StatePersistence.restore(from: url, default: AppState())
            #expect(error == nil)
            #expect(restored == AppState(count: 1, settings: Settings(theme: "dark")))
            #expect(try StatePersistence.load(AppState.self, from: url) == store.state)
        }
    }

    @Test func corruptFileGivesTheErrorAndTheInitialState() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            try Data(#"{"count": 3, "settings": {"theme": "#.utf8).write(to: url)  // cut off mid-write

            let (restored, error) = StatePersistence.restore(from: url, default: AppState(count: 42))
            #expect(restored == AppState(count: 42))
            guard case .corrupt(let path, _) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(path == url.path)
            #expect(error?.description.hasPrefix("the saved state at \(url.path) is corrupt: ") == true)
            #expect(throws: PersistenceError.self) { try StatePersistence.load(AppState.self, from: url) }
        }
    }

    @Test func wrongShapeIsCorruptToo() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            try Data(#"{"count": "three"}"#.utf8).write(to: url)
            let (restored, error) = StatePersistence.restore(from: url, default: AppState())
            #expect(restored == AppState())
            if case .corrupt = error {} else { Issue.record("expected .corrupt, got \(String(describing: error))") }
        }
    }

    @Test func missingFileGivesTheInitialStateAndNoError() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("never-written.json")
            let (restored, error) = StatePersistence.restore(from: url, default: AppState(count: 7))
            #expect(restored == AppState(count: 7))
            #expect(error == nil)
            #expect(throws: PersistenceError.missing(path: url.path)) {
                try StatePersistence.load(AppState.self, from: url)
            }
        }
    }

    // MARK: Debounce

    @Test func aBurstOfDispatchesIsOneTimedWriteOfTheFinalState() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: Self.reducer, options: StoreOptions(clock: clock))
            let counting = CountingWriter()
            let persistence = StatePersistence(store: store, url: url, debounce: .seconds(1), writer: counting.writer)

            for _ in 0..<1000 { store.dispatch(Increment()) }
            try await clock.waitForSleepers(1)
            #expect(counting.writes == 0)

            await clock.advance(by: .seconds(1))
            var written = counting.written.makeAsyncIterator()
            let data = await written.next()
            #expect(counting.writes == 1)
            #expect(try JSONDecoder().decode(AppState.self, from: data ?? Data()) == AppState(count: 1000))
            #expect(try StatePersistence.load(AppState.self, from: url) == store.state)

            // The next burst waits for its own interval: one more write, of the newest state.
            for _ in 0..<500 { store.dispatch(Increment()) }
            try await clock.waitForSleepers(1)
            #expect(counting.writes == 1)
            await clock.advance(by: .seconds(1))
            _ = await written.next()
            #expect(counting.writes == 2)
            #expect(try StatePersistence.load(AppState.self, from: url) == AppState(count: 1500))
            _ = persistence
        }
    }

    @Test func flushWritesTheFinalStateNowAndCancelsTheTimer() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let counting = CountingWriter()
            let persistence = StatePersistence(
                store: store, url: url, debounce: .seconds(1), clock: clock,
                writer: counting.writer)

            for _ in 0..<1000 { store.dispatch(Increment()) }
            try await clock.waitForSleepers(1)
            try persistence.flush()

            #expect(counting.writes == 1)
            #expect(clock.sleeperCount == 0)  // the timer is cancelled: no second write comes
            #expect(try StatePersistence.load(AppState.self, from: url) == store.state)
            try persistence.flush()  // nothing changed since
            #expect(counting.writes == 1)
        }
    }

    @Test func theStateAtStartIsNotWrittenUntilItChanges() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let clock = VirtualClock()
            let store = Store(initialState: AppState(count: 5), reducer: Self.reducer)
            let counting = CountingWriter()
            let persistence = StatePersistence(store: store, url: url, clock: clock, writer: counting.writer)
            try persistence.flush()
            #expect(counting.writes == 0)
            #expect(clock.sleeperCount == 0)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aSelectedPartIsSavedAlone() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("settings.json")
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(store: store, url: url, select: \.settings)
            store.dispatch(SetTheme(theme: "dark"))
            store.dispatch(Increment())
            try persistence.flush()

            let (settings, error) = StatePersistence.restore(from: url, default: Settings())
            #expect(error == nil)
            #expect(settings == Settings(theme: "dark"))
        }
    }

    @Test func stopEndsSavingWithoutWriting() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let clock = VirtualClock()
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let counting = CountingWriter()
            let persistence = StatePersistence(store: store, url: url, clock: clock, writer: counting.writer)
            store.dispatch(Increment())
            try await clock.waitForSleepers(1)
            persistence.stop()
            #expect(clock.sleeperCount == 0)
            store.dispatch(Increment())
            #expect(clock.sleeperCount == 0)
            try persistence.flush()
            #expect(counting.writes == 0)
        }
    }

    // Plain threads: the dispatching loops and the file writes would hold cooperative-pool threads.
    @Test func dispatchesFromManyThreadsEndInTheFileAfterFlush() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(store: store, url: url, debounce: .milliseconds(1))
            await onThreads(5) { thread in
                if thread < 4 {
                    for _ in 0..<250 { store.dispatch(Increment()) }
                } else {
                    for _ in 0..<20 { try? persistence.flush() }
                }
            }
            try persistence.flush()
            #expect(try StatePersistence.load(AppState.self, from: url) == AppState(count: 1000))
        }
    }

    // MARK: Atomic writes

    @Test func atomicWritesReplaceTheFileAndLeaveNoTemporaryFile() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            try StatePersistence.writeAtomically(Data("first".utf8), to: url)
            try StatePersistence.writeAtomically(Data("second".utf8), to: url)
            #expect(try Data(contentsOf: url) == Data("second".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"])

            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(store: store, url: url)
            for _ in 0..<10 {
                store.dispatch(Increment())
                try persistence.flush()
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"])
        }
    }

    @Test("the saved state is readable by its owner only (0600), like the journal beside it")
    func theSavedFileIsPrivate() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("state.json")
            try StatePersistence.writeAtomically(Data("secret".utf8), to: url)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func aFailedWriteThrowsFromFlushAndLeavesNothingBehind() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("missing-folder/state.json")
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(store: store, url: url)
            store.dispatch(Increment())
            do {
                try persistence.flush()
                Issue.record("a write into a missing folder succeeded")
            } catch let error as PersistenceError {
                guard case .writeFailed(let path, _) = error else {
                    Issue.record("expected .writeFailed, got \(error)")
                    return
                }
                #expect(path == url.path)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

            // The change stays pending: once the folder exists, the next flush writes it.
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try persistence.flush()
            #expect(try StatePersistence.load(AppState.self, from: url) == AppState(count: 1))
        }
    }

    @Test func aFailedTimedWriteGoesToOnError() async throws {
        try await inTemporaryDirectory { (directory: URL) async throws in
            let url = directory.appendingPathComponent("missing-folder/state.json")
            let clock = VirtualClock()
            let (errors, continuation) = AsyncStream<PersistenceError>.makeStream()
            let store = Store(initialState: AppState(), reducer: Self.reducer)
            let persistence = StatePersistence(
                store: store, url: url, clock: clock,
                onError: { continuation.yield($0) })
            store.dispatch(Increment())
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(1))
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            if case .writeFailed = error {
            } else {
                Issue.record("expected .writeFailed, got \(String(describing: error))")
            }
            _ = persistence
        }
    }
}
