/// One optimistic change to one entry: what a mutation expects the server to make of the cached
/// response, shown before the server has answered.
///
/// ```swift
/// QueryPatch(QueryKey("feed"), as: [Post].self) { posts in posts.insert(draft, at: 0) }
/// ```
///
/// The change is kept as a layer over the entry's confirmed value, so it is applied again on top
/// of every answer that arrives while the mutation is in flight, and removed alone when the
/// mutation fails.
public struct QueryPatch: Sendable {
    /// The entry it changes.
    public let key: QueryKey
    let change: @Sendable (QueryValue) -> QueryValue

    /// A change to the entry at `key`, whose response is a `Response`; an entry holding a response
    /// of another type is left as it is.
    public init<Response: Equatable & Sendable>(
        _ key: QueryKey, as type: Response.Type, _ change: @escaping @Sendable (inout Response) -> Void
    ) {
        self.key = key
        self.change = { value in
            guard var response = value.value(as: Response.self) else { return value }
            change(&response)
            return QueryValue(response)
        }
    }
}

/// An optimistic change as a layer of an entry: kept over the confirmed value until its mutation
/// fails (removed) or succeeded and an answer newer than that success arrived (no longer needed).
struct QueryLayer: Equatable, Sendable {
    let mutation: QueryMutationID
    let change: @Sendable (QueryValue) -> QueryValue
    /// The stamp of the mutation's successful commit, once there was one.
    var settledAt: UInt64?

    static func == (lhs: QueryLayer, rhs: QueryLayer) -> Bool {
        lhs.mutation == rhs.mutation && lhs.settledAt == rhs.settledAt
    }
}
