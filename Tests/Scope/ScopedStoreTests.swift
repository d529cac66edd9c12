import Foundation
import OresRedux
import Testing

/// A child feature (the memory game of a card app) written only against its own state, run inside
/// the app's store through `Store.scope(_:)`.
@Suite("Scoped stores: a child feature inside the app's store", .timeLimit(.minutes(10)))
struct ScopedStoreTests {
    // MARK: The game feature: knows only GameState

    struct GameState: Equatable, Sendable {
        var category = "birds"
        var covers: [String] = []
        var flipped: [Int] = []
        var won = false
    }

    struct Flip: Action { let card: Int }
    struct SetCovers: Action { let covers: [String] }
    struct Win: Action {}

    /// Fetches the album covers of the game's category, read from the game's own state.
    struct FetchCovers: AsyncAction {
        func run(_ context: ActionContext<GameState>) async throws -> [String] {
            let category = context.state.category
            return ["\(category) 1", "\(category) 2"]
        }
    }

    static let gameReducer = Reducer<GameState>.combine(
        .on(Flip.self) { game, flip in game.flipped.append(flip.card) },
        .on(SetCovers.self) { game, action in game.covers = action.covers },
        .on(Win.self) { game, _ in game.won = true }
    )

    /// The game's start: fetch the covers, show them, then flip the first card if there is one.
    static func startGame() -> ActionGraph<GameState> {
        var graph = ActionGraph<GameState>()
        let covers = graph.run(FetchCovers())
        let shown = graph.send(after: covers) { covers in SetCovers(covers: covers) }
        graph.send(after: shown, makeFromState: { game, _ in Flip(card: game.covers.isEmpty ? -1 : 0) })
        return graph
    }

    /// Feature code written once against any store of the game's state.
    final class GameModel<S: StoreProtocol<GameState>> {
        let store: S
        init(store: S) { self.store = store }
        func start() -> GraphRun<GameState> { store.dispatch(Self.startGame()) }
        func flip(_ card: Int) { store.dispatch(Flip(card: card)) }
        var title: String { "\(store.state.category): \(store.state.flipped.count) flipped" }

        static func startGame() -> ActionGraph<GameState> { ScopedStoreTests.startGame() }
    }

    // MARK: The app: holds the game among other things

    struct AppState: Equatable, Sendable {
        var user = "ada"
        var game = GameState()
        var log: [String] = []
    }

    static let appReducer = Reducer<AppState>.combine(
        .scope(\.game, gameReducer),
        .on(Win.self) { app, _ in app.log.append("\(app.user) won") }
    )

    // MARK: Stories

    @Test("The game runs inside the app's store: its graph, async action and actions change the app's state")
    func gameInsideTheApp() async throws {
        let app = Store(initialState: AppState(), reducer: Self.appReducer)
        let model = GameModel(store: app.scope(\.game))
        let run = model.start()
        _ = try await withDeadline { await run.wait() }
        model.flip(1)
        #expect(app.state.game.covers == ["birds 1", "birds 2"])
        #expect(app.state.game.flipped == [0, 1])
        #expect(model.title == "birds: 2 flipped")
        app.scope(\.game).dispatch(Win())  // one action, one pipeline: the app's reducer sees it too
        #expect(app.state.log == ["ada won"])
        #expect(app.state.game.won)
    }

    @Test("One order of commits: the app's subscriber sees the game's actions in the order they were applied")
    func oneOrderOfCommits() async throws {
        let app = Store(initialState: AppState(), reducer: Self.appReducer)
        let seen = CoreStore.Recorder<[Int]>()
        let subscription = app.subscribe { seen.record($0.game.flipped) }
        defer { subscription.cancel() }
        let game = app.scope(\.game)
        let childSeen = CoreStore.Recorder<[Int]>()
        let childSubscription = game.subscribe(\.flipped) { childSeen.record($0) }
        defer { childSubscription.cancel() }
        game.dispatch(Flip(card: 3))
        app.dispatch(Flip(card: 4))  // the app dispatching a game action is the same pipeline
        app.dispatch(SetCovers(covers: []))  // changes nothing the select reads: no call
        #expect(seen.values == [[], [3], [3, 4], [3, 4]])
        #expect(childSeen.values == [[], [3], [3, 4]])
    }

    @Test("A scope's async action reads the child state through its context and joins the app's take-latest ids")
    func asyncActionsAndIDs() async throws {
        let app = Store(initialState: AppState(game: GameState(category: "cats")), reducer: Self.appReducer)
        let game = app.scope(\.game)
        #expect(try await withDeadline { try await game.dispatch(FetchCovers()).value } == ["cats 1", "cats 2"])
        let first = game.dispatch(FetchCovers(), id: "covers", policy: .debounce(.seconds(60)))
        app.cancel(id: "covers")  // the app cancels the game's work by its id
        await #expect(throws: CancellationError.self) { try await withDeadline { try await first.value } }
    }

    @Test("states() of a scope yields the child state; a scope of a scope reads deeper; both end with the store")
    func statesAndNestedScopes() async throws {
        var app: Store<AppState>? = Store(initialState: AppState(), reducer: Self.appReducer)
        let covers = app!.scope(\.game).scope(\.covers)
        let stream = covers.states()
        covers.dispatch(SetCovers(covers: ["a"]))
        #expect(covers.state == ["a"])
        app = nil  // the scope keeps the store alive
        covers.dispatch(SetCovers(covers: ["b"]))
        let values = try await withDeadline {
            var values: [[String]] = []
            for await value in stream {
                values.append(value)
                if values.count == 3 { break }
            }
            return values
        }
        #expect(values == [[], ["a"], ["b"]])
    }

    @Test("A game graph joins a node of another game run in the same store; a run of another store is refused")
    func joins() async throws {
        let app = Store(initialState: AppState(), reducer: Self.appReducer)
        let other = Store(initialState: AppState(), reducer: Self.appReducer)
        var first = ActionGraph<GameState>()
        let covers = first.run(FetchCovers())
        let firstRun = app.scope(\.game).dispatch(first)
        let foreignRun = other.scope(\.game).dispatch(first)
        var second = ActionGraph<GameState>()
        let joined = second.join(covers, of: firstRun)
        let refused = second.join(covers, of: foreignRun)
        let run = app.scope(\.game).dispatch(second)
        #expect(try await withDeadline { try await run.value(of: joined) } == ["birds 1", "birds 2"])
        let outcome = try await withDeadline { await run.outcome(of: refused) }
        #expect(outcome.error as? GraphError == .joinedRunOfAnotherStore)
    }
}
