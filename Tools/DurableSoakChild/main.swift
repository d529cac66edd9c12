// The child of the durable kill soak (Tests/Durable/DurableKillSoakTests.swift): an app that
// publishes a few posts as durable runs, launched with `DurableLaunch.open` (the journal's folder
// locked first, then the state and its marks restored under the lock, then the runs resumed). The
// soak kills it with SIGKILL at random moments and launches it again, sometimes two processes at
// once on the same folder; each launch waits for the folder's lock (up to 60 s: a sibling launched
// at the same moment holds it), resumes what the journal holds, starts the runs that never
// started, and exits 0 once every run finished.
//
//     DurableSoakChild <folder> <runs> [--fail-post run-1,run-3]
//
// In <folder>: `journal/` (a FileRunJournal), `state.json` (the state and its marks), `effects.log`
// (one fsync'd line per call: run id, node, launch, idempotency key) and `launches.log` (lines per
// launch: `locked waited=<s>` once it holds the lock, then what resume did, then `finished`). A
// launch killed while it waits for the lock wrote nothing. `--fail-post` makes the listed runs'
// post fail as if it were in doubt, without calling it: the reference run of the model (what the
// graphs do without a kill, given which at-most-once calls a killed launch left in doubt).
//
// Exit codes: 0 every run finished and the journal is empty; 2 bad arguments; 3 the journal could
// not be opened or read, or a run could not be resumed; 4 the saved state could not be read or did
// not decode; 5 anything else; 6 the journal's folder stayed locked by another launch for the
// whole 60 s wait. Not a product: it exists for the soak only.

import Foundation
import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: The app

struct SoakState: Codable, Equatable, Sendable {
    var runs: [String: PostRecord] = [:]
}

/// What one run did to the state; the counts catch a sync node applied twice.
struct PostRecord: Codable, Equatable, Sendable {
    var uploaded: String?
    var timesShown = 0
    var postID: Int?
    var timesApplied = 0
    var postFailure: String?
    var timesFailed = 0
    var followersNotified: Int?
    var timesNotified = 0
}

struct SoakParameters: Codable, Sendable {
    var run: String
}

struct ShowUploaded: Action {
    let run: String
    let url: String
}
struct ApplyPost: Action {
    let run: String
    let id: Int
}
struct PostFailed: Action {
    let run: String
    let reason: String
}
struct ShowNotified: Action {
    let run: String
    let count: Int
}

let soakReducer = Reducer<SoakState>.combine(
    .on(ShowUploaded.self) { state, action in
        state.runs[action.run, default: PostRecord()].uploaded = action.url
        state.runs[action.run, default: PostRecord()].timesShown += 1
    },
    .on(ApplyPost.self) { state, action in
        state.runs[action.run, default: PostRecord()].postID = action.id
        state.runs[action.run, default: PostRecord()].timesApplied += 1
    },
    .on(PostFailed.self) { state, action in
        state.runs[action.run, default: PostRecord()].postFailure = action.reason
        state.runs[action.run, default: PostRecord()].timesFailed += 1
    },
    .on(ShowNotified.self) { state, action in
        state.runs[action.run, default: PostRecord()].followersNotified = action.count
        state.runs[action.run, default: PostRecord()].timesNotified += 1
    })

/// A file of lines, each written whole (`O_APPEND`) and flushed (`fsync`) before `append` returns,
/// on a queue of its own (never a thread of the cooperative pool).
final class SyncedLog: Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "SyncedLog")

    init(_ path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor < 0 { fail(5, "cannot open \(path): \(String(cString: strerror(errno)))") }
    }

    func append(_ line: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.appendNow(line)
                continuation.resume()
            }
        }
    }

    func appendNow(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written != bytes.count || fsync(descriptor) != 0 {
            fail(5, "cannot append to a log: \(String(cString: strerror(errno)))")
        }
    }
}

/// A call with a side effect: its line is on disk before it returns.
struct SideEffect: Sendable {
    let log: SyncedLog
    let launch: String

    func happened(_ run: String, _ node: String, _ key: IdempotencyKey?) async {
        await log.append("\(run) \(node) \(launch) \(key?.rawValue ?? "-")")
    }
}

struct UploadPhoto: AsyncAction {
    typealias State = SoakState
    let run: String
    let effect: SideEffect
    func run(_ context: ActionContext<SoakState>) async throws -> String {
        await effect.happened(run, "upload", context.idempotencyKey)
        return "https://cdn.example/\(run).jpg"
    }
}

struct CreatePost: AsyncAction {
    typealias State = SoakState
    let run: String
    let url: String
    let effect: SideEffect
    let failsInDoubt: Bool
    func run(_ context: ActionContext<SoakState>) async throws -> Int {
        if failsInDoubt { throw ReferenceInDoubt() }
        await effect.happened(run, "post", context.idempotencyKey)
        return url.utf8.count
    }
}

struct NotifyFollowers: AsyncAction {
    typealias State = SoakState
    let run: String
    let effect: SideEffect
    func run(_ context: ActionContext<SoakState>) async throws -> Int {
        await effect.happened(run, "notify", context.idempotencyKey)
        return 3
    }
}

/// The reference run's stand-in for a post left in doubt by a kill.
struct ReferenceInDoubt: Error {}

/// The reason a failed post gives; the only failure the soak allows is an in-doubt one.
func reason(_ error: any Error) -> String {
    if error is ReferenceInDoubt { return "in doubt" }
    if case .inDoubt? = error as? DurableRunError { return "in doubt" }
    return "\(error)"
}

