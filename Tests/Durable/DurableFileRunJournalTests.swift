import Foundation
import Testing

@testable import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file journal: safe names, strict permissions, one journal per folder, a bounded number of
/// runs, and nothing recorded lost on any write fault.
@Suite struct DurableFileRunJournalTests {
    let start = JournalRecord.runStarted(runID: "r", graph: "g", parameters: Data([7]), fingerprint: "f")

    func attempt(_ k: Int) -> JournalRecord {
        .attemptStarted(node: "n", attempt: k, key: IdempotencyKey(runID: "r", node: "n"))
    }

    @Test("tricky run ids get safe, distinct file names inside the folder, and round-trip")
    func trickyRunIDs() throws {
        let runIDs = [
            "../x", "a/b", "", "/", ".", "..", "post-42", "émoji 🚀", "e\u{301}", "nul\u{0}byte",
            String(repeating: "long/", count: 4000),
        ]
        #expect(FileRunJournal.fileName("post-42") == "run-f8d02e43e324eb3b24a1f9c17ba4d7a0.journal")
        let names = runIDs.map(FileRunJournal.fileName)
        #expect(Set(names).count == runIDs.count)
        for name in names {
            #expect(name.utf8.count == 44)
            #expect(name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        }
        try withJournalFolder { folder in
            let journal = try FileRunJournal(folder: folder)
            for runID in runIDs { try journal.append(.syncApplied(node: runID, commitCount: 1), to: runID) }
            let contents = try journal.loadUnfinishedRuns()
            #expect(Set(contents.runs.map(\.runID)) == Set(runIDs))
            for run in contents.runs { #expect(run.records == [.syncApplied(node: run.runID, commitCount: 1)]) }
            let inFolder = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(inFolder == ([".lock"] + names).sorted())
            let beside = try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
            #expect(beside == ["journal"])
        }
    }

    @Test("the folder it creates is 0700, the lock file and run files 0600")
    func permissions() throws {
        try withJournalFolder { folder in
            let journal = try FileRunJournal(folder: folder)
            try journal.append(start, to: "r")
            #expect(try mode(of: folder.path) == 0o700)
            #expect(try mode(of: folder.appendingPathComponent(".lock").path) == 0o600)
            #expect(try mode(of: runFile("r", in: folder)) == 0o600)
        }
    }

    @Test("a second journal on the same folder is a locked error; once the first is gone, it opens")
    func oneJournalPerFolder() throws {
        try withJournalFolder { folder in
            do {
                let first = try FileRunJournal(folder: folder)
                try first.append(start, to: "r")
                let error = #expect(throws: JournalError.self) { try FileRunJournal(folder: folder) }
                guard case .locked(let path, let reason)? = error else {
                    Issue.record("expected locked, got \(String(describing: error))")
                    return
                }
                #expect(path == folder.path)
                #expect(reason.contains(".lock"))
                withExtendedLifetime(first) {}
            }
            let again = try FileRunJournal(folder: folder)
            #expect(try again.loadUnfinishedRuns().runs == [JournalRun(runID: "r", records: [start])])
        }
    }

    @Test(
        "close() releases the folder at once, while the journal is still referenced; the closed journal then refuses every call"
    )
    func closeReleasesTheFolder() throws {
        try withJournalFolder { folder in
            let first = try FileRunJournal(folder: folder)
            try first.append(start, to: "r")
            first.close()
            // `first` is still referenced, as a run's task that is still ending may hold it.
            let again = try FileRunJournal(folder: folder)
            let error = #expect(throws: JournalError.self) { try first.append(self.attempt(1), to: "r") }
            guard case .notWritable(let path, let reason)? = error else {
                Issue.record("expected notWritable, got \(String(describing: error))")
                return
            }
            #expect(path == folder.path)
            #expect(reason.contains("closed"))
            #expect(throws: JournalError.self) { try first.loadUnfinishedRuns() }
            #expect(throws: JournalError.self) { try first.removeRun("r") }
            first.close()  // again: nothing happens
            #expect(
                try again.loadUnfinishedRuns().runs == [JournalRun(runID: "r", records: [start])],
                "the closed journal changed nothing")
            withExtendedLifetime(first) {}
        }
    }

    #if os(Linux)
        @Test(
            "close() and deinit release the folder even while a copy of the lock file's descriptor lives on, as in a child process being spawned"
        )
        func releaseReachesEveryCopyOfTheLock() throws {
            try withJournalFolder { folder in
                // Between fork and exec, a child process that another thread spawns holds a copy of
                // every descriptor, close-on-exec or not; `dup` makes the same kind of copy.
                let first = try FileRunJournal(folder: folder)
                let copy = try #require(duplicateDescriptor(of: folder.path + "/.lock"))
                defer { close(copy) }
                first.close()
                var secondCopy: Int32 = -1
                defer { close(secondCopy) }
                do {
                    let second = try FileRunJournal(folder: folder)
                    secondCopy = try #require(duplicateDescriptor(of: folder.path + "/.lock", except: copy))
                    withExtendedLifetime(second) {}
                }
                _ = try FileRunJournal(folder: folder)  // the second's deinit released it, its copy open
            }
        }
    #endif

    @Test("the pending-run limit: a new run beyond it is an error, existing runs go on, removal makes room")
    func pendingRunLimit() throws {
        try withJournalFolder { folder in
            do {
                let journal = try FileRunJournal(folder: folder, pendingRunLimit: 2)
                try journal.append(start, to: "a")
                try journal.append(start, to: "b")
                #expect(throws: JournalError.pendingRunLimitReached(path: folder.path, limit: 2)) {
                    try journal.append(self.start, to: "c")
                }
                try journal.append(attempt(1), to: "a")
            }
            // A journal opened later counts the runs already in the folder.
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 2)
            #expect(throws: JournalError.pendingRunLimitReached(path: folder.path, limit: 2)) {
                try journal.append(self.start, to: "c")
            }
            try journal.removeRun("a")
            try journal.append(start, to: "c")
            #expect(try journal.loadUnfinishedRuns().runs.map(\.runID) == ["b", "c"].sorted())
        }
    }

    @Test("removing a run deletes its file; a run that finished is left out of the load and removed")
    func removingRuns() throws {
        try withJournalFolder { folder in
            let journal = try FileRunJournal(folder: folder)
            try journal.append(start, to: "removed")
            try journal.append(start, to: "finished")
            try journal.append(.runFinished, to: "finished")
            try journal.append(start, to: "pending")
            try journal.removeRun("removed")
            try journal.removeRun("never-there")
            #expect(!FileManager.default.fileExists(atPath: runFile("removed", in: folder)))
            let contents = try journal.loadUnfinishedRuns()
            #expect(contents.runs == [JournalRun(runID: "pending", records: [start])])
            #expect(!FileManager.default.fileExists(atPath: runFile("finished", in: folder)))
        }
    }

    @Test("ENOSPC from the Nth write: a noSpace error naming the file, earlier records intact, next append works")
    func noSpaceFromTheSeam() throws {
        try withJournalFolder { folder in
            let faults = WriteFaults()
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 10, io: faults.io)
            try journal.append(start, to: "r")
            try journal.append(attempt(1), to: "r")
            faults.failNextWrite(.error(ENOSPC))
            let error = #expect(throws: JournalError.self) { try journal.append(self.attempt(2), to: "r") }
            guard case .noSpace(let path, let reason)? = error else {
                Issue.record("expected noSpace, got \(String(describing: error))")
                return
            }
            #expect(path == runFile("r", in: folder))
            #expect(reason.contains("No space left"))
            #expect(try journal.loadUnfinishedRuns().runs == [JournalRun(runID: "r", records: [start, attempt(1)])])
            try journal.append(attempt(2), to: "r")
            #expect(
                try journal.loadUnfinishedRuns().runs == [
                    JournalRun(runID: "r", records: [start, attempt(1), attempt(2)])
                ])
        }
    }

    @Test("a write that stops halfway, then ENOSPC: the half record is cut off, nothing recorded is lost")
    func partialWrite() throws {
        try withJournalFolder { folder in
            let faults = WriteFaults()
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 10, io: faults.io)
            try journal.append(start, to: "r")
            let before = try JournalPOSIX.readAll(runFile("r", in: folder))
            faults.failNextWrite(.halfThenNoSpace)
            #expect(throws: JournalError.self) {
                try journal.append(.attemptEnded(node: "n", attempt: 1, end: .response(Data(count: 100))), to: "r")
            }
            #expect(try JournalPOSIX.readAll(runFile("r", in: folder)) == before)
            let contents = try journal.loadUnfinishedRuns()
            #expect(contents.runs == [JournalRun(runID: "r", records: [start])])
            #expect(contents.diagnostics.isEmpty)
        }
    }

    @Test("a failed flush is an error, and the record it would have made durable is cut off")
    func failedSync() throws {
        try withJournalFolder { folder in
            let faults = WriteFaults()
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 10, io: faults.io)
            try journal.append(start, to: "r")
            faults.failNextSync(EIO)
            let error = #expect(throws: JournalError.self) { try journal.append(self.attempt(1), to: "r") }
            #expect(error?.description.contains(runFile("r", in: folder)) == true)
            #expect(try journal.loadUnfinishedRuns().runs == [JournalRun(runID: "r", records: [start])])
        }
    }

    @Test("a new run whose first write fails leaves no file and takes no room")
    func failedCreation() throws {
        try withJournalFolder { folder in
            let faults = WriteFaults()
            let journal = try FileRunJournal(folder: folder, pendingRunLimit: 1, io: faults.io)
            faults.failNextWrite(.error(ENOSPC))
            #expect(throws: JournalError.self) { try journal.append(self.start, to: "r") }
            #expect(!FileManager.default.fileExists(atPath: runFile("r", in: folder)))
            try journal.append(start, to: "other")
        }
    }

    @Test("a read-only folder is a notWritable error naming it (chmod 0500, or a read-only mount as root)")
    func readOnlyFolder() throws {
        if geteuid() != 0 {
            try withJournalFolder { folder in
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                chmod(folder.path, 0o500)
                defer { chmod(folder.path, 0o700) }
                let error = #expect(throws: JournalError.self) { try FileRunJournal(folder: folder) }
                guard case .notWritable(let path, _)? = error else {
                    Issue.record("expected notWritable, got \(String(describing: error))")
                    return
                }
                #expect(path.hasPrefix(folder.path))
            }
            return
        }
        // Root ignores permission bits: a read-only mount refuses root too.
        let skipped = try withTmpfs(options: "ro,size=16k") { mount in
            let error = #expect(throws: JournalError.self) { try FileRunJournal(folder: mount) }
            guard case .notWritable(let path, let reason)? = error else {
                Issue.record("expected notWritable, got \(String(describing: error))")
                return
            }
            #expect(path.hasPrefix(mount.path))
            #expect(reason.contains("Read-only file system"))
        }
        if let skipped {
            // Neither chmod nor a mount can make a read-only folder here: the seam reports EROFS.
            print("readOnlyFolder: no read-only mount (\(skipped)); using the write seam's EROFS instead")
            try withJournalFolder { folder in
                let faults = WriteFaults()
                let journal = try FileRunJournal(folder: folder, pendingRunLimit: 1, io: faults.io)
                faults.failNextWrite(.error(EROFS))
                let error = #expect(throws: JournalError.self) { try journal.append(self.start, to: "r") }
                guard case .notWritable? = error else {
                    Issue.record("expected notWritable, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test("a real full disk (a 64 KiB tmpfs): noSpace, and every record acknowledged before it reads back")
    func realFullDisk() throws {
        let skipped = try withTmpfs(options: "size=64k,mode=0700") { mount in
            let folder = mount.appendingPathComponent("journal")
            let journal = try FileRunJournal(folder: folder)
            var acknowledged: [JournalRecord] = []
            var failure: JournalError?
            for k in 1...20 {
                let record = JournalRecord.attemptEnded(node: "n", attempt: k, end: .response(Data(count: 12_000)))
                do throws(JournalError) {
                    try journal.append(record, to: "r")
                    acknowledged.append(record)
                } catch {
                    failure = error
                    break
                }
            }
            guard case .noSpace(let path, _)? = failure else {
                Issue.record("expected noSpace within 20 records of 12 kB, got \(String(describing: failure))")
                return
            }
            #expect(path == runFile("r", in: folder))
            let contents = try journal.loadUnfinishedRuns()
            #expect(contents.runs == [JournalRun(runID: "r", records: acknowledged)])
            #expect(contents.diagnostics.isEmpty)
            try journal.removeRun("r")
        }
        if let skipped { print("realFullDisk skipped: cannot mount a tmpfs here (\(skipped))") }
    }

    @Test("appends from several threads at once all land, each run's records in its thread's order")
    func appendsFromThreads() async throws {
        let parent = FileManager.default.temporaryDirectory
            .appendingPathComponent("oresredux-journal-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let journal = try FileRunJournal(folder: parent.appendingPathComponent("journal"))
        let threads = 6
        let perThread = 10
        let failures = LockedValue<[JournalError]>([])
        try await withDeadline(10, "appends from \(threads) threads") {
            await onThreads(threads) { thread in
                for k in 1...perThread {
                    do throws(JournalError) {
                        try journal.append(
                            .syncApplied(node: "t\(thread)", commitCount: UInt64(k)), to: "own-\(thread)")
                        try journal.append(.syncApplied(node: "t\(thread)", commitCount: UInt64(k)), to: "shared")
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let runs = try journal.loadUnfinishedRuns().runs
        let expected = (0..<threads).map { thread in
            (1...perThread).map { JournalRecord.syncApplied(node: "t\(thread)", commitCount: UInt64($0)) }
        }
        for thread in 0..<threads {
            #expect(runs.first { $0.runID == "own-\(thread)" }?.records == expected[thread])
        }
        let shared = runs.first { $0.runID == "shared" }?.records ?? []
        #expect(shared.count == threads * perThread)
        for thread in 0..<threads {
            #expect(
                shared.filter { if case .syncApplied("t\(thread)", _) = $0 { true } else { false } } == expected[thread]
            )
        }
    }
}

#if os(Linux)
    /// A duplicate (`dup`) of this process's open descriptor of the file at `path` (found in
    /// /proc/self/fd), other than `except`; `nil` if none is open.
    private func duplicateDescriptor(of path: String, except: Int32? = nil) -> Int32? {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in names {
            guard let descriptor = Int32(name), descriptor != except,
                let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                linked == target
            else { continue }
            let copy = dup(descriptor)
            return copy >= 0 ? copy : nil
        }
        return nil
    }
#endif
