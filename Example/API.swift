import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The three calls of the app's backend.
protocol API: Sendable {
    func logIn(user: String, password: String) async throws -> Session
    func profile(token: String) async throws -> Profile
    func feed(token: String) async throws -> [Post]
}

struct APIError: Error, CustomStringConvertible {
    var description: String
}

/// Serves the JSON fixtures next to this file with a realistic latency: no server needed.
struct FakeAPI: API {
    var latency: Duration = .milliseconds(120)
    var brokenFeed = false
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fixtures")

    func logIn(user: String, password: String) async throws -> Session {
        try await load("login.json", after: latency)
    }

    func profile(token: String) async throws -> Profile {
        try await load("profile.json", after: latency * 0.7)
    }

    func feed(token: String) async throws -> [Post] {
        if brokenFeed {
            try await Task.sleep(for: latency)
            throw APIError(description: "503 Service Unavailable")
        }
        return try await load("feed.json", after: latency * 1.2)
    }

    private func load<T: Decodable>(_ name: String, after delay: Duration) async throws -> T {
        try await Task.sleep(for: delay)      // cancellable, like a real request
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }
}

/// Real HTTP requests with URLSession to a server that serves the same JSON files.
struct HTTPAPI: API {
    let baseURL: URL
    var brokenFeed = false

    func logIn(user: String, password: String) async throws -> Session { try await get("login.json") }
    func profile(token: String) async throws -> Profile { try await get("profile.json") }
    func feed(token: String) async throws -> [Post] { try await get(brokenFeed ? "feed-missing.json" : "feed.json") }

    private func get<T: Decodable>(_ path: String) async throws -> T {
        let (data, response) = try await URLSession.shared.data(from: baseURL.appendingPathComponent(path))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw APIError(description: "HTTP \(status) for /\(path)") }
        return try JSONDecoder().decode(T.self, from: data)
    }
}

/// Fails the first `failures` feed calls, then behaves: a flaky network for the retry scenario.
final class FlakyFeed: API {
    let base: any API
    private let remaining: Countdown

    init(_ base: any API, failures: Int) {
        self.base = base
        self.remaining = Countdown(failures)
    }

    func logIn(user: String, password: String) async throws -> Session { try await base.logIn(user: user, password: password) }
    func profile(token: String) async throws -> Profile { try await base.profile(token: token) }
    func feed(token: String) async throws -> [Post] {
        if remaining.takeOne() { throw APIError(description: "connection reset") }
        return try await base.feed(token: token)
    }

    /// A counter behind NSLock (ThreadSanitizer sees pthread locks on Linux).
    final class Countdown: @unchecked Sendable {
        // @unchecked: `count` is only touched between lock() and unlock().
        private let lock = NSLock()
        private var count: Int
        init(_ count: Int) { self.count = count }
        func takeOne() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }
}
