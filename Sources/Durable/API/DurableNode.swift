import Foundation

/// How a durable run journals one async node: its response's codec and its in-doubt policy.
struct DurableNode: Sendable {
    /// Encodes a response of the node; `nil` keeps it out of the journal.
    let encode: @Sendable (ResponseSlot) throws -> Data?
    /// Decodes a journaled response of the node (for resume).
    let decode: @Sendable (Data) throws -> ResponseSlot
    let inDoubt: ErasedInDoubtPolicy
    /// The response type's name, for a person (`Int`, `Profile`).
    let responseType: String

    init<Response: Sendable>(codec: DurableCodec<Response>, inDoubt: InDoubtPolicy<Response>) {
        responseType = String(describing: Response.self)
        switch codec.storage {
        case .coded(let encode, let decode):
            self.encode = { slot in try encode(unwrapResponse(slot, as: Response.self)) }
            self.decode = { data in wrapResponse(try decode(data)) }
        case .notJournaled:
            self.encode = { _ in nil }
            self.decode = { _ in
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "the node keeps its responses out of the journal"))
            }
        }
        self.inDoubt = ErasedInDoubtPolicy(inDoubt)
    }
}

/// How a durable node's response is kept in the journal: as JSON (the default), encoded by the
/// app (to encrypt it, for example), or not at all (a secret: the node runs again on resume).
///
/// ```swift
/// graph.setDurable(token, inDoubt: .rerunWithSameKey, codec: .notJournaled)
/// graph.setDurable(
///     profile, inDoubt: .rerunWithSameKey,
///     codec: DurableCodec(encode: { try vault.seal(JSONEncoder().encode($0)) },
///                         decode: { try JSONDecoder().decode(Profile.self, from: vault.open($0)) }))
/// ```
public struct DurableCodec<Response: Sendable>: Sendable {
    enum Storage: Sendable {
        case coded(
            encode: @Sendable (Response) throws -> Data,
            decode: @Sendable (Data) throws -> Response)
        case notJournaled
    }

    let storage: Storage

    /// A codec of the app's own. `encode` turns a response into the bytes the journal keeps (they
    /// reach the disk as given: encrypt them here if they must not be read there); `decode` turns
    /// them back on resume, in a later launch. A response `encode` cannot encode fails its node with
    /// ``DurableRunError/responseNotEncodable(node:reason:)`` (the journal records that the call
    /// happened); bytes `decode` cannot decode fail it with
    /// ``DurableRunError/responseNotDecodable(node:reason:)``.
    public init(
        encode: @escaping @Sendable (Response) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Response
    ) {
        storage = .coded(encode: encode, decode: decode)
    }

    /// Keeps the response out of the journal: the attempt's end is recorded without it
    /// (``JournalRecord/AttemptEnd/responseNotJournaled``), and a relaunch before the run finished
    /// calls the node again, with the same ``IdempotencyKey``, instead of replaying a response. For
    /// a response that must never reach the disk (a token); the node must be safe to call again.
    public static var notJournaled: DurableCodec { DurableCodec(storage: .notJournaled) }

    private init(storage: Storage) {
        self.storage = storage
    }
}

extension DurableCodec where Response: Codable {
    /// The response as JSON (`JSONEncoder` and `JSONDecoder`): the codec of
    /// ``ActionGraph/setDurable(_:inDoubt:)``.
    public static var json: DurableCodec {
        DurableCodec(
            encode: { try JSONEncoder().encode($0) }, decode: { try JSONDecoder().decode(Response.self, from: $0) })
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
        setDurable(node, inDoubt: inDoubt, codec: .json)
    }

    /// Declares the async node `node` durable, as ``setDurable(_:inDoubt:)`` does, with its response
    /// journaled by `codec`: the app's own encoding (to encrypt it, for example), or
    /// ``DurableCodec/notJournaled`` to keep it out of the journal (the node then runs again, with
    /// the same key, when a relaunch resumes its run).
    ///
    /// In a graph that runs as a plain dispatch, this changes nothing.
    public mutating func setDurable<R: Sendable>(_ node: Node<R>, inDoubt: InDoubtPolicy<R>, codec: DurableCodec<R>) {
        updateSettings(of: node) { $0.durable = DurableNode(codec: codec, inDoubt: inDoubt) }
    }
}
