import Foundation

/// Reads the store's clock as a ``QueryTime``.
enum QueryClock {
    /// Now on `clock`, from the origin its instant type keeps in this process.
    static func now(_ clock: any Clock<Duration>) -> QueryTime {
        func read<C: Clock<Duration>>(_ clock: C) -> QueryTime {
            let now = clock.now
            return QueryTime(sinceOrigin: ClockOrigins.shared.origin(of: now).duration(to: now))
        }
        return read(clock)
    }
}

/// The first instant of each clock type read in this process: the origin of its ``QueryTime``s.
///
/// Any origin will do, since only times of one clock are compared; one per type keeps them apart.
// Why this is safe to share: `origins` is read and written only under `lock` (a pthread mutex
// that ThreadSanitizer sees).
final class ClockOrigins: @unchecked Sendable {
    static let shared = ClockOrigins()

    private let lock = NSLock()
    private var origins: [ObjectIdentifier: any Sendable] = [:]

    func origin<Instant: InstantProtocol>(of now: Instant) -> Instant {
        lock.lock()
        defer { lock.unlock() }
        if let origin = origins[ObjectIdentifier(Instant.self)] as? Instant { return origin }
        origins[ObjectIdentifier(Instant.self)] = now
        return now
    }
}
