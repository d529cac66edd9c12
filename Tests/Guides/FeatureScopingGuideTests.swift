import OresRedux
import OresReduxTesting
import Testing

// The snippets of Sources/OresRedux.docc/Essentials/FeatureScoping.md.

enum ScopingGuideApp {
    // The first snippet: the game, written against its own state.
    struct GameState: Equatable, Sendable {
        var category = "birds"
        var covers: [String] = []
        var flipped: [Int] = []
    }

    struct Flip: Action { let card: Int }
    struct SetCovers: Action { let covers: [String] }

    struct FetchCovers: AsyncAction {
        func run(_ context: ActionContext<GameState>) async throws -> [String] {
            let category = context.state.category  // the game's own state
            return ["\(category) 1", "\(category) 2"]
        }
    }

    static let gameReducer = Reducer<GameState>.combine(
        .on(Flip.self) { game, flip in game.flipped.append(flip.card) },
        .on(SetCovers.self) { game, action in game.covers = action.covers }
    )

    static func startGame() -> ActionGraph<GameState> {
        var graph = ActionGraph<GameState>()
        let covers = graph.run(FetchCovers())
        graph.send(after: covers) { covers in SetCovers(covers: covers) }
        return graph
    }

    // The second snippet: the app.
    struct AppState: Equatable, Sendable {
        var user = "ada"
        var game = GameState()
    }

    static let appReducer = Reducer<AppState>.combine(
        .scope(\.game, gameReducer)
    )

    // "A scope over an optional child": the game exists only while one is open.
    struct MenuState: Equatable, Sendable {
        var user = "ada"
        var game: GameState? = GameState()  // nil when no game is open
    }

    struct QuitGame: Action {}

    static let menuReducer = Reducer<MenuState>.combine(
        .scope(\.game, gameReducer),  // the optional form: skipped while the game is nil
        .on(QuitGame.self) { menu, _ in menu.game = nil }
    )

    /// Not in the guide: an action of the game still running when the game is quit.
    struct FlipWhenAnswered: AsyncAction {
        let card: Int
        let started: GuideApp.Lines
        let answer: GuideApp.Lines
        func run(_ context: ActionContext<GameState?>) async throws {
            started.append("\(card)")
            await answer.waitFor(count: 1)
            context.dispatch(Flip(card: card))
        }
    }

    struct CountCovers: AsyncAction {
        func run(_ context: ActionContext<GameState?>) async throws -> Int {
            context.state?.covers.count ?? 0  // nil once the game was quit
        }
    }

    // The third snippet.
    final class GameModel<S: StoreProtocol<GameState>> {
        let store: S
        init(store: S) { self.store = store }
        func start() { store.dispatch(startGame()) }
        func flip(_ card: Int) { store.dispatch(Flip(card: card)) }
    }
}

@Suite("Guide: Feature Scoping", .timeLimit(.minutes(10)))
struct FeatureScopingGuideTests {
    typealias App = ScopingGuideApp

    @Test("FeatureScoping guide: the game's graph runs in the app's store and changes the app's state")
    func gameGraphInTheApp() async throws {
        let app = Store(initialState: App.AppState(), reducer: App.appReducer)
        let game = app.scope(\.game)  // ScopedStore<GameState>
        let run = game.dispatch(App.startGame())  // an ActionGraph<GameState>, run by the app's store
        _ = try await withDeadline { await run.wait() }
        #expect(app.state.game.covers == ["birds 1", "birds 2"])
        #expect(game.state == app.state.game)
    }

    @Test("FeatureScoping guide: one GameModel, on the app's scope and on a test store of the game alone")
    func modelWrittenOnce() async throws {
        let app = Store(initialState: App.AppState(), reducer: App.appReducer)
        let inTheApp = App.GameModel(store: app.scope(\.game))
        let inATest = App.GameModel(store: TestStore(initialState: App.GameState(), reducer: App.gameReducer))
        inTheApp.flip(2)
        inATest.flip(5)
        #expect(app.state.game.flipped == [2])
        try await inATest.store.receive(App.Flip.self) { $0.flipped = [5] }
        inATest.store.runForReal(App.FetchCovers.self)
        inATest.start()
        try await inATest.store.receive(App.SetCovers.self) { $0.covers = ["birds 1", "birds 2"] }
        try await inATest.store.finish()
    }

    @Test("FeatureScoping guide: a scope over an optional child reads nil once it is gone; its work still runs")
    func scopeOverAnOptionalChild() async throws {
        let log = GuideApp.Lines()
        let app = Store(
            initialState: App.MenuState(), reducer: App.menuReducer, middleware: [.logger { log.append($0) }])
        let game = app.scope(\.game)  // ScopedStore<GameState?>
        let seen = GuideApp.Lines()
        let subscription = game.subscribe { state in seen.append(state.map { "\($0.flipped)" } ?? "nil") }
        let started = GuideApp.Lines()
        let answer = GuideApp.Lines()
        let earlier = game.dispatch(App.FlipWhenAnswered(card: 9, started: started, answer: answer))
        try await withDeadline { await started.waitFor(count: 1) }
        game.dispatch(App.Flip(card: 1))
        #expect(game.state?.flipped == [1])

        app.dispatch(App.QuitGame())
        #expect(game.state == nil)
        game.dispatch(App.Flip(card: 2))  // middleware and reducer see it; the game's reducer is skipped
        #expect(log.all.contains("action: Flip(card: 2)"))
        #expect(app.state == App.MenuState(game: nil))
        #expect(seen.all == ["[]", "[1]", "nil", "nil"], "called with nil after every commit")

        answer.append("now")  // work started before the game was quit goes on
        try await withDeadline { try await earlier.value }
        #expect(log.all.contains("action: Flip(card: 9)"))
        #expect(app.state == App.MenuState(game: nil))
        subscription.cancel()

        var graph = ActionGraph<App.GameState?>()
        let count = graph.run(App.CountCovers())
        let flip = graph.send(after: count) { count in App.Flip(card: count) }
        let run = game.dispatch(graph)
        let report = try await withDeadline { await run.wait() }
        #expect(report[count].outcome == .succeeded)
        #expect(report[flip].outcome == .succeeded, "applied, and skipped by the game's reducer")
        #expect(try await withDeadline { try await run.value(of: count) } == 0)
        #expect(app.state == App.MenuState(game: nil), "nothing brought the game back")
    }
}
