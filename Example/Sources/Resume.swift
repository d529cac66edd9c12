import Foundation
import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// swift run Example --resume
//
// A run that survives a relaunch: upload a photo → create the post → notify the followers, as a
// durable run. The first launch (this program again, as a child process) is killed with SIGKILL
// right after the post request reached the server and before its answer was journaled; the second
// launch (this process) resumes the run from the journal and the saved state. The "server" keeps
// what it received in a file, so it outlives the first launch, and answers a post whose idempotency
// key it saw before with the post it already made. Everything lives in a temporary folder, removed
// at the end.

struct ResumeState: Codable, Equatable, Sendable {
    var photoURL: String?
    var postID: Int?
    var notified: Int?
    /// How many times each sync node reached the state: 1 each, whatever the relaunch did.
    var applied: [String: Int] = [:]
}

struct PostDraft: Codable, Sendable {
    var photo: String
    var text: String
}

struct PhotoShown: Action { let url: String }
struct PostShown: Action { let id: Int }
struct FollowersNotified: Action { let count: Int }

let resumeReducer = Reducer<ResumeState>.combine(
    .on(PhotoShown.self) { state, action in
        state.photoURL = action.url
        state.applied["photo shown", default: 0] += 1
    },
    .on(PostShown.self) { state, action in
        state.postID = action.id
        state.applied["post shown", default: 0] += 1
    },
    .on(FollowersNotified.self) { state, action in
        state.notified = action.count
        state.applied["followers notified", default: 0] += 1
    })

/// The remote side: every request it received, one line each (call, key), kept in a file so that
/// it outlives the app's process. A post whose key it saw before is not made again.
struct FakeServer: Sendable {
    let log: URL

    /// Records the request `call` with `key`; whether a request with that key was seen before.
    func receive(_ call: String, key: IdempotencyKey?) -> Bool {
        let key = key?.rawValue ?? "-"
        let seenBefore = requests().contains { $0.call == call && $0.key == key }
        let line = Array("\(call) \(key)\n".utf8)
        let descriptor = open(log.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
        }
        return seenBefore
    }

    func requests() -> [(call: String, key: String)] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "-")
        }
    }
}

struct UploadPhoto: AsyncAction {
    typealias State = ResumeState
    let photo: String
    let server: FakeServer
    func run(_ context: ActionContext<ResumeState>) async throws -> String {
        _ = server.receive("upload", key: context.idempotencyKey)
        print("        upload photo        called, key \(context.idempotencyKey?.rawValue ?? "-")")
        return "https://cdn.example/\(photo)"
    }
}

struct CreatePost: AsyncAction {
    typealias State = ResumeState
    let url: String
    let server: FakeServer
    /// The first launch dies here: the request reached the server, its answer never comes back.
    let killedInFlight: Bool
    func run(_ context: ActionContext<ResumeState>) async throws -> Int {
        let seenBefore = server.receive("create-post", key: context.idempotencyKey)
        print(
            "        create post         called, key \(context.idempotencyKey?.rawValue ?? "-")"
                + (seenBefore ? " (the server saw this key before: it returns that post, makes none)" : ""))
        if killedInFlight {
            print("        -- the app is killed (SIGKILL) before the post's answer is journaled --")
            fflush(nil)  // every stream: what was printed reaches the terminal before the kill
            kill(getpid(), SIGKILL)
        }
        return 42
    }
}

struct NotifyFollowers: AsyncAction {
    typealias State = ResumeState
    let postID: Int
    let server: FakeServer
    func run(_ context: ActionContext<ResumeState>) async throws -> Int {
        _ = server.receive("notify", key: context.idempotencyKey)
        print("        notify followers    called, key \(context.idempotencyKey?.rawValue ?? "-")")
        return 3
    }
}

/// One launch of the app in `folder`, in the one safe order (`DurableLaunch`): the journal's folder
/// locked, then the state restored with its marks, then the graph registered and the journal's runs
/// resumed.
struct ResumeLaunch {
    let launch: DurableLaunch<ResumeState>
    let server: FakeServer

