import Foundation

/// The binary form of one record, the payload of a journal frame (see ``JournalRecord/encoded()``).
///
/// Version 1, big-endian throughout: one kind byte (1 run started, 2 attempt started, 3 attempt
/// ended, 4 sync applied, 5 run finished, 6 run cancelled), then the case's fields in declaration order (a run's
/// format version comes before its instance, so a newer format is recognised before anything it
/// may have changed). A string or `Data` is a 32-bit byte count and its bytes (strings as UTF-8);
/// an `Int` is a signed 64-bit and a `UInt64` an unsigned 64-bit integer; an attempt's end is a
/// byte (1 response, 2 failed, 3 kept out of the journal) followed by the response bytes or the
/// error's description.
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

    /// Reads back a record written by ``encoded()``.
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
        case .attemptStarted(let node, let attempt, let key):
            writer.byte(2)
            try writer.string(node)
            try writer.int(attempt)
            try writer.string(key.rawValue)
        case .attemptEnded(let node, let attempt, let end):
            writer.byte(3)
            try writer.string(node)
            try writer.int(attempt)
            switch end {
            case .response(let response):
                writer.byte(1)
                try writer.bytes(response)
            case .failed(let description):
                writer.byte(2)
                try writer.string(description)
            case .responseNotJournaled:
                writer.byte(3)
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
            record = .attemptStarted(node: node, attempt: attempt, key: IdempotencyKey(rawValue: try reader.string()))
        case 3:
            let node = try reader.string()
            let attempt = try reader.int()
            let endOffset = reader.offset
            let end: AttemptEnd
            switch try reader.byte() {
            case 1: end = .response(Data(try reader.bytes()))
            case 2: end = .failed(description: try reader.string())
            case 3: end = .responseNotJournaled
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
