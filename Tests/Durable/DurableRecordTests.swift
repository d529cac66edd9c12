import Foundation
import Testing

@testable import OresRedux

/// Every kind of record comes back as it was written, in memory and through a journal file; what
/// does not fit is an error, never a truncated number.
@Suite struct DurableRecordTests {
    @Test("every kind of record round-trips through its binary form", arguments: everyKindOfRecord)
    func roundTripInMemory(_ record: JournalRecord) throws {
        #expect(try JournalRecord(decoding: record.encoded()) == record)
    }

    @Test("every kind of record round-trips through a journal file, in order")
    func roundTripThroughAFile() throws {
        try withJournalFolder { folder in
            do {
                let journal = try FileRunJournal(folder: folder)
                for record in everyKindOfRecord.dropLast() { try journal.append(record, to: "post-42") }
            }
            let contents = try FileRunJournal(folder: folder).loadUnfinishedRuns()
            #expect(contents.runs == [JournalRun(runID: "post-42", records: Array(everyKindOfRecord.dropLast()))])
            #expect(contents.diagnostics.isEmpty)
            #expect(contents.failures.isEmpty)
        }
    }

    /// An attempt's end as format 1 wrote it: the failure as the text of its error.
    private func formatOneEnd(node: String, text: String) throws -> JournalRecord {
        var writer = ByteWriter(path: "(record)")
        writer.byte(3)
        try writer.string(node)
        try writer.int(1)
        writer.byte(2)
        try writer.string(text)
        return try JournalRecord(decoding: Data(writer.output))
    }

    @Test("format 1's failure texts are read once, by a fixed rule, as the cases they stood for")
    func formatOneFailureTexts() throws {
        let key = IdempotencyKey(runID: "post-42", node: "post")
        func end(_ text: String, node: String = "post") throws -> JournalRecord.AttemptEnd? {
            guard case .attemptEnded(_, _, let end) = try formatOneEnd(node: node, text: text) else { return nil }
            return end
        }
        #expect(try end("cancelled before its call") == .notCalled)
        #expect(try end("CancellationError()") == .cancelled)
        let inDoubt =
            "the durable node \"post\" was in flight when the app stopped, and may or may not have happened (key \(key)); it is not called again"
        #expect(try end(inDoubt) == .failedInDoubt(key: key))
        // The in-doubt text names its node: another node's text is that node's failure, not this one's.
        #expect(try end(inDoubt, node: "upload") == .failed(description: inDoubt))
        #expect(try end("URLError -1001: timed out") == .failed(description: "URLError -1001: timed out"))
        #expect(try end("CancellationError() and more") == .failed(description: "CancellationError() and more"))
        // This build writes a failure as its case: never read by the text rule.
        let written = JournalRecord.attemptEnded(
            node: "post", attempt: 1, end: .failed(description: "CancellationError()"))
        #expect(try JournalRecord(decoding: written.encoded()) == written)
    }

    @Test("an attempt's start written by format 1 (no in-doubt policy) reads with none")
    func formatOneAttemptStart() throws {
        var writer = ByteWriter(path: "(record)")
        writer.byte(2)
        try writer.string("post")
        try writer.int(1)
        try writer.string("ik1-x")
        let record = try JournalRecord(decoding: Data(writer.output))
        #expect(
            record == .attemptStarted(node: "post", attempt: 1, key: IdempotencyKey(rawValue: "ik1-x"), inDoubt: nil))
    }

    @Test("a run started by a newer format is a newerFormat error, not a misread")
    func newerFormatRecord() throws {
        let record = JournalRecord.runStarted(
            runID: "r", graph: "g", parameters: Data(), fingerprint: "f",
            formatVersion: JournalRecord.currentFormatVersion + 1)
        let newest = JournalRecord.currentFormatVersion
        #expect(throws: JournalError.newerFormat(path: "(record)", version: newest + 1, newestReadable: newest)) {
            try JournalRecord(decoding: record.encoded())
        }
    }

    @Test("bytes that are not a whole record are a corrupt record with its offset")
    func truncatedRecord() throws {
        let encoded = try JournalRecord.syncApplied(node: "apply", commitCount: 7).encoded()
        let error = #expect(throws: JournalError.self) { try JournalRecord(decoding: encoded.dropLast()) }
        guard case .corruptRecord(let path, let offset, let reason)? = error else {
            Issue.record("expected corruptRecord, got \(String(describing: error))")
            return
        }
        #expect(path == "(record)")
        #expect(offset == 1 + 4 + 5)  // kind, the node's length and its bytes: the count is cut short
        #expect(reason.contains("too early"))
        #expect(throws: JournalError.self) { try JournalRecord(decoding: Data([9])) }
        #expect(throws: JournalError.self) { try JournalRecord(decoding: encoded + [0]) }
    }

    @Test("a string that is not well-formed UTF-8 is a corrupt record, never a repaired string")
    func illFormedUTF8() throws {
        var bytes = [UInt8](try JournalRecord.syncApplied(node: "apply", commitCount: 7).encoded())
        bytes[1 + 4] = 0xFF  // the node's first byte, after the kind and the length
        let error = #expect(throws: JournalError.self) { try JournalRecord(decoding: Data(bytes)) }
        guard case .corruptRecord(_, let offset, let reason)? = error else {
            Issue.record("expected corruptRecord, got \(String(describing: error))")
            return
        }
        #expect(offset == 1)
        #expect(reason.contains("not valid UTF-8"))
    }

    @Test("String(validUTF8:) keeps well-formed UTF-8 as it is and refuses what decoding would repair")
    func validUTF8() {
        let text = "émoji 🚀 e\u{301} \u{FFFD} nul\u{0}"
        #expect(String(validUTF8: Array(text.utf8)) == text)
        #expect(String(validUTF8: [UInt8]()) == "")
        #expect(String(validUTF8: [0x61, 0xFF]) == nil)  // never UTF-8
        #expect(String(validUTF8: [0x61, 0xC3]) == nil)  // cut short
        #expect(String(validUTF8: [0xC0, 0xAF]) == nil)  // an overlong "/"
        #expect(String(validUTF8: [0xED, 0xA0, 0x80]) == nil)  // a UTF-16 surrogate
    }

    @Test("a 64-bit number that does not fit this platform's Int is an error (checked, never truncated)")
    func numbersAreChecked() throws {
        // An attempt number the writer stored as a signed 64-bit integer; on a 64-bit platform every
        // value fits, so the check is exercised through the reader's own path on the widest value.
        var writer = ByteWriter(path: "p")
        try writer.int(Int.min)
        var reader = ByteReader(bytes: writer.output, path: "p", baseOffset: 0)
        #expect(try reader.int() == Int.min)
        #expect(writer.output == [0x80, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test("a run id too long for a file header is an encodingFailed error naming the file")
    func tooLongRunID() throws {
        try withJournalFolder { folder in
            let journal = try FileRunJournal(folder: folder)
            let runID = String(repeating: "x", count: JournalFileFormat.maximumRunIDSize + 1)
            let error = #expect(throws: JournalError.self) { try journal.append(.runFinished, to: runID) }
            guard case .encodingFailed(let path, let reason)? = error else {
                Issue.record("expected encodingFailed, got \(String(describing: error))")
                return
            }
            #expect(path == runFile(runID, in: folder))
            #expect(reason.contains("65537 bytes"))
            #expect(try journal.loadUnfinishedRuns().runs.isEmpty)
        }
    }
}

extension JournalRecord: CustomTestStringConvertible {
    public var testDescription: String { "\(self)".prefix(60).description }
}
