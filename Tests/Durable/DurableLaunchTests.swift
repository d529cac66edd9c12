import Foundation
import Testing

@testable import OresRedux

// Two launches of one app at once (an app extension, a second window, a relaunch while the last
// process is still dying): the journal's lock is taken before the state is read, so the second
// launch never restores a state the first is about to replace.

private struct PostsState: Codable, Equatable, Sendable {
    var posted: [String] = []
    var notified: [String] = []
}

private struct PostParameters: Codable, Sendable {
    var run: String
}

/// What reached the "server", in order: the calls outlive every launch of a test.
private final class Server: Sendable {
    let calls = LockedValue<[String]>([])
    func receive(_ call: String) { calls.withLock { $0.append(call) } }
}

private struct Upload: AsyncAction {
    typealias State = PostsState
    let run: String
    let server: Server
    func run(_ context: ActionContext<PostsState>) async throws -> String {
        server.receive("upload \(run)")
        return "https://cdn.example/\(run).jpg"
    }
}

private struct Post: AsyncAction {
    typealias State = PostsState
    let run: String
    let server: Server
    func run(_ context: ActionContext<PostsState>) async throws -> Int {
        server.receive("post \(run)")
        return 7
    }
}

private struct Notify: AsyncAction {
    typealias State = PostsState
    let run: String
    let server: Server
    func run(_ context: ActionContext<PostsState>) async throws -> Int {
        server.receive("notify \(run)")
        return 3
    }
}

private struct Posted: Action { let run: String }
private struct Notified: Action { let run: String }

private let postsReducer = Reducer<PostsState>.combine(
    .on(Posted.self) { state, action in state.posted.append(action.run) },
    .on(Notified.self) { state, action in state.notified.append(action.run) })

/// upload → post (at most once) → posted; → notify → notified.
private func register(_ runs: DurableRuns<PostsState>, server: Server) {
    runs.register("publish", parameters: PostParameters.self) { parameters in
        let run = parameters.run
        var graph = ActionGraph<PostsState>()
        let upload = graph.run(Upload(run: run, server: server))
        graph.setLabel("upload", for: upload)
        graph.setDurable(upload, inDoubt: .rerunWithSameKey)
        let post = graph.run(after: upload) { _ in Post(run: run, server: server) }
        graph.setLabel("post", for: post)
        graph.setDurable(post, inDoubt: .failInDoubt)
        graph.setLabel("posted", for: graph.send(after: post) { _ in Posted(run: run) })
        let notify = graph.run(after: post) { _ in Notify(run: run, server: server) }
        graph.setLabel("notify", for: notify)
        graph.setDurable(notify, inDoubt: .rerunWithSameKey)
        graph.setLabel("notified", for: graph.send(after: notify) { _ in Notified(run: run) })
        return graph
    }
}

/// A folder for one test's journal and state, removed afterwards.
private struct AppFolder {
    let root: URL
    var journal: URL { root.appendingPathComponent("runs", isDirectory: true) }
    var state: URL { root.appendingPathComponent("state.json") }

    static func with(_ body: (AppFolder) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-launch-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await body(AppFolder(root: root))
    }

    func launch(server: Server, lockWait: Duration = .zero) async throws(DurableLaunchError) -> DurableLaunch<
        PostsState
    > {
        try await DurableLaunch.open(
            journalFolder: journal, stateURL: state, default: PostsState(), reducer: postsReducer,
            saveDebounce: .milliseconds(5), lockWait: lockWait
        ) { runs in
            register(runs, server: server)
        }
    }

    /// The state as saved on disk.
    func saved() throws -> PostsState {
        let (state, _, error) = StatePersistence.restoreDurable(from: state, default: PostsState())
        if let error { throw error }
        return state
    }
}

