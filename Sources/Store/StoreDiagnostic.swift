// The C library, for `write` to standard error, on every platform Swift ships for.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(WASILibc)
    import WASILibc
#elseif canImport(ucrt)
    import ucrt
#else
    #error("OresRedux: no C library module found (looked for Darwin, Glibc, Musl, Android, WASILibc, ucrt)")
#endif

/// Something the store refused or dropped without crashing, with a sentence that says what and why.
public struct StoreDiagnostic: Sendable, CustomStringConvertible, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// An action or graph was dispatched after its store was released (through a context that
        /// outlived it); it was dropped, or the graph's run was cancelled.
        case dispatchAfterRelease
        /// A reducer, or a graph node's `make` or fallback closure, dispatched; the dispatch was
        /// dropped (or the graph's run cancelled, or the async action failed) and the store went on.
        /// They must be pure: dispatch from a middleware, a subscriber or an async action instead.
        case dispatchFromReducer
        /// A durable run's journal could not record what the run did after the fact (a sync
        /// node's application, the run's end) or remove a finished run; the run went on, and the
        /// journal keeps what it had (see ``DurableRuns``).
        case journalFailed
        /// A graph or an async action was dispatched to a ``WorkOwner`` that had ended, or a graph
        /// with durable nodes was dispatched to an owner (durable runs belong to the app, never to
        /// a screen); the run was cancelled before any of its nodes ran, or the action was not started.
        case dispatchRefusedByOwner
    }

    /// What happened.
    public let kind: Kind
    /// A sentence for a person: what was dropped and why.
    public let message: String

    /// Creates a diagnostic.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The default diagnostic handler: one line on standard error.
    public static let printToStandardError: @Sendable (StoreDiagnostic) -> Void = { diagnostic in
        printLineToStandardError("OresRedux: \(diagnostic.message)")
    }
}

/// Writes `line` and a newline on standard error, unbuffered.
func printLineToStandardError(_ line: String) {
    _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
}