    static func open(folder: URL, killedInFlight: Bool) async throws -> ResumeLaunch {
        let server = FakeServer(log: folder.appendingPathComponent("server.log"))
        let launch = try await DurableLaunch.open(
            journalFolder: folder.appendingPathComponent("journal", isDirectory: true),
            stateURL: folder.appendingPathComponent("state.json"),
            default: ResumeState(), reducer: resumeReducer, saveDebounce: .milliseconds(10)
        ) { durable in
            registerBuilders(durable, server: server, killedInFlight: killedInFlight)
        }
        return ResumeLaunch(launch: launch, server: server)
    }
}

/// Registers the app's durable graphs on `durable`: every launch does, and so does the test that
/// replays the journal kept in `Example/fixtures/journal` against them
/// (Tests/Example/ExampleJournalFixtureTests.swift), so an update that would strand a recorded run
/// fails there.
func registerBuilders(_ durable: DurableRuns<ResumeState>, server: FakeServer, killedInFlight: Bool) {
    durable.register("publishPost", parameters: PostDraft.self) { draft in
        var graph = ActionGraph<ResumeState>()
        let upload = graph.run(UploadPhoto(photo: draft.photo, server: server))
        graph.setLabel("upload photo", for: upload)
        graph.setDurable(upload, inDoubt: .rerunWithSameKey)
        graph.setLabel("photo shown", for: graph.send(after: upload) { url in PhotoShown(url: url) })
        let post = graph.run(after: upload) { url in
            CreatePost(url: url, server: server, killedInFlight: killedInFlight)
        }
        graph.setLabel("create post", for: post)
        // The server deduplicates posts by key: calling it again with the same key is safe.
        graph.setDurable(post, inDoubt: .rerunWithSameKey)
        graph.setLabel("post shown", for: graph.send(after: post) { id in PostShown(id: id) })
        let notify = graph.run(after: post) { id in NotifyFollowers(postID: id, server: server) }
        graph.setLabel("notify followers", for: notify)
        graph.setDurable(notify, inDoubt: .rerunWithSameKey)
        graph.setLabel(
            "followers notified", for: graph.send(after: notify) { count in FollowersNotified(count: count) })
        return graph
    }
}

/// The first launch (a child process, hidden flag `--resume-first-launch DIR`): starts the run and
/// is killed while the post is in flight. Returning from here means it was not.
func resumeFirstLaunch(folder: URL) async {
    do {
        let launch = try await ResumeLaunch.open(folder: folder, killedInFlight: true)
        let draft = PostDraft(photo: "beach.jpg", text: "At the beach")
        let run = try await launch.launch.runs.start("publishPost", runID: "post-42", parameters: draft)
        await run.wait()
        print("!! the first launch was meant to be killed while creating the post")
    } catch {
        print("!! the first launch failed: \(error)")
    }
    exit(1)
}

/// Runs launch 1 in a child process (this executable again, with `--resume-first-launch`), which
/// kills itself with SIGKILL while creating the post; whether it ended so.
func firstLaunchWasKilled(folder: URL) throws -> Bool {
    #if os(macOS) || os(Linux)
        fflush(nil)  // every stream: what was printed reaches the terminal before the kill
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = ["--resume-first-launch", folder.path]
        try child.run()
        child.waitUntilExit()
        guard child.terminationReason == .uncaughtSignal, child.terminationStatus == SIGKILL else {
            print("!! launch 1 ended with status \(child.terminationStatus), not killed by SIGKILL")
            return false
        }
        return true
    #else
        print("!! launch 1 runs as a child process, which only macOS and Linux can start")
        return false
    #endif
}