/// Upload (at least once, same key) → show it; → post (at most once) → apply it, or say it failed;
/// → notify (at least once, same key) → show the count.
func publishGraph(_ run: String, effect: SideEffect, failPost: Bool) -> ActionGraph<SoakState> {
    var graph = ActionGraph<SoakState>()
    let upload = graph.run(UploadPhoto(run: run, effect: effect))
    graph.setLabel("upload", for: upload)
    graph.setDurable(upload, inDoubt: .rerunWithSameKey)
    graph.setLabel("show", for: graph.send(after: upload) { url in ShowUploaded(run: run, url: url) })
    let post = graph.run(after: upload) { url in
        CreatePost(run: run, url: url, effect: effect, failsInDoubt: failPost)
    }
    graph.setLabel("post", for: post)
    graph.setDurable(post, inDoubt: .failInDoubt)
    graph.setFallback(for: post) { error in PostFailed(run: run, reason: reason(error)) }
    graph.setLabel("apply", for: graph.send(after: post) { id in ApplyPost(run: run, id: id) })
    let notify = graph.run(after: post) { _ in NotifyFollowers(run: run, effect: effect) }
    graph.setLabel("notify", for: notify)
    graph.setDurable(notify, inDoubt: .rerunWithSameKey)
    graph.setLabel("notified", for: graph.send(after: notify) { count in ShowNotified(run: run, count: count) })
    return graph
}

func fail(_ code: Int32, _ message: String) -> Never {
    FileHandle.standardError.write(Data("DurableSoakChild: \(message)\n".utf8))
    exit(code)
}

// MARK: One launch

let arguments = CommandLine.arguments
guard arguments.count == 3 || (arguments.count == 5 && arguments[3] == "--fail-post"),
    let runCount = Int(arguments[2]), runCount > 0
else {
    fail(2, "usage: DurableSoakChild <folder> <runs> [--fail-post run-1,run-3]")
}
let folder = URL(fileURLWithPath: arguments[1], isDirectory: true)
let failPost = Set(arguments.count == 5 ? arguments[4].split(separator: ",").map(String.init) : [])
let launchName = "launch-\(getpid())"
let effect = SideEffect(log: SyncedLog(folder.appendingPathComponent("effects.log").path), launch: launchName)
let launches = SyncedLog(folder.appendingPathComponent("launches.log").path)

let opening = ContinuousClock.now
let launch: DurableLaunch<SoakState>
do {
    launch = try await DurableLaunch.open(
        journalFolder: folder.appendingPathComponent("journal", isDirectory: true),
        stateURL: folder.appendingPathComponent("state.json"), default: SoakState(), reducer: soakReducer,
        saveDebounce: .milliseconds(2), lockWait: .seconds(60)
    ) { durable in
        // Under the lock, before any run resumes: when this launch got it (the soak counts the waits).
        let waited = opening.duration(to: .now).components
        let seconds = Double(waited.seconds) + Double(waited.attoseconds) / 1e18
        launches.appendNow("\(launchName) locked waited=\(String(format: "%.3f", seconds))")
        durable.register("publish", parameters: SoakParameters.self) { parameters in
            publishGraph(parameters.run, effect: effect, failPost: failPost.contains(parameters.run))
        }
    }
} catch .journal(.locked(_, let reason)) {
    fail(6, "the journal's folder stayed locked for 60 s: \(reason)")
} catch .journal(let error) {
    fail(3, "the journal could not be opened: \(error)")
} catch .stateUnreadable(let error) {
    fail(4, "the saved state could not be read: \(error)")
}
if let error = launch.restoreError {
    fail(4, "the saved state did not decode: \(error)")
}
let store = launch.store
let durable = launch.runs

let report = launch.report
let inDoubt = report.resumed.flatMap { run in run.inDoubt.map { "\(run.runID)/\($0)" } }
await launches.append(
    "\(launchName) resumed=\(report.resumed.count) inDoubt=\(inDoubt.joined(separator: ",")) "
        + "tornTails=\(report.diagnostics.count) failures=\(report.failures.count) "
        + "notResumed=\(report.notResumed.count)")
guard report.failures.isEmpty, report.notResumed.isEmpty else {
    fail(3, "resume: failures \(report.failures), not resumed \(report.notResumed.map(\.error))")
}

var runs = report.resumed.map(\.run)
let resumedIDs = Set(report.resumed.map(\.runID))
for index in 0..<runCount {
    let runID = "run-\(index)"
    // Started before: either the journal still holds it (resumed) or the saved state holds its end.
    guard store.state.runs[runID] == nil, !resumedIDs.contains(runID) else { continue }
    do {
        runs.append(try await durable.start("publish", runID: runID, parameters: SoakParameters(run: runID)))
    } catch {
        fail(5, "start \(runID): \(error)")
    }
}
for run in runs { _ = await run.wait() }
// The shutdown order of the Durable guide: flush (the journal's records, the state, then the runs
// that ended leave the journal), check, then close, which releases the lock for a waiting sibling.
do { try await launch.flush() } catch { fail(5, "the state could not be saved: \(error)") }
do {
    let left = try launch.journal.loadUnfinishedRuns()
    guard left.runs.isEmpty, left.failures.isEmpty else {
        fail(5, "runs left in the journal after every run ended: \(left.runs.map(\.runID)) \(left.failures)")
    }
} catch {
    fail(3, "the journal could not be read at the end: \(error)")
}
await launches.append("\(launchName) finished")
do { try await launch.close() } catch { fail(5, "the state could not be saved at close: \(error)") }
exit(0)
