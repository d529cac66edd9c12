/// `1.5 s` for a failure message.
func describeSeconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return "\(value) s"
}

/// The last line of a wait's failure message when ThreadSanitizer is loaded (none otherwise): the
/// message names the timeout as set, and this says the wait allowed more.
func sanitizerNote() -> [String] {
    guard PoolTime.sanitizerFactor > 1 else { return [] }
    return ["(ThreadSanitizer is loaded: the wait allowed \(PoolTime.sanitizerFactor) times its timeout)"]
}