/// `swift run Example --record-journal Example/fixtures/journal` (hidden): records the journal the
/// Example keeps as a test fixture. It runs launch 1 of `--resume` (a child process killed with
/// SIGKILL while creating the post) in a temporary folder, then copies the run's journal file into
/// `destination`, replacing the `run-*.journal` files there. Run it again, and commit the file, only
/// when the durable graph changes on purpose: the test that replays the fixture
/// (Tests/Example/ExampleJournalFixtureTests.swift) is there to catch a change that would strand a
/// run recorded by an earlier build.
func recordJournalFixture(into destination: URL) -> Bool {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("oresredux-example-record-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard try firstLaunchWasKilled(folder: folder) else { return false }
        let journal = folder.appendingPathComponent("journal", isDirectory: true)
        let recorded = try FileManager.default.contentsOfDirectory(atPath: journal.path).filter(isRunFile)
        guard recorded.count == 1, let name = recorded.first else {
            print("!! launch 1 left \(recorded.count) run files, not one")
            return false
        }
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for old in try FileManager.default.contentsOfDirectory(atPath: destination.path).filter(isRunFile) {
            try FileManager.default.removeItem(at: destination.appendingPathComponent(old))
        }
        try FileManager.default.copyItem(
            at: journal.appendingPathComponent(name), to: destination.appendingPathComponent(name))
        print("recorded \(destination.appendingPathComponent(name).path)")
        return true
    } catch {
        print("!! recording the journal failed: \(error)")
        return false
    }
}

private func isRunFile(_ name: String) -> Bool {
    name.hasPrefix("run-") && name.hasSuffix(".journal")
}

/// `swift run Example --resume`: both launches, and what the second one did not repeat.
func resumeScenario() async -> Bool {
    print("== 6. A run that survives a relaunch: killed while creating the post, resumed on the next launch")
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("oresredux-example-resume-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        print("    launch 1 (a child process):")
        guard try firstLaunchWasKilled(folder: folder) else { return false }

        print("    launch 2 (this process): DurableLaunch.open resumes what the journal holds")
        let launch = try await ResumeLaunch.open(folder: folder, killedInFlight: false)
        let report = launch.launch.report
        guard let resumed = report.resumed.first, report.resumed.count == 1 else {
            print("!! nothing was resumed: \(report.notResumed.map(\.error)) \(report.failures)")
            return false
        }
        let asyncNodes: Set = ["upload photo", "create post", "notify followers"]
        let notRepeated = resumed.endedBefore.filter(asyncNodes.contains)
        print("        not called again (their answers were journaled): \(notRepeated.joined(separator: ", "))")
        print("        in doubt (started, no answer journaled): \(resumed.inDoubt.joined(separator: ", "))")
        let runReport = await resumed.run.wait()
        try await launch.launch.close()

        let requests = launch.server.requests()
        let posts = requests.filter { $0.call == "create-post" }
        print("    the server received:")
        for call in ["upload", "create-post", "notify"] {
            let calls = requests.filter { $0.call == call }
            let keys = Set(calls.map(\.key))
            print(
                "        \(call): \(calls.count) request(s), key\(keys.count == 1 ? "" : "s") \(keys.sorted().joined(separator: ", "))"
            )
        }
        let state = launch.launch.store.state
        print(
            "    the state: post \(state.postID.map(String.init) ?? "-"), followers notified \(state.notified ?? 0), "
                + "each sync node applied \(Set(state.applied.values).sorted().map(String.init).joined(separator: "/")) time(s)"
        )
        let asExpected =
            runReport.count(of: .succeeded) == runReport.count && notRepeated == ["upload photo"]
            && resumed.inDoubt == ["create post"] && requests.filter { $0.call == "upload" }.count == 1
            && posts.count == 2 && Set(posts.map(\.key)).count == 1
            && requests.filter { $0.call == "notify" }.count == 1
            && state.postID == 42 && state.applied.count == 3 && state.applied.values.allSatisfy { $0 == 1 }
        print(
            asExpected
                ? "    the upload was not repeated; the post was repeated once, with the same key, and made once."
                : "!! the resume scenario did not end as expected")
        return asExpected
    } catch {
        print("!! the resume scenario failed: \(error)")
        return false
    }
}
