/// An owner that lasts as long as the task that holds it: what a SwiftUI view's `.task(owner:)`
/// rests on, and how a screen on Linux ties its work to a `Task` it cancels when it goes away.
extension WorkOwner {
    /// Ties the owner to the calling task: calls `work` with the owner, then waits until the task is
    /// cancelled, and ends the owner at that cancellation.
    ///
    /// The owner ends the moment the task is cancelled, whether `work` is still running or has
    /// returned (and at once if the task was cancelled before the call: then `work` gets an owner
    /// that refuses every dispatch). The work `work` dispatched through the owner goes on after
    /// `work` returns, until then. This returns only once the task is cancelled and `work` has
    /// returned: call it last, in a task that lasts as long as the screen (a SwiftUI `.task`, which
    /// is cancelled when its view disappears).
    ///
    /// ```swift
    /// let screen = Task {
    ///     await store.makeOwner("Feed").endWhenCancelled { owner in owner.dispatch(feedGraph()) }
    /// }
    /// screen.cancel()  // the screen goes away: the feed's run ends with it
    /// ```
    /// - Parameters:
    ///   - isolation: the actor `work` runs on: the caller's (the main actor, from a view).
    ///   - work: starts the screen's work under the owner; it may also await it.
    public func endWhenCancelled(
        isolation: isolated (any Actor)? = #isolation, _ work: (WorkOwner<State>) async -> Void = { _ in }
    ) async {
        await withTaskCancellationHandler {
            await work(self)
            await untilCancelled()
        } onCancel: {
            self.end()
        }
    }
}

/// Returns once the calling task is cancelled (at once if it is already).
private func untilCancelled(isolation: isolated (any Actor)? = #isolation) async {
    let (never, continuation) = AsyncStream<Never>.makeStream()
    // An AsyncStream's iteration ends when its task is cancelled; nothing is ever yielded.
    for await _ in never {}
    withExtendedLifetime(continuation) {}
}
