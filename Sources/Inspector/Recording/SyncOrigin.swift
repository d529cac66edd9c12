/// Where the action being applied on this thread comes from, when an observed graph run applies it:
/// the run, the node, and whether it is the node itself, its fallback or the run's cancel action.
///
/// The run sets it around the one call that takes its action through middleware, reducer and
/// subscribers; what those dispatch is queued and applied after that call, so it is never marked.
/// An inspector's middleware reads it to tell which step a node released.
struct SyncOrigin: Sendable, Equatable {
    enum Kind: String, Sendable {
        case node, fallback, cancelAction
    }

    let run: StoreEvent.ID
    let node: Int?
    let kind: Kind

    /// The origin of the action this thread is applying, if a run marked it.
    @TaskLocal static var current: SyncOrigin?
}
