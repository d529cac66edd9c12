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

/// Serves the JSON fixtures in `Example/fixtures` with a realistic latency: no server needed.
struct FakeAPI: API {
    var latency: Duration = .milliseconds(120)
    var brokenFeed = false
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

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
        try await Task.sleep(for: delay)  // cancellable, like a real request
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }
}

/// Real HTTP requests with URLSession to a server that serves the same JSON files.
///
/// Every call has a timeout, and every failure is one line that names the request and the cause,
/// such as `GET /login.json: the server closed the connection`.
struct HTTPAPI: API {
    let baseURL: URL
    var brokenFeed = false
    /// The longest a call may go without an answer.
    var timeout: Duration = .seconds(5)

    func logIn(user: String, password: String) async throws -> Session { try await get("login.json") }
    func profile(token: String) async throws -> Profile { try await get("profile.json") }
    func feed(token: String) async throws -> [Post] { try await get(brokenFeed ? "feed-missing.json" : "feed.json") }

    private func get<T: Decodable>(_ path: String) async throws -> T {
        let name = "GET /\(path)"
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.timeoutInterval = timeout.seconds
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.send(request)
        } catch {
            throw APIError(description: "\(name): \(Self.cause(of: error, timeout: timeout))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw APIError(description: "\(name): HTTP \(status)") }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw APIError(description: "\(name): the answer is not the expected JSON (\(data.count) bytes)")
        }
    }

    /// Sends `request` and returns its answer; when the calling task is cancelled, it returns at once
    /// with `CancellationError` and ignores the answer.
    ///
    /// Why not `URLSession.data(for:)`: on Linux, cancelling an in-flight request (the Example's
    /// fourth scenario does) can crash swift-corelibs-foundation ("Trying to access a behaviour for
    /// a task that in not in the registry"). Leaving the request to end by itself, within its
    /// timeout, avoids the race.
    static func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let answer = Answer()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(with: continuation)
                URLSession.shared.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        answer.give(.success((data, response)))
                    } else {
                        answer.give(.failure(error ?? URLError(.badServerResponse)))
                    }
                }.resume()
            }
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }

    /// The first of the answer and the cancellation, given to the waiting call exactly once.
    final class Answer: @unchecked Sendable {
        // @unchecked: both properties are only touched between lock() and unlock().
        private let lock = NSLock()
        private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        private var early: Result<(Data, URLResponse), any Error>?

        func wait(with continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
            lock.lock()
            if let early {
                lock.unlock()
                continuation.resume(with: early)
                return
            }
            self.continuation = continuation
            lock.unlock()
        }

        func give(_ result: Result<(Data, URLResponse), any Error>) {
            lock.lock()
            guard let continuation else {
                if early == nil { early = result }
                lock.unlock()
                return
            }
            self.continuation = nil
            early = result  // later answers are ignored
            lock.unlock()
            continuation.resume(with: result)
        }
    }

    /// A transport error as the short sentence a person needs, instead of an NSError dump.
    static func cause(of error: any Error, timeout: Duration) -> String {
        guard let error = error as? URLError else {
            return error is CancellationError ? "cancelled" : String(describing: error).oneLine
        }
        switch error.code {
        case .timedOut: return "no answer within \(timeout)"
        case .cannotConnectToHost: return "could not connect (is the server running?)"
        case .cannotFindHost, .dnsLookupFailed: return "no such host"
        case .networkConnectionLost: return "the server closed the connection"
        case .badServerResponse: return "the server closed the connection or did not answer in HTTP"
        case .notConnectedToInternet: return "not connected to a network"
        case .cancelled: return "cancelled"
        default: return "network error \(error.code.rawValue)"
        }
    }
}

extension Duration {
    /// The duration in seconds, for Foundation's `TimeInterval`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension String {
    /// The text on one line, for errors printed by the Example.
    var oneLine: String {
        split(whereSeparator: \.isNewline).joined(separator: " ")
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

    func logIn(user: String, password: String) async throws -> Session {
        try await base.logIn(user: user, password: password)
    }
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

/// Answers every feed call `delay` later than the backend does (a slow connection): the scenarios in
/// which the user leaves while the feed loads. The wait is cancellable, like a real request, so a
/// cancelled feed ends at once; without it the user's move would race the feed's answer, and a busy
/// machine could let the feed answer first.
struct SlowFeed: API {
    let base: any API
    var delay: Duration = .seconds(3)

    func logIn(user: String, password: String) async throws -> Session {
        try await base.logIn(user: user, password: password)
    }
    func profile(token: String) async throws -> Profile { try await base.profile(token: token) }
    func feed(token: String) async throws -> [Post] {
        try await Task.sleep(for: delay)
        return try await base.feed(token: token)
    }
}
