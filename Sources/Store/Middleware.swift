/// Code that sees every sync action before the reducer does.
///
/// The body receives the action, a context of the store, and `next`, which passes an action on to
/// the next middleware (and after the last one, to the reducer and subscribers). A middleware may
/// forward the action (`next(action)`), drop it (not call `next`), replace it (`next(other)`), or
/// dispatch more (`context.dispatch(...)`: queued and applied after the current action). Middleware
/// runs in the order given to the store, on the thread that dispatched, one action at a time.
///
/// ```swift
/// let dropNegative = Middleware<AppState> { action, context, next in
///     if let add = action as? Add, add.amount < 0 { return }
///     next(action)
/// }
/// ```
public struct Middleware<State: Sendable>: Sendable {
    @usableFromInline
    let body: @Sendable (_ action: any Action, _ context: ActionContext<State>, _ next: (any Action) -> Void) -> Void

    /// Creates a middleware from its body.
    /// - Parameter body: called once per action that reaches this middleware; `next` must be called
    ///   before `body` returns if the action (or a replacement) should go on.
    public init(
        _ body:
            @escaping @Sendable (
                _ action: any Action,
                _ context: ActionContext<State>,
                _ next: (any Action) -> Void
            ) -> Void
    ) {
        self.body = body
    }
}

extension Middleware {
    /// A middleware that logs each action and the state it produced.
    ///
    /// For every action it writes one line `action: <action>` and, after the reducer ran, one line
    /// `state: <state>`. An action a later middleware drops is still logged, with the unchanged state.
    /// - Parameter log: where the lines go; `print` by default.
    public static func logger(_ log: @escaping @Sendable (String) -> Void = { print($0) }) -> Middleware {
        Middleware { action, context, next in
            log("action: \(action)")
            next(action)
            log("state: \(context.state)")
        }
    }
}
