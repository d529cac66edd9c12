import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/RunningWork/RunsThatSurviveARelaunch.md, with the types they need.

/// The guide's "Changing a durable graph": a parameters type changed safely.
enum ChangedParametersGuide {
    struct PostDraft: Codable, Sendable {
        var photo: String
        var caption: String  // was `text`: the journal keeps the key "text"
        var tags: [String]  // new: runs journaled before have none

        enum CodingKeys: String, CodingKey {
            case photo
            case caption = "text"
            case tags
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            photo = try container.decode(String.self, forKey: .photo)
            caption = try container.decode(String.self, forKey: .caption)
            tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        }
    }

    /// The unsafe forms the guide's table names.
    struct WithDefault: Codable { var photo: String; var tags: [String] = [] }
    struct RenamedToOptional: Codable { var photo: String; var caption: String? }
}

enum DurableRunsGuide {
    struct AppState: Codable, Equatable, Sendable {
        var postID: Int?
        var error: String?
    }
    struct PostDraft: Codable, Sendable {
        var photo: String
        var text: String
    }
    struct UploadPhoto: AsyncAction {
        let photo: String
        func run(_ context: ActionContext<AppState>) async throws -> String { "https://cdn/\(photo)" }
    }
    struct CreatePost: AsyncAction {
        let url: String
        let text: String
        func run(_ context: ActionContext<AppState>) async throws -> Int { 42 }
    }
    struct ShowPost: Action { let id: Int }
    struct PostFailed: Action { let reason: String }
    static let appReducer = Reducer<AppState>.combine(
        .on(ShowPost.self) { state, action in state.postID = action.id },
        .on(PostFailed.self) { state, action in state.error = action.reason })

    /// The app's server client, as the `.ask` snippet uses it.
    struct API: Sendable {
        func findPost(idempotencyKey: IdempotencyKey) async throws -> Int? { 42 }
    }

    /// The first snippet's registration, for the snippets that call `registerBuilders`.
    static func registerBuilders(_ durable: DurableRuns<AppState>) {
        durable.register("publishPost", parameters: PostDraft.self) { draft in
            var graph = ActionGraph<AppState>()
            let upload = graph.run(UploadPhoto(photo: draft.photo))
            graph.setLabel("upload", for: upload)
            graph.setDurable(upload, inDoubt: .rerunWithSameKey)
            let post = graph.run(after: upload) { url in CreatePost(url: url, text: draft.text) }
            graph.setLabel("post", for: post)
            graph.setDurable(post, inDoubt: .failInDoubt)
            graph.setFallback(for: post) { error in PostFailed(reason: "\(error)") }
            graph.setLabel("show", for: graph.send(after: post) { id in ShowPost(id: id) })
            return graph
        }
    }

    /// The calls of the relaunch snippet, answered by stubs.
    static func stubCalls(_ store: TestStore<AppState>) {
        store.stub(UploadPhoto.self) { action in "https://cdn/\(action.photo)" }
        store.stub(CreatePost.self, with: 42)
    }

    /// The types of the snippet that keeps responses off the disk.
    struct Profile: Codable, Equatable, Sendable { var name: String }
    struct LogIn: AsyncAction {
        let user: String
        func run(_ context: ActionContext<AppState>) async throws -> String { "secret-token-of-\(user)" }
    }
    struct FetchProfile: AsyncAction {
        let token: String
        func run(_ context: ActionContext<AppState>) async throws -> Profile { Profile(name: "Ada Lovelace") }
    }
    /// The app's encryption, as the snippet uses it. A test stand-in (a real app seals with AES.GCM):
    /// it only has to change every byte and give them back.
    struct Vault: Sendable {
        let key: UInt8 = 0x5A
        func seal(_ data: Data) throws -> Data { Data(data.map { $0 ^ key }) }
        func open(_ sealed: Data) throws -> Data { Data(sealed.map { $0 ^ key }) }
    }

    static func inTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-guide-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }
}

@Suite("Guide: Runs That Survive a Relaunch")
struct DurableRunsGuideTests {
    typealias AppState = DurableRunsGuide.AppState
    typealias PostDraft = DurableRunsGuide.PostDraft
    typealias UploadPhoto = DurableRunsGuide.UploadPhoto
    typealias CreatePost = DurableRunsGuide.CreatePost
    typealias ShowPost = DurableRunsGuide.ShowPost
    typealias PostFailed = DurableRunsGuide.PostFailed
    let appReducer = DurableRunsGuide.appReducer
    let draft = PostDraft(photo: "p.jpg", text: "hello")
    func registerBuilders(_ durable: DurableRuns<AppState>) { DurableRunsGuide.registerBuilders(durable) }

