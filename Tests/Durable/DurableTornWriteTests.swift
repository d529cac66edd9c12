import Foundation
import Testing

@testable import OresRedux

/// A torn last record (the process or the machine stopped mid-write) is dropped with a diagnostic,
/// never misread; damage with records after it is an error, never skipped.
@Suite struct DurableTornWriteTests {
    let records: [JournalRecord] = [
        .runStarted(runID: "post-42", graph: "publish", parameters: Data([1, 2, 3]), fingerprint: "f1"),
        .attemptStarted(node: "upload", attempt: 1, key: IdempotencyKey(runID: "post-42", node: "upload")),
        .attemptEnded(node: "upload", attempt: 1, end: .response(Data((0..<40).map { UInt8($0) }))),
    ]

    /// A journal file holding `records` for run "post-42", and where each record's frame starts.
    func file() throws -> (bytes: [UInt8], starts: [Int]) {
        var bytes = try JournalFileFormat.header(runID: "post-42", path: "p")
        var starts: [Int] = []
        for record in records {
            starts.append(bytes.count)
            bytes += try JournalFileFormat.frame(record, path: "p")
        }
        return (bytes, starts)
    }

    @Test("the file cut at every byte offset of its last record keeps the records before it, plus a diagnostic")
    func truncatedAtEveryOffset() throws {
        let (bytes, starts) = try file()
        let last = starts[records.count - 1]
        for cut in last..<bytes.count {
            let contents = try JournalFileFormat.read(Array(bytes[..<cut]), path: "p")
            guard case .run(let runID, let read, let validLength, let dropped) = contents else {
                Issue.record("cut at \(cut): \(contents)")
                continue
            }
            #expect(runID == "post-42")
            #expect(read == Array(records.dropLast()), "cut at \(cut)")
            #expect(validLength == last)
            if cut == last {
                #expect(dropped == nil)
            } else {
                #expect(dropped?.offset == last, "cut at \(cut)")
                #expect(dropped?.droppedBytes == cut - last)
                #expect(
                    dropped?.description.contains("cut short") == true, "cut at \(cut): \(String(describing: dropped))")
            }
        }
        // And the whole file reads whole.
        guard case .run(_, let all, let length, nil) = try JournalFileFormat.read(bytes, path: "p") else {
            Issue.record("the whole file did not read cleanly")
            return
        }
        #expect(all == records)
        #expect(length == bytes.count)
    }

    @Test("a file cut inside its header holds no run: a diagnostic, never an error")
    func truncatedHeader() throws {
        let (bytes, starts) = try file()
        for cut in 0..<starts[0] {
            let contents = try JournalFileFormat.read(Array(bytes[..<cut]), path: "p")
            guard case .nothingAcknowledged(let diagnostic) = contents else {
                Issue.record("cut at \(cut): \(contents)")
                continue
            }
            #expect(diagnostic.droppedBytes == cut)
        }
    }

    @Test("through the journal: a torn last record is dropped on load and cut off before the next append")
    func tornTailThroughTheJournal() throws {
        let (bytes, starts) = try file()
        let last = starts[records.count - 1]
        try withJournalFolder { folder in
            for cut in stride(from: last + 1, to: bytes.count, by: 5) {
                try? FileManager.default.removeItem(at: folder)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: runFile("post-42", in: folder)))
                let journal = try FileRunJournal(folder: folder)
                let contents = try journal.loadUnfinishedRuns()
                #expect(contents.runs == [JournalRun(runID: "post-42", records: Array(records.dropLast()))])
                #expect(contents.diagnostics.count == 1, "cut at \(cut)")
                #expect(contents.diagnostics.first?.path == runFile("post-42", in: folder))
                try journal.append(.runFinished, to: "post-42")
                let again = try JournalFileFormat.read(
                    JournalPOSIX.readAll(runFile("post-42", in: folder)), path: "p")
                guard case .run(_, let read, _, nil) = again else {
                    Issue.record("cut at \(cut): after an append, \(again)")
                    continue
                }
                #expect(read == Array(records.dropLast()) + [.runFinished])
            }
        }
    }

    @Test(
        "through the journal: a file cut inside its first record (never acknowledged) is removed with a diagnostic, and its run id is free"
    )
    func tornFirstRecordFreesTheRunID() throws {
        let (bytes, starts) = try file()
        // From the header's end (no record at all) to one byte short of the first record's end.
        for cut in stride(from: starts[0], to: starts[1], by: 3) {
            try withJournalFolder { folder in
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: runFile("post-42", in: folder)))
                let journal = try FileRunJournal(folder: folder)
                let contents = try journal.loadUnfinishedRuns()
                #expect(contents.runs.isEmpty, "cut at \(cut)")
                #expect(contents.failures.isEmpty, "cut at \(cut)")
                #expect(contents.diagnostics.count == 1, "cut at \(cut)")
                #expect(contents.diagnostics.first?.path == runFile("post-42", in: folder))
                #expect(!FileManager.default.fileExists(atPath: runFile("post-42", in: folder)), "cut at \(cut)")
                // The id is free: a new run under it starts a clean file.
                try journal.append(records[0], to: "post-42")
                #expect(try journal.loadUnfinishedRuns().runs == [JournalRun(runID: "post-42", records: [records[0]])])
            }
        }
    }

    @Test("through the journal: appending to a file cut inside its first record starts the file again")
    func appendAfterATornFirstRecord() throws {
        let (bytes, starts) = try file()
        try withJournalFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(bytes[..<(starts[0] + 5)]).write(to: URL(fileURLWithPath: runFile("post-42", in: folder)))
            let journal = try FileRunJournal(folder: folder)
            try journal.append(records[0], to: "post-42")
            #expect(try journal.loadUnfinishedRuns().runs == [JournalRun(runID: "post-42", records: [records[0]])])
        }
    }

    @Test("a flipped bit anywhere in the last record drops it with a diagnostic")
    func bitFlipInLastRecord() throws {
        let (bytes, starts) = try file()
        let last = starts[records.count - 1]
        for index in last..<bytes.count {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                let contents = try JournalFileFormat.read(damaged, path: "p")
                guard case .run(_, let read, _, let dropped?) = contents else {
                    Issue.record("flip at \(index).\(bit): \(contents)")
                    continue
                }
                #expect(read == Array(records.dropLast()))
                #expect(dropped.offset == last)
            }
        }
    }

    @Test("a flipped bit anywhere in a middle record is a corrupt-record error at its offset")
    func bitFlipInMiddleRecord() throws {
        let (bytes, starts) = try file()
        for index in starts[1]..<starts[2] {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                let error = #expect(throws: JournalError.self) { try JournalFileFormat.read(damaged, path: "p") }
                guard case .corruptRecord(let path, let offset, _)? = error else {
                    Issue.record("flip at \(index).\(bit): \(String(describing: error))")
                    continue
                }
                #expect(path == "p")
                #expect(offset == starts[1], "flip at \(index).\(bit)")
            }
        }
    }

    @Test("through the journal: a damaged middle record fails that run only, and the file stays")
    func corruptRunIsAFailure() throws {
        let (bytes, starts) = try file()
        try withJournalFolder { folder in
            do {
                let journal = try FileRunJournal(folder: folder)
                try journal.append(
                    .runStarted(runID: "other", graph: "g", parameters: Data(), fingerprint: "f"), to: "other")
            }
            var damaged = bytes
            damaged[starts[1] + 14] ^= 0x10
            let path = runFile("post-42", in: folder)
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let journal = try FileRunJournal(folder: folder)
            let contents = try journal.loadUnfinishedRuns()
            #expect(contents.runs.map(\.runID) == ["other"])
            #expect(contents.failures.count == 1)
            #expect(contents.failures.first?.description.contains(path) == true)
            #expect(contents.failures.first?.description.contains("byte \(starts[1])") == true)
            #expect(throws: JournalError.self) { try journal.append(.runFinished, to: "post-42") }
            #expect(try JournalPOSIX.readAll(path) == damaged)
        }
    }

    @Test("a journal file of a newer format version is a clear error")
    func newerFormatFile() throws {
        var (bytes, _) = try file()
        let newest = JournalRecord.currentFormatVersion
        bytes[11] = UInt8(newest + 1)  // the version's low byte; the header checksum is not even reached
        let error = #expect(throws: JournalError.self) { try JournalFileFormat.read(bytes, path: "p") }
        #expect(error == .newerFormat(path: "p", version: newest + 1, newestReadable: newest))
        #expect(error?.description.contains("version \(newest + 1)") == true)
    }

    @Test("a file that is not a journal is an error")
    func notAJournal() throws {
        #expect(throws: JournalError.self) {
            try JournalFileFormat.read(Array("{\"json\": true, \"padding\": 12345678}".utf8), path: "p")
        }
    }
}
