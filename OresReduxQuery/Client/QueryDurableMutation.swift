import OresRedux

/// A mutation that survives the app's death: run as a durable run (``QueryClient/mutate(_:runID:in:)``),
/// journaled before its call, it resumes at the next launch (`DurableRuns.resumeUnfinished()`).
///
/// Resumed, its graph is built again from the journaled mutation, and its optimistic change is
/// shown again on the entries cached at that moment (the state of the killed launch is gone; observe
/// the screens' entries before resuming). A call that ended before the kill is not made again: its
/// journaled response leads to the success's commit. A call that started and never ended is in
/// doubt and follows ``inDoubt``: called again with the same `IdempotencyKey`
/// (`rerunWithSameKey`), or failed, which rolls its change back (`failInDoubt`, the default), or
/// the app's check decides (`ask`).
///
/// ```swift
/// struct AddPost: QueryDurableMutation {
///     static let durableName = "addPost"
///     let post: Post
///     var inDoubt: InDoubtPolicy<Post> { .rerunWithSameKey }   // the server dedupes by key
///     var optimisticChanges: [QueryPatch] { [Feed(userID: 1).patch { $0.insert(post, at: 0) }] }
///     func run(_ context: ActionContext<AppState>) async throws -> Post {
///         try await context.dependencies.api.add(post, idempotencyKey: context.idempotencyKey)
///     }
/// }
/// queries.register(AddPost.self, in: durableRuns)          // at every launch, before resuming
/// try await queries.mutate(AddPost(post: draft), runID: "post-\(draft.id)", in: durableRuns)
/// ```
public protocol QueryDurableMutation: QueryMutation, Codable where Response: Codable {
    /// The mutation's name in the journal: keep it across releases, as a launch after an update
    /// resumes what the previous build journaled.
    static var durableName: String { get }
    /// What a relaunch does with a call that started and never ended; `InDoubtPolicy.failInDoubt`
    /// by default (at most once: the change is rolled back, and the call's error says why).
    var inDoubt: InDoubtPolicy<Response> { get }
}

extension QueryDurableMutation {
    /// `InDoubtPolicy.failInDoubt`: never called twice.
    public var inDoubt: InDoubtPolicy<Response> { .failInDoubt }
}

extension QueryClient {
    /// Registers `Mutation`'s graph in `runs`, under its ``QueryDurableMutation/durableName``: do it
    /// at every launch, before `resumeUnfinished()` and before the first ``mutate(_:runID:in:)``.
    public func register<Mutation: QueryDurableMutation>(_ type: Mutation.Type, in runs: DurableRuns<State>)
    where Mutation.State == State {
        runs.register(Mutation.durableName, parameters: Mutation.self) { mutation in durableGraph(of: mutation) }
    }

    /// Runs `mutation` as the durable run `runID` (a name for this change, such as `"post-42"`: its
    /// idempotency key derives from it), once its start is on disk: the same graph as
    /// ``mutate(_:in:)``, resumed at the next launch if the app dies before it ended.
    /// - Throws: `DurableRunError`, as `DurableRuns.start` does (a run id in use, a journal that
    ///   cannot record the start: then nothing ran, and no change was shown).
    @discardableResult
    public func mutate<Mutation: QueryDurableMutation>(
        _ mutation: Mutation, runID: String, in runs: DurableRuns<State>
    ) async throws(DurableRunError) -> GraphRun<State> where Mutation.State == State {
        try await runs.start(Mutation.durableName, runID: runID, parameters: mutation)
    }

    private func durableGraph<Mutation: QueryDurableMutation>(of mutation: Mutation) -> ActionGraph<State>
    where Mutation.State == State {
        var mutationGraph = graph(of: mutation)
        mutationGraph.graph.setDurable(mutationGraph.call, inDoubt: mutation.inDoubt)
        // Refetching is always safe to repeat, and its answer is the server's, not the journal's.
        mutationGraph.graph.setDurable(mutationGraph.refetch, inDoubt: .rerunWithSameKey, codec: .notJournaled)
        return mutationGraph.graph
    }
}
