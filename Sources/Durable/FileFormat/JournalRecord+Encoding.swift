import Foundation

/// The binary form of one record, the payload of a journal frame (see ``JournalRecord/encoded()``).
///
/// Big-endian throughout: one kind byte (1 run started, 2 attempt started, 3 attempt ended, 4 sync
/// applied, 5 run finished, 6 run cancelled), then the case's fields in declaration order (a run's
/// format version comes before its instance, so a newer format is recognised before anything it
/// may have changed). A string or `Data` is a 32-bit byte count and its bytes (strings as UTF-8);
/// an `Int` is a signed 64-bit and a `UInt64` an unsigned 64-bit integer. An attempt's start ends
/// with its in-doubt policy, one byte (1 rerun with the same key, 2 fail in doubt, 3 ask), absent
/// in format 1. An attempt's end is a byte and what that case holds: 1 response (its bytes), 3 kept
/// out of the journal, 4 failed (the error's description), 5 not called, 6 cancelled, 7 failed in
/// doubt (its key); 2 is format 1's failure, a text, read by `formatOneEnd(node:text:)`.
extension JournalRecord {
    /// The largest encoded record the journal accepts: a response bigger than this belongs in the
    /// app's own storage, with a reference to it in the response.
    static let maximumEncodedSize = 64 << 20

    /// This record in the journal's binary form, for a ``RunJournal`` that keeps records in the
    /// app's own database; ``init(decoding:)`` reads it back, in any process and any later release.
    /// - Throws: ``JournalError/encodingFailed(path:reason:)`` (path `(record)`) if the record is
    ///   larger than 64 MiB.
    public func encoded() throws(JournalError) -> Data {
        Data(try encodedBytes(path: "(record)"))
    }

    /// Reads back a record written by ``encoded()``, by this build or an earlier one. A failed
    /// attempt's end written by format 1 (as the text of its error) is read as the case it stood
    /// for: ``AttemptEnd/notCalled``, ``AttemptEnd/cancelled`` or ``AttemptEnd/failedInDoubt(key:)``
    /// for the exact texts format 1 wrote for those, ``AttemptEnd/failed(description:)`` otherwise.
    /// - Throws: ``JournalError/corruptRecord(path:offset:reason:)`` (path `(record)`, the offset
    ///   within `data`) if `data` is not a whole record, or
    ///   ``JournalError/newerFormat(path:version:newestReadable:)`` for a run started by a newer
    ///   format.
    public init(decoding data: Data) throws(JournalError) {
        self = try Self.decode(Array(data), path: "(record)", baseOffset: 0)
    }

    /// The payload bytes; errors name `path`.
    func encodedBytes(path: String) throws(JournalError) -> [UInt8] {
        var writer = ByteWriter(path: path)
        switch self {
        case .runStarted(let runID, let graph, let parameters, let fingerprint, let formatVersion, let instance):
            writer.byte(1)
            try writer.string(runID)
            try writer.string(graph)
            try writer.bytes(parameters)
            try writer.string(fingerprint)
            try writer.int(formatVersion)
            writer.uint64(instance)
        case .attemptStarted(let node, let attempt, let key, let inDoubt):
            writer.byte(2)
            try writer.string(node)
            try writer.int(attempt)
            try writer.string(key.rawValue)
            switch inDoubt {
            case .rerunWithSameKey?: writer.byte(1)
            case .failInDoubt?: writer.byte(2)
            case .ask?: writer.byte(3)
            case nil: break
            }
        case .attemptEnded(let node, let attempt, let end):
            writer.byte(3)
            try writer.string(node)
            try writer.int(attempt)
            switch end {
            case .response(let response):
                writer.byte(1)
                try writer.bytes(response)
            case .responseNotJournaled:
                writer.byte(3)
            case .failed(let description):
                writer.byte(4)
                try writer.string(description)
            case .notCalled:
                writer.byte(5)
            case .cancelled:
                writer.byte(6)
            case .failedInDoubt(let key):
                writer.byte(7)
                try writer.string(key.rawValue)
            }
        case .syncApplied(let node, let commitCount):
            writer.byte(4)
            try writer.string(node)
            writer.uint64(commitCount)
        case .runFinished:
            writer.byte(5)
        case .runCancelled:
            writer.byte(6)
        }
        guard writer.output.count <= Self.maximumEncodedSize else {
            throw .encodingFailed(
                path: path,
                reason: "the record is \(writer.output.count) bytes, more than the \(Self.maximumEncodedSize) allowed")
        }
        return writer.output
    }