@Suite struct DurableLaunchTests {
    @Test("a second launch gets locked before it reads or writes anything")
    func secondLaunchIsLockedBeforeReading() async throws {
        try await AppFolder.with { folder in
            try await withDeadline(10, "a second launch on a held folder") {
                let server = Server()
                let first = try await folder.launch(server: server)
                // A file the second launch would keep aside (rename) if it read it.
                try Data("not a state".utf8).write(to: folder.state)
                let listing = try FileManager.default.contentsOfDirectory(atPath: folder.root.path).sorted()

                await #expect {
                    _ = try await folder.launch(server: server)
                } throws: { error in
                    guard case .journal(.locked) = error as? DurableLaunchError else { return false }
                    return true
                }
                #expect(
                    try String(contentsOf: folder.state, encoding: .utf8) == "not a state", "not read, not kept aside")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root.path).sorted() == listing)
                try await first.close()
            }
        }
    }

    @Test(
        "two launches at once: the second waits for the first's lock and restores the state it saved, so no run is lost"
    )
    func twoLaunchesAtOnce() async throws {
        try await AppFolder.with { folder in
            let server = Server()
            let events = LockedValue<[String]>([])
            try await withDeadline(30, "the second launch, waiting for the first") {
                let first = try await folder.launch(server: server)
                // The second launch starts while the first holds the folder, and waits for it.
                let second = Task {
                    let launch = try await folder.launch(server: server, lockWait: .seconds(3600))
                    events.withLock { $0.append("second launched") }
                    return launch
                }
                let run = try await first.runs.start(
                    "publish", runID: "post-0", parameters: PostParameters(run: "post-0"))
                await run.wait()
                events.withLock { $0.append("first closes") }
                try await first.close()

                let launch = try await second.value
                #expect(events.withLock { $0 } == ["first closes", "second launched"])
                #expect(launch.store.state.posted == ["post-0"], "the second launch restored the first's saved state")
                #expect(launch.report.resumed.isEmpty && launch.report.notResumed.isEmpty)
                #expect(try launch.journal.loadUnfinishedRuns().runs.isEmpty)
                // The second launch's own work lands on top of the first's, and both are saved.
                let own = try await launch.runs.start(
                    "publish", runID: "post-1", parameters: PostParameters(run: "post-1"))
                await own.wait()
                try await launch.close()
                #expect(try folder.saved().posted == ["post-0", "post-1"])
                #expect(
                    server.calls.withLock { $0.filter { $0.hasPrefix("post ") } } == ["post post-0", "post post-1"])
            }
        }
    }

    @Test("a launch that cannot get the lock within its wait is refused with locked, and reads nothing")
    func lockWaitRunsOut() async throws {
        try await AppFolder.with { folder in
            try await withDeadline(10, "a launch whose wait runs out") {
                let server = Server()
                let first = try await folder.launch(server: server)
                await #expect {
                    _ = try await folder.launch(server: server, lockWait: .milliseconds(30))
                } throws: { error in
                    guard case .journal(.locked) = error as? DurableLaunchError else { return false }
                    return true
                }
                try await first.close()
                // Released: the next launch opens at once.
                try await folder.launch(server: server).close()
            }
        }
    }

    @Test("a saved state that cannot be read stops the launch, keeps the file and releases the lock")
    func unreadableStateStopsTheLaunch() async throws {
        try await AppFolder.with { folder in
            try await withDeadline(10, "a launch on an unreadable state") {
                // A folder where the file should be: it exists, and reading it fails.
                try FileManager.default.createDirectory(at: folder.state, withIntermediateDirectories: true)
                await #expect {
                    _ = try await folder.launch(server: Server())
                } throws: { error in
                    guard case .stateUnreadable(.unreadable) = error as? DurableLaunchError else { return false }
                    return true
                }
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: folder.state.path, isDirectory: &isDirectory))
                #expect(isDirectory.boolValue, "left as it was")
                try FileManager.default.removeItem(at: folder.state)
                try await folder.launch(server: Server()).close()
            }
        }
    }

    @Test("a saved state that does not decode is kept aside; the launch goes on from the default state and says so")
    func corruptStateIsKeptAside() async throws {
        try await AppFolder.with { folder in
            try await withDeadline(10, "a launch on a corrupt state") {
                try Data("{ torn".utf8).write(to: folder.state)
                let launch = try await folder.launch(server: Server())
                guard case .corrupt? = launch.restoreError else {
                    Issue.record("restoreError: \(String(describing: launch.restoreError))")
                    return
                }
                #expect(launch.store.state == PostsState())
                let names = try FileManager.default.contentsOfDirectory(atPath: folder.root.path)
                #expect(names.contains { $0.hasPrefix("state.corrupt-") }, "\(names)")
                try await launch.close()
            }
        }
    }

    @Test("once the journal is closed, the state is not saved: no save lands outside the lock")
    func noSaveOutsideTheLock() async throws {
        try await AppFolder.with { folder in
            try await withDeadline(10, "saves after the journal closed") {
                let launch = try await folder.launch(server: Server())
                launch.store.dispatch(Posted(run: "a"))
                try await launch.flush()
                #expect(try folder.saved().posted == ["a"])

                launch.journal.close()
                launch.store.dispatch(Posted(run: "b"))
                #expect {
                    try launch.persistence.flush()
                } throws: { error in
                    guard case .writeFailed(_, let description) = error as? PersistenceError else { return false }
                    return description.contains("journal's lock")
                }
                #expect(try folder.saved().posted == ["a"], "unchanged")
                try? await launch.close()
            }
        }
    }

    @Test("a run in flight at close is left to the next launch, which resumes it")
    func closeLeavesRunsInFlightToTheNextLaunch() async throws {
        try await AppFolder.with { folder in
            let server = Server()
            let (postingStarted, posting) = AsyncStream<Void>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            try await withDeadline(30, "a run left in flight at close, then resumed") {
                let first = try await DurableLaunch.open(
                    journalFolder: folder.journal, stateURL: folder.state, default: PostsState(),
                    reducer: postsReducer, saveDebounce: .milliseconds(5)
                ) { runs in
                    // The first launch's post is held in flight until after close.
                    runs.register("publish", parameters: PostParameters.self) { parameters in
                        var graph = ActionGraph<PostsState>()
                        let upload = graph.run(Upload(run: parameters.run, server: server))
                        graph.setLabel("upload", for: upload)
                        graph.setDurable(upload, inDoubt: .rerunWithSameKey)
                        let post = graph.run(after: upload) { _ in
                            HeldPost(started: posting, release: released)
                        }
                        graph.setLabel("post", for: post)
                        graph.setDurable(post, inDoubt: .failInDoubt)
                        graph.setLabel("posted", for: graph.send(after: post) { _ in Posted(run: parameters.run) })
                        let notify = graph.run(after: post) { _ in Notify(run: parameters.run, server: server) }
                        graph.setLabel("notify", for: notify)
                        graph.setDurable(notify, inDoubt: .rerunWithSameKey)
                        graph.setLabel(
                            "notified", for: graph.send(after: notify) { _ in Notified(run: parameters.run) })
                        return graph
                    }
                }
                let run = try await first.runs.start(
                    "publish", runID: "post-0", parameters: PostParameters(run: "post-0"))
                for await _ in postingStarted { break }
                try await first.close()
                release.yield()
                await run.wait()

                let second = try await folder.launch(server: server)
                #expect(second.report.resumed.map(\.runID) == ["post-0"])
                #expect(second.report.resumed.first?.inDoubt == ["post"], "started, its end never journaled")
                await second.report.run("post-0")?.wait()
                try await second.close()
                #expect(
                    server.calls.withLock { $0 } == ["upload post-0"],
                    "the upload is not repeated, the post is in doubt")
            }
        }
    }
}

/// A post that says it started, then waits to be released.
private struct HeldPost: AsyncAction {
    typealias State = PostsState
    let started: AsyncStream<Void>.Continuation
    let release: AsyncStream<Void>
    func run(_ context: ActionContext<PostsState>) async throws -> Int {
        started.yield()
        for await _ in release { break }
        return 7
    }
}
