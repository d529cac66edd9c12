/// The on-disk form of one run's journal file: a header, then checksummed frames, one per record.
///
/// Big-endian throughout.
/// - Header: the magic `OresRJnl` (8 bytes), the format version (u32), the run id's UTF-8 byte
///   count (u32), the CRC-32C of those 16 bytes (u32), the run id's UTF-8, and its CRC-32C (u32).
/// - Frame: the payload's byte count (u32), the payload's CRC-32C (u32), the CRC-32C of those
///   8 bytes (u32), then the payload (``JournalRecord``'s binary form).
///
/// Reading tells a torn tail from damage. A file without one whole record was never acknowledged
/// (a run's file is created with its first record) and reads as nothing. A frame is torn when it is the last thing in the file and
/// is cut short or fails a checksum; it is dropped with a ``JournalDiagnostic``. A damaged frame
/// with a valid frame after it is a ``JournalError/corruptRecord(path:offset:reason:)``: records
/// were acknowledged after it, so it cannot be dropped. A frame's own header checksum means a flipped
/// bit in a byte count cannot pass for a frame that runs to the end of the file.
enum JournalFileFormat {
    static let magic: [UInt8] = Array("OresRJnl".utf8)
    static let frameHeaderSize = 12

    /// What a file holds.
    enum Contents {
        /// The file holds no whole record: a run's file is created with its header and first record
        /// in one write, flushed before the append returns, so nothing in it was ever acknowledged.
        case nothingAcknowledged(JournalDiagnostic)
        /// The run, its records, the length of the file's valid prefix, and the torn tail dropped.
        case run(runID: String, records: [JournalRecord], validLength: Int, dropped: JournalDiagnostic?)
    }

    /// The header of a file for the run `runID`.
    static func header(runID: String, path: String) throws(JournalError) -> [UInt8] {
        var writer = ByteWriter(path: path)
        writer.output = magic
        writer.uint32(UInt32(JournalRecord.currentFormatVersion))
        let runIDBytes = Array(runID.utf8)
        guard let count = UInt32(exactly: runIDBytes.count), runIDBytes.count <= maximumRunIDSize else {
            throw .encodingFailed(
                path: path, reason: "the run id is \(runIDBytes.count) bytes, more than the \(maximumRunIDSize) allowed"
            )
        }
        writer.uint32(count)
        writer.uint32(CRC32C.checksum(writer.output))
        writer.output.append(contentsOf: runIDBytes)
        writer.uint32(CRC32C.checksum(runIDBytes))
        return writer.output
    }