    /// Decodes one payload; offsets in errors are `baseOffset` plus the offset within `bytes`.
    static func decode(_ bytes: [UInt8], path: String, baseOffset: Int) throws(JournalError) -> JournalRecord {
        var reader = ByteReader(bytes: bytes, path: path, baseOffset: baseOffset)
        let kind = try reader.byte()
        let record: JournalRecord
        switch kind {
        case 1:
            let runID = try reader.string()
            let graph = try reader.string()
            let parameters = try reader.bytes()
            let fingerprint = try reader.string()
            let versionOffset = reader.offset
            let formatVersion = try reader.int()
            guard formatVersion <= currentFormatVersion else {
                throw .newerFormat(path: path, version: formatVersion, newestReadable: currentFormatVersion)
            }
            guard formatVersion >= 1 else {
                throw reader.corrupt(at: versionOffset, "format version \(formatVersion) is not a version")
            }
            record = .runStarted(
                runID: runID, graph: graph, parameters: Data(parameters), fingerprint: fingerprint,
                formatVersion: formatVersion, instance: try reader.uint64())
        case 2:
            let node = try reader.string()
            let attempt = try reader.int()
            let key = IdempotencyKey(rawValue: try reader.string())
            var inDoubt: InDoubtRule?
            if reader.offset < bytes.count {
                let ruleOffset = reader.offset
                switch try reader.byte() {
                case 1: inDoubt = .rerunWithSameKey
                case 2: inDoubt = .failInDoubt
                case 3: inDoubt = .ask
                case let other: throw reader.corrupt(at: ruleOffset, "unknown in-doubt policy \(other)")
                }
            }
            record = .attemptStarted(node: node, attempt: attempt, key: key, inDoubt: inDoubt)
        case 3:
            let node = try reader.string()
            let attempt = try reader.int()
            let endOffset = reader.offset
            let end: AttemptEnd
            switch try reader.byte() {
            case 1: end = .response(Data(try reader.bytes()))
            case 2: end = Self.formatOneEnd(node: node, text: try reader.string())
            case 3: end = .responseNotJournaled
            case 4: end = .failed(description: try reader.string())
            case 5: end = .notCalled
            case 6: end = .cancelled
            case 7: end = .failedInDoubt(key: IdempotencyKey(rawValue: try reader.string()))
            case let other: throw reader.corrupt(at: endOffset, "unknown attempt end \(other)")
            }
            record = .attemptEnded(node: node, attempt: attempt, end: end)
        case 4:
            let node = try reader.string()
            record = .syncApplied(node: node, commitCount: try reader.uint64())
        case 5:
            record = .runFinished
        case 6:
            record = .runCancelled
        default:
            throw reader.corrupt(at: 0, "unknown record kind \(kind)")
        }
        guard reader.offset == bytes.count else {
            throw reader.corrupt(at: reader.offset, "\(bytes.count - reader.offset) unexpected bytes after the record")
        }
        return record
    }
}

