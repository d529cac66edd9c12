import OresRedux

// The app's state, actions and reducer: what a view controller used to keep in a dozen properties
// and nested callbacks, now one value changed in one place.

struct Session: Codable, Equatable, Sendable {
    var token: String
    var user: String
}

struct Profile: Codable, Equatable, Sendable {
    var name: String
    var handle: String
    var followers: Int
}

struct Post: Codable, Equatable, Sendable {
    var id: Int
    var author: String
    var text: String
}

enum Screen: Equatable, Sendable {
    case signedOut
    case loading
    case home
}

struct AppState: Equatable, Sendable {
    var screen = Screen.signedOut
    var session: Session?
    var profile: Profile?
    var feed: [Post] = []
    var banner: String?
    /// The feed search (see Search.swift): what is typed, and the posts found for `searchedFor`.
    var searchQuery = ""
    var searchedFor: String?
    var searchResults: [Post] = []
}

// MARK: Sync actions: they reach the reducer.
// Codable so that the live inspector (`--inspect`, Live.swift) can dispatch a recorded one again.

struct StartLoading: Action, Codable {}
struct SignedIn: Action, Codable { var session: Session }
struct ProfileLoaded: Action, Codable { var profile: Profile }
struct ShowHome: Action, Codable { var profile: Profile; var feed: [Post] }
struct ShowBanner: Action, Codable { var message: String }

let appReducer = Reducer<AppState>.combine(
    .on(StartLoading.self) { state, _ in
        state.screen = .loading
        state.banner = nil
    },
    .on(SignedIn.self) { state, action in state.session = action.session },
    .on(ProfileLoaded.self) { state, action in state.profile = action.profile },
    .on(ShowHome.self) { state, action in
        state.profile = action.profile
        state.feed = action.feed
        state.screen = .home
    },
    .on(ShowBanner.self) { state, action in state.banner = action.message },
    .on(SetSearchQuery.self) { state, action in state.searchQuery = action.query },
    .on(ShowSearchResults.self) { state, action in
        state.searchedFor = action.query
        state.searchResults = action.posts
    }
)

// MARK: Async actions: they call the API and answer typed responses.
// Each carries only its data; the API client comes from the store (`context.dependencies.api`).

struct LogIn: AsyncAction, Equatable {
    let user: String
    let password: String
    func run(_ context: ActionContext<AppState>) async throws -> Session {
        try await context.dependencies.api.logIn(user: user, password: password)
    }
}

struct FetchProfile: AsyncAction, Equatable {
    let token: String
    func run(_ context: ActionContext<AppState>) async throws -> Profile {
        try await context.dependencies.api.profile(token: token)
    }
}

struct FetchFeed: AsyncAction, Equatable {
    let token: String
    func run(_ context: ActionContext<AppState>) async throws -> [Post] {
        try await context.dependencies.api.feed(token: token)
    }
}
