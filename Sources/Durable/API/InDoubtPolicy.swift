/// What resume does with an attempt of a durable async node that started but whose end was never
/// recorded (the process died during the call): the call may or may not have happened.
///
/// Declared per node with ``ActionGraph/setDurable(_:inDoubt:)``. Each attempt's start journals
/// the policy it runs under, and a relaunch settles the attempt by that policy, even if the
/// relaunching build declares another one for the node (see ``JournalRecord/InDoubtRule``).
public enum InDoubtPolicy<Response: Sendable>: Sendable {
    /// Calls the node again with the same ``IdempotencyKey``: for a call the server deduplicates
    /// by that key, or that is harmless to repeat. At least once, never with a new key.
    case rerunWithSameKey
    /// Never calls the node again: it ends `.failed` with an in-doubt error, so that its fallback
    /// can tell the user. At most once. The decision is journaled: a later relaunch replays the
    /// same failure.
    case failInDoubt
    /// Asks the app first, with the attempt's key (for example "does the post with this key
    /// exist?"); the answer decides, and is journaled (``InDoubtAnswer/succeeded(_:)`` as the
    /// response, ``InDoubtAnswer/fail`` as the in-doubt failure), so the check is asked once. A
    /// check that throws ends the node `.failed` with its error, and is asked again on a later
    /// relaunch.
    case ask(@Sendable (IdempotencyKey) async throws -> InDoubtAnswer<Response>)
}

/// The app's answer about an in-doubt attempt (see ``InDoubtPolicy/ask(_:)``).
public enum InDoubtAnswer<Response: Sendable>: Sendable {
    /// The call happened and produced `response`: the node succeeds with it, without a call.
    case succeeded(Response)
    /// The call did not happen: the node runs again, with the same key.
    case runAgain
    /// Nobody can tell: the node ends `.failed` with an in-doubt error.
    case fail
}

/// A durable node's policy, with its response type erased (kept in the graph's node settings).
enum ErasedInDoubtPolicy: Sendable {
    case rerunWithSameKey
    case failInDoubt
    case ask(@Sendable (IdempotencyKey) async throws -> InDoubtAnswer<ResponseSlot>)

    /// The policy as the journal keeps it with each attempt's start.
    var rule: JournalRecord.InDoubtRule {
        switch self {
        case .rerunWithSameKey: .rerunWithSameKey
        case .failInDoubt: .failInDoubt
        case .ask: .ask
        }
    }

    init<Response: Sendable>(_ policy: InDoubtPolicy<Response>) {
        switch policy {
        case .rerunWithSameKey: self = .rerunWithSameKey
        case .failInDoubt: self = .failInDoubt
        case .ask(let check):
            self = .ask { key in
                switch try await check(key) {
                case .succeeded(let response): .succeeded(wrapResponse(response))
                case .runAgain: .runAgain
                case .fail: .fail
                }
            }
        }
    }
}
