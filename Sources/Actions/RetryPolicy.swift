/// How an async node of an ``ActionGraph`` retries after a failed attempt.
///
/// An attempt fails when `run` throws or when it runs past the node's timeout. A failed attempt is
/// retried while attempts remain and `shouldRetry` accepts the error, after the back-off delay, which
/// the store's clock paces. Cancellation is never retried.
///
/// ```swift
/// graph.setRetry(.retry(2, backoff: .exponential(initial: .milliseconds(200))), for: feed)
/// ```
public struct RetryPolicy: Sendable {
    /// How long to wait before the next attempt.
    public enum Backoff: Sendable, Equatable {
        /// Retry at once.
        case none
        /// Wait the same time before every retry.
        case constant(Duration)
        /// Wait `initial`, then `initial * multiplier`, and so on, never more than `maximum`.
        case exponential(initial: Duration, multiplier: Double = 2, maximum: Duration = .seconds(60))

        /// The wait before retry number `retry` (1 for the first retry).
        ///
        /// Total for any input: a negative duration counts as zero; an exponential back-off whose
        /// multiplier is below 1 (or not a number) waits `initial` every time, and one that would
        /// pass `maximum` (however large the multiplier, infinity included) waits `maximum`.
        public func delay(beforeRetry retry: Int) -> Duration {
            switch self {
            case .none:
                return .zero
            case .constant(let delay):
                return Swift.max(delay, .zero)
            case .exponential(let initial, let multiplier, let maximum):
                let initial = Swift.max(initial, .zero)
                let maximum = Swift.max(maximum, .zero)
                guard !multiplier.isNaN, multiplier >= 1, initial > .zero else { return Swift.min(initial, maximum) }
                // Each step is checked in seconds as a Double first, so no multiplication can overflow
                // `Duration`'s integer arithmetic; below the maximum it is done exactly as written.
                let maximumSeconds = Self.seconds(maximum)
                var delay = initial
                for _ in 1..<Swift.max(1, retry) {
                    if Self.seconds(delay) * multiplier >= maximumSeconds { return maximum }
                    delay = delay * multiplier
                }
                return Swift.min(delay, maximum)
            }
        }

        private static func seconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }

    /// Attempts in all, the first included; at least 1.
    public var maxAttempts: Int
    /// The wait between attempts.
    public var backoff: Backoff
    /// Whether an error is worth another attempt (a 401 usually is not). Cancellation never is.
    public var shouldRetry: @Sendable (any Error) -> Bool

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAttempts: attempts in all, the first included; values below 1 count as 1.
    ///   - backoff: the wait between attempts.
    ///   - shouldRetry: whether an error is worth another attempt; every error by default.
    public init(
        maxAttempts: Int, backoff: Backoff = .none,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }
    ) {
        self.maxAttempts = Swift.max(1, maxAttempts)
        self.backoff = backoff
        self.shouldRetry = shouldRetry
    }

    /// Up to `retries` more attempts after the first (negative counts as 0).
    public static func retry(
        _ retries: Int, backoff: Backoff = .none,
        when shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }
    ) -> RetryPolicy {
        let (attempts, overflow) = Swift.max(0, retries).addingReportingOverflow(1)
        return RetryPolicy(maxAttempts: overflow ? .max : attempts, backoff: backoff, shouldRetry: shouldRetry)
    }

    /// One attempt, no retry: the default.
    public static let never = RetryPolicy(maxAttempts: 1)
}
