/// What a durable run's start journals as its graph's fingerprint (see
/// ``JournalRecord/runStarted(runID:graph:parameters:fingerprint:formatVersion:instance:)``):
/// `sha256:<64 hex digits>`, the SHA-256 of the shape's canonical text (``DurableShape/text``),
/// then a newline and that text.
///
/// Resume compares the digests alone: a journal written before the fingerprint carried the shape
/// (the digest alone) resumes as before, and the shape after it only serves to say what changed.
package struct DurableFingerprint: Sendable, Hashable {
    /// `sha256:` and the shape text's SHA-256, in lowercase hex.
    package let digest: String
    /// The shape the digest was computed from; `nil` for a fingerprint journaled without it (by an
    /// earlier build), or one whose text does not read back to its digest.
    package let shape: DurableShape?

    /// The fingerprint of `shape`.
    package init(_ shape: DurableShape) {
        digest = Self.digest(of: shape.text)
        self.shape = shape
    }

    /// Reads back a journaled fingerprint.
    package init(journaled: String) {
        guard let newline = journaled.firstIndex(of: "\n") else {
            digest = journaled
            shape = nil
            return
        }
        digest = String(journaled[..<newline])
        let text = String(journaled[journaled.index(after: newline)...])
        shape = Self.digest(of: text) == digest ? DurableShape(text: text) : nil
    }

    /// The text a run's start journals: the digest, a newline, the shape's text.
    package var journaled: String {
        guard let shape else { return digest }
        return digest + "\n" + shape.text
    }

    private static func digest(of text: String) -> String {
        "sha256:" + SHA256.hex(SHA256.digest(Array(text.utf8)))
    }
}
