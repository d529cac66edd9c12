import OresRedux

/// Scenario 6: the user sends a post from the home screen while its profile and feed load, then
/// closes the screen. The screen dispatched its work under an owner, so closing it ends that work:
/// the feed's call is cancelled and home is never shown. The post the user already sent must not be
/// lost: its node finishes with its dependents (`.finishWithDependents`), so it reaches the server
/// and the list of posts learns of it, although the screen is gone.
@MainActor
func closingScreenScenario(api: any API) async -> Bool {
    print("\n== 6. The user closes the screen mid-chain: the feed is cancelled, the sent post finishes")
    var dependencies = Dependencies()
    dependencies.api = api
    let store = Store(
        initialState: AppState(), reducer: .combine(appReducer, postReducer),
        options: StoreOptions(dependencies: dependencies))
    let login = HomeController(store: store).logInGraph(user: "ada", password: "lovelace")

    let screen = store.makeOwner("Home screen")
    let loading = screen.dispatch(login.graph)
    guard let session = try? await loading.value(of: login.session) else {
        print("!! scenario 6 could not log in")
        return false
    }
    print("        (the user sends a post: screen.dispatch(composer))")
    var composer = ActionGraph<AppState>()
    let post = composer.run(SendPost(token: session.token, text: "Closing the app, see you tomorrow"))
    let appeared = composer.send(after: post) { post in PostAppeared(post: post) }
    composer.setOwnerEndPolicy(.finishWithDependents, for: post)
    composer.setLabel("send post", for: post)
    composer.setLabel("post appeared", for: appeared)
    let sending = screen.dispatch(composer)
    print("        (the user closes the screen: screen.end())")
    screen.end()

    let (loaded, sent) = (await loading.wait(), await sending.wait())
    for report in [loaded, sent] {
        print(report.description.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    }
    let state = store.state
    let asExpected =
        loaded[login.feed].outcome == .cancelled && loaded[login.home].outcome == .cancelled
        && sent[post].outcome == .succeeded && sent[appeared].outcome == .succeeded
        && state.feed.map(\.text) == ["Closing the app, see you tomorrow"] && state.screen != .home
    print("        the list shows only the post the user sent (\(state.feed.count)); home was never shown")
    if !asExpected { print("!! scenario 6 did not end as expected") }
    return asExpected
}

/// The composer's call: sends a post and answers it as the server made it. The fixture servers
/// answer only GETs, so this one server call is simulated here, with a realistic latency.
struct SendPost: AsyncAction {
    let token: String
    let text: String
    func run(_ context: ActionContext<AppState>) async throws -> Post {
        try await Task.sleep(for: .milliseconds(150))
        return Post(id: 1001, author: "ada", text: text)
    }
}

/// The post the user sent was made: the list of posts shows it first.
struct PostAppeared: Action, Codable { var post: Post }

let postReducer = Reducer<AppState>.on(PostAppeared.self) { state, action in
    state.feed.insert(action.post, at: 0)
}