    /// The run id a file's header names, if the header is whole and both its checksums hold
    /// (nothing after the header is read).
    static func runID(inHeaderOf bytes: [UInt8]) -> String? {
        guard bytes.count >= 20, bytes.starts(with: magic) else { return nil }
        func uint32(at index: Int) -> UInt32 { bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard CRC32C.checksum(bytes[0..<16]) == uint32(at: 16), let length = Int(exactly: uint32(at: 12)),
            length <= maximumRunIDSize, bytes.count >= 24 + length,
            CRC32C.checksum(bytes[20..<20 + length]) == uint32(at: 20 + length)
        else { return nil }
        return String(validUTF8: bytes[20..<20 + length])
    }

    /// The longest run id, in UTF-8 bytes.
    static let maximumRunIDSize = 64 << 10

    /// One frame holding `record`.
    static func frame(_ record: JournalRecord, path: String) throws(JournalError) -> [UInt8] {
        let payload = try record.encodedBytes(path: path)
        var writer = ByteWriter(path: path)
        // encodedBytes keeps payloads within maximumEncodedSize, far below UInt32.max.
        guard let count = UInt32(exactly: payload.count) else {
            throw .encodingFailed(path: path, reason: "the record is \(payload.count) bytes, too many for a frame")
        }
        writer.uint32(count)
        writer.uint32(CRC32C.checksum(payload))
        writer.uint32(CRC32C.checksum(writer.output))
        writer.output.append(contentsOf: payload)
        return writer.output
    }

    /// Reads a whole file.
    static func read(_ bytes: [UInt8], path: String) throws(JournalError) -> Contents {
        func torn(_ reason: String) -> Contents {
            .nothingAcknowledged(JournalDiagnostic(path: path, offset: 0, droppedBytes: bytes.count, reason: reason))
        }
        // The magic, as far as it was written.
        let magicPrefix = min(bytes.count, magic.count)
        guard bytes[0..<magicPrefix].elementsEqual(magic[0..<magicPrefix]) else {
            throw .corruptRecord(path: path, offset: 0, reason: "not a run journal (its first bytes are not OresRJnl)")
        }
        guard bytes.count >= 20 else { return torn("the file header is cut short at \(bytes.count) bytes") }
        var reader = ByteReader(bytes: bytes, path: path, baseOffset: 0)
        _ = try reader.take(magic.count)
        let version = try reader.uint32()
        // A newer format may lay out the rest of its header differently: the version is checked first.
        guard version <= JournalRecord.currentFormatVersion else {
            throw .newerFormat(
                path: path, version: Int(version), newestReadable: JournalRecord.currentFormatVersion)
        }
        let runIDCount = try reader.uint32()
        let headerChecksum = try reader.uint32()
        guard CRC32C.checksum(bytes[0..<16]) == headerChecksum else {
            throw .corruptRecord(path: path, offset: 0, reason: "the file header's checksum does not match")
        }
        guard version >= 1 else { throw .corruptRecord(path: path, offset: 8, reason: "format version 0") }
        guard let runIDLength = Int(exactly: runIDCount), runIDLength <= maximumRunIDSize else {
            throw .corruptRecord(path: path, offset: 12, reason: "a run id of \(runIDCount) bytes")
        }
        let headerSize = 20 + runIDLength + 4
        guard bytes.count >= headerSize else { return torn("the file header is cut short at \(bytes.count) bytes") }
        let runIDBytes = bytes[20..<20 + runIDLength]
        reader = ByteReader(bytes: bytes, path: path, baseOffset: 0)
        _ = try reader.take(20 + runIDLength)
        guard CRC32C.checksum(runIDBytes) == (try reader.uint32()) else {
            throw .corruptRecord(path: path, offset: 20, reason: "the run id's checksum does not match")
        }
        guard let runID = String(validUTF8: runIDBytes) else {
            throw .corruptRecord(path: path, offset: 20, reason: "the run id is not valid UTF-8")
        }

        var records: [JournalRecord] = []
        var offset = headerSize
        while offset < bytes.count {
            switch try frame(in: bytes, at: offset, path: path) {
            case .record(let record, let next):
                records.append(record)
                offset = next
            case .damaged(let reason, let isCutShort):
                if !isCutShort, let later = firstValidFrame(in: bytes, after: offset) {
                    throw .corruptRecord(
                        path: path, offset: offset,
                        reason: "\(reason), and a valid record follows at byte \(later): damage in the middle")
                }
                guard !records.isEmpty else { return torn("its first record is torn: \(reason)") }
                let dropped = JournalDiagnostic(
                    path: path, offset: offset, droppedBytes: bytes.count - offset, reason: reason)
                return .run(runID: runID, records: records, validLength: offset, dropped: dropped)
            }
        }
        guard !records.isEmpty else { return torn("it holds a header and no record") }
        return .run(runID: runID, records: records, validLength: offset, dropped: nil)
    }

    private enum Frame {
        case record(JournalRecord, next: Int)
        /// `isCutShort`: the frame runs past the end of the file, so nothing can follow it.
        case damaged(String, isCutShort: Bool)
    }

    /// The frame at `offset`.
    private static func frame(in bytes: [UInt8], at offset: Int, path: String) throws(JournalError) -> Frame {
        let remaining = bytes.count - offset
        guard remaining >= frameHeaderSize else {
            return .damaged("the last record is cut short after \(remaining) bytes", isCutShort: true)
        }
        guard let (count, payloadChecksum) = frameHeader(in: bytes, at: offset) else {
            return .damaged("a record's header checksum does not match", isCutShort: false)
        }
        guard count <= remaining - frameHeaderSize else {
            return .damaged(
                "the last record is cut short: \(remaining - frameHeaderSize) of its \(count) bytes",
                isCutShort: true)
        }
        let start = offset + frameHeaderSize
        let payload = Array(bytes[start..<start + count])
        guard CRC32C.checksum(payload) == payloadChecksum else {
            let isLast = start + count == bytes.count
            if isLast { return .damaged("the last record's checksum does not match", isCutShort: true) }
            throw .corruptRecord(
                path: path, offset: offset, reason: "a record's checksum does not match, and records follow it")
        }
        // The checksum matched: what does not decode is not a torn write, and is an error as it is.
        return .record(try JournalRecord.decode(payload, path: path, baseOffset: start), next: start + count)
    }

    /// The payload's byte count and checksum at `offset`, if the frame header's own checksum holds
    /// and the count is one a writer could have written.
    private static func frameHeader(in bytes: [UInt8], at offset: Int) -> (Int, UInt32)? {
        func uint32(at index: Int) -> UInt32 {
            bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        guard CRC32C.checksum(bytes[offset..<offset + 8]) == uint32(at: offset + 8),
            let count = Int(exactly: uint32(at: offset)), count <= JournalRecord.maximumEncodedSize
        else { return nil }
        return (count, uint32(at: offset + 4))
    }

    /// The offset of the first whole, valid frame that starts after `offset`, if any.
    private static func firstValidFrame(in bytes: [UInt8], after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + frameHeaderSize <= bytes.count {
            defer { candidate += 1 }
            guard let (count, checksum) = frameHeader(in: bytes, at: candidate),
                count <= bytes.count - candidate - frameHeaderSize
            else { continue }
            let start = candidate + frameHeaderSize
            if CRC32C.checksum(bytes[start..<start + count]) == checksum { return candidate }
        }
        return nil
    }
}
