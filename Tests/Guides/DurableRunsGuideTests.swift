import Foundation
import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/RunsThatSurviveARelaunch.md, with the types they need.

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

    @Test("Durable runs guide: declare, start, then resume on the next launch with the saved state")
    func declareStartAndResume() async throws {
        try await DurableRunsGuide.inTemporaryDirectory { directory in
            let journalFolder = directory.appendingPathComponent("journal")
            let stateURL = directory.appendingPathComponent("state.json")
            try await withDeadline(10, "the guide's durable run") {
                let store = Store(initialState: AppState(), reducer: appReducer)
                let journal = try FileRunJournal(folder: journalFolder)
                let durable = DurableRuns(store: store, journal: journal)
                durable.register("publishPost", parameters: PostDraft.self) { draft in
                    var graph = ActionGraph<AppState>()
                    let upload = graph.run(UploadPhoto(photo: draft.photo))
                    graph.setLabel("upload", for: upload)
                    graph.setDurable(upload, inDoubt: .rerunWithSameKey)  // the CDN deduplicates by key
                    let post = graph.run(after: upload) { url in CreatePost(url: url, text: draft.text) }
                    graph.setLabel("post", for: post)
                    graph.setDurable(post, inDoubt: .failInDoubt)  // never post twice
                    graph.setFallback(for: post) { error in PostFailed(reason: "\(error)") }
                    graph.setLabel("show", for: graph.send(after: post) { id in ShowPost(id: id) })
                    return graph
                }
                let run = try await durable.start("publishPost", runID: "post-42", parameters: draft)
                await run.wait()
                #expect(store.state.postID == 42)
                // Not in the guide: the run's end is still being written when `wait()` returns, and
                // this journal must release the folder before the "next launch" (in this process)
                // opens it: the run's task may hold the journal a moment after `wait()` returned.
                await durable.flush()
                journal.close()
            }
            try await withDeadline(10, "the guide's resume") {
                let (state, marks, _) = StatePersistence.restoreDurable(from: stateURL, default: AppState())
                var options = StoreOptions()
                options.durableMarks = marks
                let store = Store(initialState: state, reducer: appReducer, options: options)
                let persistence = StatePersistence(durableStore: store, url: stateURL)
                let durable = DurableRuns(store: store, journal: try FileRunJournal(folder: journalFolder))
                registerBuilders(durable)
                let report = await durable.resumeUnfinished()
                for left in report.notResumed { print("not resumed: \(left.journal.runID): \(left.error)") }
                #expect(report.resumed.isEmpty, "the run finished before: nothing to resume")
                persistence.stop()
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