    @Test("Durable runs guide: launch in the safe order, start a run, then launch again and find nothing to resume")
    func launchStartAndRelaunch() async throws {
        try await DurableRunsGuide.inTemporaryDirectory { support in
            try await withDeadline(10, "the guide's launch") {
                let launch = try await DurableLaunch.open(
                    journalFolder: support.appendingPathComponent("runs", isDirectory: true),
                    stateURL: support.appendingPathComponent("state.json"),
                    default: AppState(), reducer: appReducer
                ) { durable in
                    registerBuilders(durable)
                }
                for left in launch.report.notResumed { print("not resumed: \(left.journal.runID): \(left.error)") }
                let run = try await launch.runs.start("publishPost", runID: "post-42", parameters: draft)
                await run.wait()
                #expect(launch.store.state.postID == 42)
                // Not in the snippet: the next launch in this process needs the folder.
                try await launch.close()
            }
            try await withDeadline(10, "the guide's relaunch") {
                let launch = try await DurableLaunch.open(
                    journalFolder: support.appendingPathComponent("runs", isDirectory: true),
                    stateURL: support.appendingPathComponent("state.json"),
                    default: AppState(), reducer: appReducer
                ) { durable in
                    registerBuilders(durable)
                }
                #expect(launch.store.state.postID == 42, "restored")
                #expect(launch.report.resumed.isEmpty, "the run finished before: nothing to resume")
                try await launch.close()
            }
        }
    }

    @Test(
        "Durable runs guide: parameters journaled before a field was renamed and one added still decode; the unsafe forms do not"
    )
    func changedParameters() throws {
        let journaled = Data(#"{"photo":"p.jpg","text":"hello"}"#.utf8)
        let draft = try JSONDecoder().decode(ChangedParametersGuide.PostDraft.self, from: journaled)
        #expect(draft.caption == "hello")
        #expect(draft.tags == [])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ChangedParametersGuide.WithDefault.self, from: journaled)
        }
        let renamed = try JSONDecoder().decode(ChangedParametersGuide.RenamedToOptional.self, from: journaled)
        #expect(renamed.caption == nil, "resumes, with the journaled text dropped")
    }

    @Test("Durable runs guide: a second launch waits for the lock, or tries later, or only reads the state")
    func whenAnotherProcessHoldsTheJournal() async throws {
        try await DurableRunsGuide.inTemporaryDirectory { support in
            let journalFolder = support.appendingPathComponent("runs", isDirectory: true)
            let stateURL = support.appendingPathComponent("state.json")
            let banners = LockedBanners()
            @Sendable func showBanner(_ text: String) { banners.add(text) }
            @Sendable func startApp(with launch: DurableLaunch<AppState>) { banners.add("started") }
            try await withDeadline(10, "the guide's second launches") {
                let holder = try await DurableLaunch.open(
                    journalFolder: journalFolder, stateURL: stateURL, default: AppState(), reducer: appReducer,
                    saveDebounce: .zero
                ) { durable in registerBuilders(durable) }
                holder.store.dispatch(ShowPost(id: 7))
                try await holder.flush()

                // Try again later.
                do {
                    let launch = try await DurableLaunch.open(
                        journalFolder: journalFolder, stateURL: stateURL, default: AppState(), reducer: appReducer
                    ) { durable in
                        registerBuilders(durable)
                    }
                    startApp(with: launch)
                } catch DurableLaunchError.journal(.locked) {
                    showBanner("Your posts are being sent from another window.")
                } catch {
                    showBanner("Your posts cannot be sent now: \(error)")
                }
                #expect(banners.all == ["Your posts are being sent from another window."])

                // Run without durability: read the state, never save it.
                let (state, _, _) = StatePersistence.restoreDurable(from: stateURL, default: AppState())
                let viewer = Store(initialState: state, reducer: appReducer)  // no persistence, no journal
                #expect(viewer.state.postID == 7)

                // Wait: the holder goes while the second launch waits.
                let waiting = Task {
                    let launch = try await DurableLaunch.open(
                        journalFolder: journalFolder, stateURL: stateURL, default: AppState(), reducer: appReducer,
                        lockWait: .seconds(5)
                    ) { durable in
                        registerBuilders(durable)
                    }
                    return launch
                }
                try await holder.close()
                let launch = try await waiting.value
                #expect(launch.store.state.postID == 7)
                try await launch.close()
            }
        }
    }

    @Test("Durable runs guide: a run left in the journal is logged and removed, which frees its id")
    func damagedJournal() async throws {
        try await DurableRunsGuide.inTemporaryDirectory { support in
            let journalFolder = support.appendingPathComponent("runs", isDirectory: true)
            let stateURL = support.appendingPathComponent("state.json")
            let logged = LockedBanners()
            @Sendable func log(_ text: String) { logged.add(text) }
            // A run of a graph this build does not register.
            let journal = try FileRunJournal(folder: journalFolder)
            try journal.append(
                .runStarted(runID: "old-1", graph: "gone", parameters: Data("{}".utf8), fingerprint: "sha256:0"),
                to: "old-1")
            journal.close()
            try await withDeadline(10, "the guide's damaged journal") {
                let launch = try await DurableLaunch.open(
                    journalFolder: journalFolder, stateURL: stateURL, default: AppState(), reducer: appReducer
                ) { durable in registerBuilders(durable) }
                for left in launch.report.notResumed {
                    log("run \(left.journal.runID) was not resumed: \(left.error)")
                    try launch.journal.removeRun(left.journal.runID)
                }
                for failure in launch.report.failures { log("unreadable journal file: \(failure)") }
                for dropped in launch.report.diagnostics { log("\(dropped)") }
                #expect(logged.all.count == 1 && logged.all[0].hasPrefix("run old-1 was not resumed"), "\(logged.all)")
                #expect(try launch.journal.loadUnfinishedRuns().runs.isEmpty)
                try await launch.close()
            }
        }
    }

