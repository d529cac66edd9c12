// swift-format-ignore-file
// The generator's output for the recordings of `InspectorGeneratedTestOrderTests`, pasted as is
// between the markers (so not formatted): that test regenerates each and compares it with the text
// between its markers, byte for byte, and Swift compiles and runs each here, against the recorded app.
import OresRedux
import OresReduxTesting
import Testing

extension InspectorApp {
    @Suite("Inspector generated tests, checked in")
    struct GeneratedReplays {
// BEGIN replaysTheParallelLogIn
@Test func replaysTheParallelLogIn() async throws {
    let store = TestStore(initialState: AppState(), reducer: reducer)
    let logInCalls = store.hold(LogIn.self)
    let loadProfileCalls = store.hold(LoadProfile.self)
    let loadFeedCalls = store.hold(LoadFeed.self)
    let loadAdsCalls = store.hold(LoadAds.self)
    try store.send(StartLoading()) { $0.screen = .loading }
    store.dispatch(logInGraph().graph)
    logInCalls.respond(with: Session(token: "t-ada"))
    try await store.receive(SignedIn.self) { $0.session = Session(token: "t-ada") }
    loadAdsCalls.fail(with: Offline())
    try await store.receive(ShowBanner.self) { $0.banner = "no ads today" }
    loadProfileCalls.respond(with: Profile(name: "Ada"))
    // LoadFeed: 1 earlier tries failed; the recording keeps each node's last answer only
    loadFeedCalls.respond(with: [Post(id: 1, text: "hello"), Post(id: 2, text: "world")])
    try await store.receive(ShowHome.self) {
        $0.screen = .home(user: "Ada")
        $0.profile = Profile(name: "Ada")
        $0.feed = [Post(id: 1, text: "hello"), Post(id: 2, text: "world")]
    }
    try store.send(AddPost(post: Post(id: 3, text: "middle"), at: 1)) {
        $0.feed = [Post(id: 1, text: "hello"), Post(id: 3, text: "middle"), Post(id: 2, text: "world")]
    }
    try store.send(Tag(name: "swift", count: 2)) { $0.tags = ["swift": 2] }
    let run2 = store.dispatch(logInGraph().graph)
    logInCalls.respond(with: Session(token: "t-ada"))
    try await store.receive(SignedIn.self)
    run2.cancel()
    #expect(await run2.wait().map(\.outcome) == [.succeeded, .succeeded, .cancelled, .cancelled, .cancelled, .cancelled])
    try store.send(Nothing())
    try await store.finish()
}
// END replaysTheParallelLogIn
// BEGIN replaysTheCutRecording
@Test func replaysTheCutRecording() async throws {
    let store = TestStore(initialState: AppState(), reducer: reducer)
    store.stub(LogIn.self, with: Session(token: "t-ada"))
    store.stub(FetchProfile.self, with: Profile(name: "Ada"))
    try store.send(StartLoading()) { $0.screen = .loading }
    store.dispatch(plainGraph())
    // not asserted: session (cut at maximumDepth)
    try await store.receive(SignedIn.self, notAsserting: [\.session])
    // not asserted: screen (cut at maximumDepth), profile (cut at maximumDepth)
    try await store.receive(ShowHome.self, notAsserting: [\.screen, \.profile])
    // not asserted: feed (cut at maximumDepth)
    try store.send(AddPost(post: Post(id: 0 /* Int cut at maximumDepth: its empty value */, text: "" /* String cut at maximumDepth: its empty value */), at: 1), notAsserting: [\.feed])
    // not asserted: tags (cut at maximumDepth)
    try store.send(Tag(name: "swift swift swif" /* cut: the first 16 of 48 characters (maximumStringLength) */, count: 2), notAsserting: [\.tags])
    // not asserted: banner (cut at maximumStringLength)
    try store.send(ShowBanner(message: "offline offline " /* cut: the first 16 of 32 characters (maximumStringLength) */), notAsserting: [\.banner])
    try store.send(Nothing())
    try await store.finish()
}
// END replaysTheCutRecording
    }
}
