import OresRedux

// The app's one dependency: its backend. main.swift registers the live client (FakeAPI, HTTPAPI or
// FlakyFeed) in the store's options; the async actions read it from their context.

/// The key under which the store keeps the API client.
private enum APIKey: DependencyKey {
    /// Until a store sets one, every call fails with a sentence that says what was forgotten.
    static let defaultValue: any API = UnsetAPI()
}

extension Dependencies {
    /// The app's backend.
    var api: any API {
        get { self[APIKey.self] }
        set { self[APIKey.self] = newValue }
    }
}

/// The API of a store that was given none: fails loudly instead of calling a network by surprise.
private struct UnsetAPI: API {
    private var unset: APIError { APIError(description: "no API client: set Dependencies.api in the StoreOptions") }
    func logIn(user: String, password: String) async throws -> Session { throw unset }
    func profile(token: String) async throws -> Profile { throw unset }
    func feed(token: String) async throws -> [Post] { throw unset }
}
