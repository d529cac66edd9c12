/// The key every attempt of one node of one durable run carries, so that a server can recognise a
/// repeated request and answer it once.
///
/// It is derived, never drawn: the same run id and node name give the same key in every attempt, in
/// every process and in every release of the library; a different run id or node name gives a
/// different key. The derivation (version 1) is written here so that anyone can recompute it:
///
/// 1. the message is the UTF-8 bytes of `OresRedux.IdempotencyKey.v1`, one zero byte, the byte count
///    of the run id's UTF-8 as a 64-bit big-endian integer, the run id's UTF-8, the byte count of the
///    node name's UTF-8 (64-bit big-endian), and the node name's UTF-8;
/// 2. its SHA-256 digest is taken, and the first 16 bytes are written as 32 lowercase hex digits;
/// 3. the key is `ik1-` followed by those digits (36 ASCII characters, safe in any HTTP header).
///
/// The lengths make the encoding unambiguous (`("a/b", "c")` and `("a", "b/c")` differ), and the
/// key does not reveal the run id or node name.
public struct IdempotencyKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The key as sent to a server, for example in an `Idempotency-Key` header.
    public let rawValue: String

    /// The key of every attempt of node `node` in the durable run `runID`.
    public init(runID: String, node: String) {
        var message = Array("OresRedux.IdempotencyKey.v1".utf8)
        message.append(0)
        Self.appendLengthPrefixed(runID, to: &message)
        Self.appendLengthPrefixed(node, to: &message)
        rawValue = "ik1-" + SHA256.hex(SHA256.digest(message).prefix(16))
    }

    /// A key read back from storage or from a request, as it was written (no check of its form: a
    /// key derived by a later version may look different).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The key itself, `rawValue`.
    public var description: String { rawValue }

    /// Decodes the key from a single string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the key as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Appends the UTF-8 byte count of `text` (64-bit big-endian), then its UTF-8 bytes.
    static func appendLengthPrefixed(_ text: String, to message: inout [UInt8]) {
        let bytes = Array(text.utf8)
        let count = UInt64(bytes.count)  // Int to UInt64 never loses a count (counts are not negative).
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8((count >> UInt64(shift)) & 0xFF))
        }
        message.append(contentsOf: bytes)
    }
}
