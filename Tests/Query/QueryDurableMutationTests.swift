import Foundation
import OresRedux
import OresReduxQuery
import OresReduxTesting
import Testing

@testable import QueryMutationChild

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Child processes exist on macOS and Linux only (see DurableKillSoakTests).
#if os(macOS) || os(Linux)

    /// A post published as a durable mutation by a child process (Tools/QueryMutationChild) that dies
    /// by SIGKILL inside the post's call; this process then resumes the journal the child left, as
    /// the app's next launch would, with its screen showing the feed.
    @Suite("Query cache: a durable mutation killed mid-call")
    struct QueryDurableMutationTests {
        /// Runs the child until it kills itself in the post's call; returns the journal's folder and
        /// the idempotency key the call was made with.
        func childKilledMidCall(_ mode: String) async throws -> (journal: URL, key: String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("query-durable-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let journal = folder.appendingPathComponent("journal")
            let keyFile = folder.appendingPathComponent("key")
            let child = try SoakChild.locate().deletingLastPathComponent()
                .appendingPathComponent("QueryMutationChild")
            let process = try ChildProcess(
                [child.path, journal.path, keyFile.path, mode], output: folder.appendingPathComponent("output").path)
            let status = try await withDeadline(120, "the child's death mid-call") {
                await withCheckedContinuation { continuation in
                    Thread.detachNewThread { continuation.resume(returning: process.waitForExit()) }
                }
            }
            let output = (try? String(contentsOf: folder.appendingPathComponent("output"), encoding: .utf8)) ?? ""
            #expect(
                status == .signalled(SIGKILL), "the child ended with \(status) instead of dying mid-call: \(output)")
            return (journal, try String(contentsOf: keyFile, encoding: .utf8))
        }

        /// The next launch: a store whose screen shows the feed, and the durable runs, resumed, with
        /// the post's calls held (held before the resume: a resumed call may start at once).
        func relaunch(_ journal: URL) async throws -> (
            TestStore<PostingState>, QueryObservation, DurableResumeReport<PostingState>, HeldCalls<PublishPost>
        ) {
            let store = TestStore(initialState: PostingState(), reducer: postingQueries.reducer, exhaustivity: .off)
            store.runForReal(FetchQuery<PostingFeed>.self)
            store.runForReal(QueryCall<PostingFeed>.self)
            store.runForReal(QueryUpkeep<PostingState>.self)
            let answers: [Result<[Post], any Error>] = [.success([hello]), .success([draft, hello])]
            store.stub(PostingFeed.self, sequence: answers)
            let screen = postingQueries.observe(PostingFeed(), in: store)
            try await store.receive(QueryAnswered.self, notAsserting: [\.cache])
            let posts = store.hold(PublishPost.self)
            let runs = DurableRuns(store: store.store, journal: try FileRunJournal(folder: journal))
            postingQueries.register(PublishPost.self, in: runs)
            return (store, screen, await runs.resumeUnfinished(), posts)
        }

        func feed(_ store: TestStore<PostingState>) -> [Post]? {
            store.state.cache[PostingFeed()]?.data(as: [Post].self)
        }

        @Test(
            "a post in doubt that the server dedupes is shown again at the next launch, called again with the same key, and kept"
        )
        func resumedWithItsChangeAndTheSameKey() async throws {
            let (journal, key) = try await childKilledMidCall("retried")
            let (store, screen, report, posts) = try await relaunch(journal)
            #expect(report.resumed.map(\.runID) == ["post-2"])
            #expect(report.resumed.first?.inDoubt == ["call"])

            _ = try await posts.nextCall()  // called again...
            #expect(feed(store) == [draft, hello])  // ...with the post shown again, before the server answered
            posts.respond(with: draft)
            let run = try #require(report.resumed.first?.run)
            _ = try await withDeadline { await run.wait() }
            #expect(feed(store) == [draft, hello])
            #expect(store.state.cache[PostingFeed()]?.optimisticChanges == [])
            #expect(key == IdempotencyKey(runID: "post-2", node: "call").rawValue)
            withExtendedLifetime(screen) {}
        }

        @Test("a post in doubt that must not be sent twice is shown again, then rolled back by its in-doubt failure")
        func resumedAndFailedInDoubt() async throws {
            let (journal, _) = try await childKilledMidCall("failed")
            let (store, screen, report, _) = try await relaunch(journal)
            let run = try #require(report.resumed.first?.run)

            _ = try await withDeadline { await run.wait() }
            try await store.receive(QueryOptimisticChangeAdded.self, notAsserting: [\.cache])
            try await store.receive(QueryMutationFailed.self, notAsserting: [\.cache])
            #expect(feed(store) == [hello])
            #expect(store.state.cache[PostingFeed()]?.optimisticChanges == [])
            #expect(store.calls(to: PublishPost.self).isEmpty)  // never called twice
            withExtendedLifetime(screen) {}
        }
    }

#endif
