import Foundation

/// How a durable run journals one async node: its response's codec and its in-doubt policy.
struct DurableNode: Sendable {
    /// Encodes a response of the node (JSON).
    let encode: @Sendable (ResponseSlot) throws -> Data
    /// Decodes a journaled response of the node (for resume).
    let decode: @Sendable (Data) throws -> ResponseSlot
    let inDoubt: ErasedInDoubtPolicy

    init<Response: Codable & Sendable>(_ type: Response.Type, inDoubt: InDoubtPolicy<Response>) {
        encode = { slot in try JSONEncoder().encode(unwrapResponse(slot, as: Response.self)) }
        decode = { data in wrapResponse(try JSONDecoder().decode(Response.self, from: data)) }
        self.inDoubt = ErasedInDoubtPolicy(inDoubt)
    }
}

extension ActionGraph {
    /// Declares the async node `node` durable: when the graph runs as a durable run (see
    /// ``DurableRuns``), each of its attempts is journaled before it starts, with its
    /// ``IdempotencyKey``, and its response, encoded as JSON, when it ends; `inDoubt` says what
    /// resume does with an attempt whose end was never recorded.
    ///
    /// In a graph that runs as a plain dispatch, this changes nothing.
    public mutating func setDurable<R: Codable & Sendable>(_ node: Node<R>, inDoubt: InDoubtPolicy<R>) {
        updateSettings(of: node) { $0.durable = DurableNode(R.self, inDoubt: inDoubt) }
    }
}
