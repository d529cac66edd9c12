/// What becomes of a call in flight when the last observer of its entry leaves: an endpoint's
/// choice (``QueryDeclaring/callWhenUnobserved``).
public enum QueryUnobservedCall: Hashable, Sendable, Codable {
    /// The call is cancelled (its task is cancelled, so a `URLSession` request stops) and its
    /// answer, should it come anyway, is discarded: nobody needs it any more. The default.
    case cancel
    /// The call goes on and its answer is applied as any other, so that a screen that comes back
    /// before the entry is removed finds it there (an expensive call, a response worth keeping).
    case finishIntoCache
}
