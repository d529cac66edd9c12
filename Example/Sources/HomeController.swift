import OresRedux

/// What used to be a bloated view controller: log in, then in the callback fetch the profile and the
/// feed, count the callbacks, then update the screen, and remember to handle every error on the way.
/// Now it declares the graph once, dispatches it, and renders state. Nothing else: the API client is
/// the store's dependency, not the controller's.
final class HomeController: Sendable {
    let store: Store<AppState>

    init(store: Store<AppState>) {
        self.store = store
    }

    /// The nodes of the log-in graph, to read values and outcomes from its run.
    struct LogInGraph {
        var graph = ActionGraph<AppState>()
        var session: Node<Session>
        var profile: Node<Profile>
        var feed: Node<[Post]>
        var home: Node<Void>
    }

    /// log in -> (profile, feed) in parallel with the token -> one update with both. Every call has
    /// a timeout: `callTimeout` for the request itself (HTTPAPI), and a second more for the node, so a
    /// call that hangs whatever the API does still ends.
    func logInGraph(
        user: String, password: String, callTimeout: Duration = .seconds(5),
        feedRetry: RetryPolicy? = nil
    ) -> LogInGraph {
        var graph = ActionGraph<AppState>()
        let loading = graph.send(StartLoading())
        let session = graph.run(LogIn(user: user, password: password), after: loading)
        graph.send(after: session) { session in SignedIn(session: session) }
        let profile = graph.run(after: session) { session in FetchProfile(token: session.token) }
        let feed = graph.run(after: session) { session in FetchFeed(token: session.token) }
        graph.send(after: profile) { profile in ProfileLoaded(profile: profile) }
        let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

        graph.setTimeout(callTimeout + .seconds(1), for: session)
        graph.setTimeout(callTimeout + .seconds(1), for: profile)
        graph.setTimeout(callTimeout + .seconds(1), for: feed)
        if let feedRetry { graph.setRetry(feedRetry, for: feed) }
        graph.setFallback(for: feed) { error in ShowBanner(message: "could not load the feed (\(error))") }
        graph.setLabel("log in", for: session)
        graph.setLabel("fetch profile", for: profile)
        graph.setLabel("fetch feed", for: feed)
        graph.setLabel("show home", for: home)
        return LogInGraph(graph: graph, session: session, profile: profile, feed: feed, home: home)
    }

    /// Renders each change of the state as one short line.
    func render(_ print: @escaping @Sendable (String) -> Void) -> Subscription {
        let previous = RenderedState()
        return store.subscribe { state in
            for line in previous.changes(to: state) { print(line) }
        }
    }
}

/// The last rendered state, to print only what changed. Subscribers are called one at a time.
private final class RenderedState: @unchecked Sendable {
    // @unchecked: used only from one store subscriber, which the store never calls concurrently.
    private var last: AppState?

    func changes(to state: AppState) -> [String] {
        defer { last = state }
        guard let last else { return [] }
        var lines: [String] = []
        if state.screen != last.screen { lines.append("screen   \(state.screen)") }
        if state.session != last.session, let session = state.session {
            lines.append("session  signed in as \(session.user) (token \(session.token.suffix(4)))")
        }
        if state.profile != last.profile, let profile = state.profile {
            lines.append("profile  \(profile.name) \(profile.handle), \(profile.followers) followers")
        }
        if state.feed != last.feed {
            lines.append("feed     \(state.feed.count) posts, first by \(state.feed.first?.author ?? "-")")
        }
        if state.banner != last.banner, let banner = state.banner { lines.append("banner   \(banner)") }
        return lines
    }
}
