/// A synchronous action: a plain value that describes a change and goes to the reducer.
///
/// Dispatch one with `Store.dispatch(_:)` or place it in an ``ActionGraph`` with
/// `ActionGraph.send(_:after:)`. The store passes it through its middleware, then its reducer,
/// then notifies subscribers, all before `dispatch` returns.
///
/// ```swift
/// struct Increment: Action { var amount = 1 }
/// ```
public protocol Action: Sendable {}

/// An asynchronous action: work that produces a typed `Response` and never reaches the reducer.
///
/// `run` receives an ``ActionContext`` to read the store's state, dispatch sync actions, and reach the
/// store's ``ActionContext/dependencies`` (its API client, say) and ``ActionContext/clock``. The store
/// calls `run` once per attempt: once when dispatched on its own, or once per retry when it is a node
/// of an ``ActionGraph`` with a ``RetryPolicy``. Cancellation reaches `run` as Swift task cancellation,
/// so `URLSession` and `Task.sleep` inside it stop on their own.
///
/// ```swift
/// struct FetchProfile: AsyncAction {
///     let token: String
///     func run(_ context: ActionContext<AppState>) async throws -> Profile {
///         try await context.dependencies.api.profile(token: token)
///     }
/// }
/// ```
public protocol AsyncAction<Response>: Sendable {
    /// The state of the store this action runs in.
    associatedtype State: Sendable
    /// What the action produces: passed, typed, to the graph nodes that depend on it.
    associatedtype Response: Sendable
    /// Performs the work. Throwing fails this attempt; the error is the node's
    /// ``Outcome/failed(_:)`` once no retry is left.
    func run(_ context: ActionContext<State>) async throws -> Response
}

/// An async action that shares one call among every dispatch with the same key while it is in flight.
///
/// While an action of this type with an equal `key` is running in the store, dispatching another one
/// (directly, or as a graph node) does not call `run` again: it joins the call in flight and receives
/// the same response or error. Keys are compared per action type, so two types never share a call.
///
/// ```swift
/// struct FetchFeed: KeyedAsyncAction {
///     let userID: Int
///     var key: Int { userID }          // one request per user at a time
///     func run(_ context: ActionContext<AppState>) async throws -> [Post] { ... }
/// }
/// ```
///
/// The shared call is cancelled only when every dispatch that joined it has cancelled its
/// ``ActionTask`` (or its graph run). It is the work of all of them: what it dispatches through its
/// context reaches the state while the context of one dispatch that joined it would let it through
/// (a plain dispatch's always does), and is dropped once every one of them was cancelled, replaced
/// or ended with its owner.
public protocol KeyedAsyncAction: AsyncAction {
    /// What identifies "the same call": equal keys of the same action type share one in-flight call.
    associatedtype Key: Hashable & Sendable
    /// The key of this dispatch.
    var key: Key { get }
}

/// An async action that reaches nothing outside the store: its `run` only reads the state,
/// dispatches actions and awaits them, the way a library's machinery coordinates the calls it makes
/// on the app's behalf (a query cache's fetch, its upkeep).
///
/// The store runs it like any async action. A test store runs it for real instead of asking the
/// test for a stub, so a test stubs only the actions that do reach the outside world (the
/// endpoints), and a stub or a hold of the type, when the test sets one, still takes precedence.
///
/// ```swift
/// struct RefreshEverything: CoordinatingAsyncAction {
///     func run(_ context: ActionContext<AppState>) async throws {
///         async let feed = context.dispatch(FetchFeed(userID: 7)).value
///         async let profile = context.dispatch(FetchProfile(token: "t")).value
///         _ = try await (feed, profile)
///     }
/// }
/// ```
public protocol CoordinatingAsyncAction: AsyncAction {}