extension JournalRecord {
    /// Format 1 journaled every failed attempt as the text of its error; format 2 journals the
    /// case. This is the one place that text is read, and the rule is fixed: format 1 wrote exactly
    /// these texts for its three ends that were not failures of the call's own, and nothing else
    /// is taken for them.
    /// - `cancelled before its call`: announced, never called (``AttemptEnd/notCalled``);
    /// - `CancellationError()`: cut off by cancellation (``AttemptEnd/cancelled``);
    /// - `the durable node "<node>" was in flight when the app stopped, and may or may not have
    ///   happened (key <key>); it is not called again`, with this record's node: settled in doubt
    ///   by a relaunch (``AttemptEnd/failedInDoubt(key:)``, with that key);
    /// - any other text: the call failed (``AttemptEnd/failed(description:)``).
    static func formatOneEnd(node: String, text: String) -> AttemptEnd {
        switch text {
        case "cancelled before its call": return .notCalled
        case "CancellationError()": return .cancelled
        default: break
        }
        let prefix =
            "the durable node \"\(node)\" was in flight when the app stopped, and may or may not have happened (key "
        let suffix = "); it is not called again"
        if text.hasPrefix(prefix), text.hasSuffix(suffix), text.count > prefix.count + suffix.count {
            let key = text.dropFirst(prefix.count).dropLast(suffix.count)
            if !key.contains(")") { return .failedInDoubt(key: IdempotencyKey(rawValue: String(key))) }
        }
        return .failed(description: text)
    }
}

/// Appends big-endian integers and length-prefixed bytes; every length is checked, never truncated.
struct ByteWriter {
    let path: String
    var output: [UInt8] = []

    mutating func byte(_ value: UInt8) {
        output.append(value)
    }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            output.append(UInt8((value >> UInt32(shift)) & 0xFF))
        }
    }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            output.append(UInt8((value >> UInt64(shift)) & 0xFF))
        }
    }

    mutating func int(_ value: Int) throws(JournalError) {
        guard let wide = Int64(exactly: value) else {
            throw .encodingFailed(path: path, reason: "\(value) does not fit in a signed 64-bit integer")
        }
        uint64(UInt64(bitPattern: wide))
    }

    mutating func bytes(_ value: some Collection<UInt8>) throws(JournalError) {
        guard let count = UInt32(exactly: value.count) else {
            throw .encodingFailed(path: path, reason: "a field of \(value.count) bytes is longer than 4 GiB")
        }
        uint32(count)
        output.append(contentsOf: value)
    }

    mutating func string(_ value: String) throws(JournalError) {
        try bytes(Array(value.utf8))
    }
}

/// Reads what ``ByteWriter`` wrote; running out of bytes or an invalid value is a corrupt record at
/// the offset where it was found.
struct ByteReader {
    let input: [UInt8]
    let path: String
    let baseOffset: Int
    private(set) var offset = 0

    init(bytes: [UInt8], path: String, baseOffset: Int) {
        self.input = bytes
        self.path = path
        self.baseOffset = baseOffset
    }

    func corrupt(at offset: Int, _ reason: String) -> JournalError {
        .corruptRecord(path: path, offset: baseOffset + offset, reason: reason)
    }

    mutating func take(_ count: Int) throws(JournalError) -> ArraySlice<UInt8> {
        guard count <= input.count - offset else {
            throw corrupt(at: offset, "the record ends \(count - (input.count - offset)) bytes too early")
        }
        defer { offset += count }
        return input[offset..<offset + count]
    }

    mutating func byte() throws(JournalError) -> UInt8 {
        try take(1).first!
    }

    mutating func uint32() throws(JournalError) -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() throws(JournalError) -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func int() throws(JournalError) -> Int {
        let start = offset
        let wide = Int64(bitPattern: try uint64())
        guard let value = Int(exactly: wide) else {
            throw corrupt(at: start, "\(wide) does not fit in an Int on this platform")
        }
        return value
    }

    mutating func bytes() throws(JournalError) -> [UInt8] {
        let start = offset
        let count = try uint32()
        guard let length = Int(exactly: count) else {
            throw corrupt(at: start, "a field of \(count) bytes does not fit in an Int on this platform")
        }
        return Array(try take(length))
    }

    mutating func string() throws(JournalError) -> String {
        let start = offset
        let utf8 = try bytes()
        guard let text = String(validUTF8: utf8) else {
            throw corrupt(at: start, "a string is not valid UTF-8")
        }
        return text
    }
}
