// The child of the durable mutation kill test (Tests/Query/QueryDurableMutationTests.swift): it
// shows the feed, publishes a post as the durable run "post-2", and, inside the post's call, once
// the journal holds the attempt's start, writes the call's idempotency key to <key file> and
// kills itself with SIGKILL: a death mid-call, with no timing for the test to guess.
//
//     QueryMutationChild <journal folder> <key file> retried|failed
//
// Exit codes: 2 bad arguments; 3 anything else went wrong. It never exits 0: it dies mid-call.
// Not a product: it exists for the test only.

import Foundation
import OresRedux
import OresReduxQuery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct DyingServer: PostingServer {
    let keyFile: URL
    func feed() async throws -> [Post] { [hello] }
    func add(_ post: Post, key: IdempotencyKey?) async throws -> Post {
        try Data((key?.rawValue ?? "none").utf8).write(to: keyFile, options: .atomic)
        kill(getpid(), SIGKILL)
        throw CancellationError()  // never reached
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, ["retried", "failed"].contains(arguments[3]) {
    var options = StoreOptions()
    options.dependencies.postingServer = DyingServer(keyFile: URL(fileURLWithPath: arguments[2]))
    let store = Store(initialState: PostingState(), reducer: postingQueries.reducer, options: options)
    do {
        let runs = DurableRuns(store: store, journal: try FileRunJournal(folder: URL(fileURLWithPath: arguments[1])))
        postingQueries.register(PublishPost.self, in: runs)
        let screen = postingQueries.observe(PostingFeed(), in: store)
        _ = try await postingQueries.fetch(PostingFeed(), in: store).value
        let run = try await postingQueries.mutate(
            PublishPost(post: draft, retriedInDoubt: arguments[3] == "retried"), runID: "post-2", in: runs)
        await run.wait()
        withExtendedLifetime(screen) {}
    } catch {
        FileHandle.standardError.write(Data("QueryMutationChild: \(error)\n".utf8))
    }
    exit(3)
} else {
    FileHandle.standardError.write(Data("usage: QueryMutationChild <journal folder> <key file> retried|failed\n".utf8))
    exit(2)
}