    @Test("Durable runs guide: ask the app about an in-doubt call")
    func askTheApp() {
        let api = DurableRunsGuide.API()
        var graph = ActionGraph<AppState>()
        let post = graph.run(CreatePost(url: "u", text: "t"))
        graph.setDurable(
            post,
            inDoubt: .ask { key in
                if let id = try await api.findPost(idempotencyKey: key) { return .succeeded(id) }
                return .runAgain
            })
        #expect(graph.count == 1)
    }

    @Test("Durable runs guide: a test kills the app during the post and resumes on a fresh TestStore")
    func testARelaunch() async throws {
        let stubCalls = DurableRunsGuide.stubCalls
        try await withDeadline(10, "the guide's relaunch test") {
            let journal = InMemoryRunJournal()
            journal.stop(at: .attemptStarted(node: "post"))  // killed during the post
            let first = TestStore(initialState: AppState(), reducer: appReducer)
            let persisted = first.persisting(untilStopOf: journal)
            stubCalls(first)
            let durable = DurableRuns(store: first.store, journal: journal)
            registerBuilders(durable)
            await (try await durable.start("publishPost", runID: "post-42", parameters: draft)).wait()

            let second = TestStore(
                initialState: try persisted.state(), reducer: appReducer, dependencies: Dependencies(),
                durableMarks: try persisted.durableMarks())
            stubCalls(second)
            let resumed = DurableRuns(store: second.store, journal: journal.reopened())
            registerBuilders(resumed)
            await resumed.resumeUnfinished().run("post-42")?.wait()
            #expect(second.calls(to: CreatePost.self).isEmpty)  // in doubt: never posted twice
            #expect(second.state.error != nil)  // and the user is told
        }
    }

    @Test("Durable runs guide: a token kept off the disk, a profile sealed by the app's codec")
    func responsesOffTheDisk() async throws {
        typealias LogIn = DurableRunsGuide.LogIn
        typealias FetchProfile = DurableRunsGuide.FetchProfile
        typealias Profile = DurableRunsGuide.Profile
        let vault = DurableRunsGuide.Vault()
        let journal = InMemoryRunJournal()
        journal.stop(at: .attemptEnded(node: "profile", attempt: 1))  // keep the records to read them
        let store = Store(initialState: AppState(), reducer: appReducer)
        let durable = DurableRuns(store: store, journal: journal)
        durable.register("signIn", parameters: String.self) { _ in
            var graph = ActionGraph<AppState>()
            let token = graph.run(LogIn(user: "ada"))
            graph.setLabel("token", for: token)
            graph.setDurable(token, inDoubt: .rerunWithSameKey, codec: .notJournaled)
            let profile = graph.run(after: token) { token in FetchProfile(token: token) }
            graph.setLabel("profile", for: profile)
            graph.setDurable(
                profile, inDoubt: .rerunWithSameKey,
                codec: DurableCodec(
                    encode: { profile in try vault.seal(JSONEncoder().encode(profile)) },
                    decode: { sealed in try JSONDecoder().decode(Profile.self, from: vault.open(sealed)) }))
            return graph
        }
        try await withDeadline(10, "the signIn run") {
            let run = try await durable.start("signIn", runID: "sign-in", parameters: "ada")
            await run.wait()
        }

        let records = try #require(journal.runs.first { $0.runID == "sign-in" }?.records)
        let ends = records.compactMap { record -> (String, JournalRecord.AttemptEnd)? in
            guard case .attemptEnded(let node, _, let end) = record else { return nil }
            return (node, end)
        }
        #expect(ends.first { $0.0 == "token" }?.1 == .responseNotJournaled, "the token is not on disk")
        guard case .response(let sealed)? = ends.first(where: { $0.0 == "profile" })?.1 else {
            Issue.record("the profile's response is journaled: \(ends)")
            return
        }
        #expect(!String(decoding: sealed, as: UTF8.self).contains("Ada"), "sealed: the name cannot be read")
        #expect(try JSONDecoder().decode(Profile.self, from: vault.open(sealed)) == Profile(name: "Ada Lovelace"))
    }
}

/// What the guide's `showBanner` and `log` would show, for the tests to read.
final class LockedBanners: Sendable {
    private let lines = LockedValue<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
