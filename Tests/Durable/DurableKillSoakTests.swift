import Foundation
import Testing

@testable import OresRedux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Child processes exist on macOS and Linux only: on iOS, tvOS, watchOS and visionOS (a simulator
// build of the tests) this file is compiled out, and the soak with it.
#if os(macOS) || os(Linux)

    // Issue 22's kill soak. A child process (Tools/DurableSoakChild) publishes a few posts as durable
    // runs: upload (at least once, same key) → post (at most once) → notify (at least once, same key),
    // each call appending an fsync'd line to a side-effect log, the state saved with its marks. The
    // soak kills it with SIGKILL at random moments (seeded, printed), launches it again, and again,
    // then lets the last launch finish; then it checks the round against the model. Some launches
    // (seeded too) are two processes started at once on the same folder, as an app extension or a
    // relaunch beside a dying process would be: each has its own kill time or none, the one that
    // gets the journal's lock works while the other waits for it (`DurableLaunch`'s `lockWait`),
    // then the other resumes what the first left, or finds nothing left.
    //
    //     swift test --filter DurableKillSoak                                  a few dozen kills
    //     ORESREDUX_KILL_SOAK=1000 swift test --filter DurableKillSoak         at least 1,000 kills
    //     ORESREDUX_KILL_SOAK_SEED=42 swift test --filter DurableKillSoak      the kills of seed 42

    @Suite("Durable runs: the kill soak")
    struct DurableKillSoakTests {
        @Test("killed with SIGKILL at random moments and resumed: at most once, same keys, every run ends, same state")
        func killSoak() async throws {
            let environment = ProcessInfo.processInfo.environment
            let wantedKills = environment["ORESREDUX_KILL_SOAK"].flatMap { Int($0) } ?? 24
            let seed = environment["ORESREDUX_KILL_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...99_999)
            print(
                "kill soak: \(wantedKills) kills, seed \(seed) (ORESREDUX_KILL_SOAK_SEED=\(seed) repeats the kill times)"
            )
            let child = try SoakChild.locate()
            var random = SplitMix64(seed: seed)
            var totals = SoakTotals()
            // How long a whole launch takes without a kill: kills are drawn within it.
            var launchTime = try await SoakRound.referenceTime(child)
            var round = 0
            while totals.kills < wantedKills {
                round += 1
                let killsThisRound = min(Int.random(in: 1...6, using: &random), wantedKills - totals.kills)
                let soakRound = try SoakRound(child: child, number: round, runs: 4)
                let summary = try await soakRound.run(
                    kills: killsThisRound, launchTime: launchTime, random: &random)
                try await soakRound.check()
                soakRound.remove()  // kept when the round failed, for a person to read
                totals.add(summary)
                launchTime = summary.window
            }
            print("kill soak: \(totals), seed \(seed)")
            #expect(totals.kills >= wantedKills)
        }
    }

    /// What the rounds added up to.
    struct SoakTotals: CustomStringConvertible {
        var rounds = 0
        /// Every round's counts, added up (its `window` is the last round's).
        var counts = SoakRound.Summary()
        var kills: Int { counts.kills }

        mutating func add(_ round: SoakRound.Summary) {
            rounds += 1
            counts.kills += round.kills
            counts.launches += round.launches
            counts.runs += round.runs
            counts.postsInDoubt += round.postsInDoubt
            counts.repeatedIdempotentCalls += round.repeatedIdempotentCalls
            counts.tornTails += round.tornTails
            counts.pairs += round.pairs
            counts.waitedForTheLock += round.waitedForTheLock
            counts.killedBeforeTheLock += round.killedBeforeTheLock
            counts.window = round.window
        }

        var description: String {
            "\(counts.kills) kills in \(rounds) rounds (\(counts.launches) launches, \(counts.runs) runs), "
                + "\(counts.postsInDoubt) posts left in doubt and not repeated, \(counts.repeatedIdempotentCalls) "
                + "idempotent calls repeated with the same key, \(counts.tornTails) torn journal tails dropped, "
                + "\(counts.pairs) launches of two processes at once (processes that waited for the other's lock: "
                + "\(counts.waitedForTheLock), killed before they held it: \(counts.killedBeforeTheLock))"
        }
    }

    /// One round of the soak: a fresh folder, a few runs, launches killed at random, a last launch
    /// that finishes, and the check against the model.
    struct SoakRound {
        struct Summary {
            var kills = 0
            var launches = 0
            var runs = 0
            var postsInDoubt = 0
            var repeatedIdempotentCalls = 0
            var tornTails = 0
            /// Launches of two processes at once.
            var pairs = 0
            /// Processes of a pair that got the lock only after waiting for it (their open took at
            /// least 10 ms, `DurableLaunch`'s first interval between tries; an open that finds the
            /// folder free takes about a millisecond).
            var waitedForTheLock = 0
            /// Processes of a pair killed before they held the lock: while waiting for it (or while
            /// starting); they read nothing and wrote nothing.
            var killedBeforeTheLock = 0
            /// How long the last launch that was not killed took: the next round's window for kills.
            var window = 0.0
        }

        let child: URL
        let number: Int
        let runs: Int
        let folder: URL

        init(child: URL, number: Int, runs: Int) throws {
            self.child = child
            self.number = number
            self.runs = runs
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("oresredux-soak-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }

        /// The seconds a launch takes that runs 4 posts without a kill (the longest of three).
        static func referenceTime(_ child: URL) async throws -> Double {
            var longest = 0.0
            for _ in 0..<3 {
                let round = try SoakRound(child: child, number: 0, runs: 4)
                defer { round.remove() }
                let launch = try await round.launch(killAfter: [nil], what: "a reference launch")
                longest = max(longest, launch[0].seconds)
            }
            return longest
        }

        /// How often a launch is two processes started at once on the round's folder.
        static let pairChance = 0.35

        /// Kills `kills` processes at random moments within `window` seconds of their start, then lets
        /// one launch finish. A launch that finishes before its kill is not a kill: its time becomes the
        /// window (a relaunch has less left to do, and a loaded machine is slow), and another is drawn.
        /// Some launches, the last one too, are two processes at once, each with its own kill time or
        /// none (one process of the last launch has none, so the round ends). Either may get the lock
        /// first; the other waits for it, and may be killed while it waits.
        func run(kills: Int, launchTime: Double, random: inout SplitMix64) async throws -> Summary {
            var summary = Summary(runs: runs, window: launchTime)
            var killed: [pid_t] = []
            var paired: [pid_t] = []
            /// A kill time within the window.
            func killTime(_ random: inout SplitMix64, _ window: Double) -> Double {
                Double.random(in: 0...(window * 1.2), using: &random)
            }
            /// The processes of one launch: `first`, and with `pairChance` a second one started with it,
            /// killed at a time of its own or (one time in four) not at all. The second's time is drawn
            /// after the first's: whichever of the two waits for the lock then often lives to take it.
            func processes(_ first: Double?, _ random: inout SplitMix64, _ window: Double) -> [Double?] {
                guard Double.random(in: 0..<1, using: &random) < Self.pairChance else { return [first] }
                let second =
                    Int.random(in: 0..<4, using: &random) == 0 ? nil : (first ?? window) + killTime(&random, window)
                return Bool.random(using: &random) ? [first, second] : [second, first]
            }
            func record(_ launch: [Launch]) {
                summary.launches += 1
                if launch.count > 1 {
                    summary.pairs += 1
                    paired += launch.map(\.pid)
                }
                killed += launch.filter(\.wasKilled).map(\.pid)
                summary.kills += launch.filter(\.wasKilled).count
            }

            var attempts = 0
            while summary.kills < kills {
                attempts += 1
                let killAfter = processes(killTime(&random, summary.window), &random, summary.window)
                let launch = try await launch(
                    killAfter: killAfter, what: "round \(number), launch \(summary.launches + 1)")
                record(launch)
                if let finished = launch.filter({ !$0.wasKilled }).map(\.seconds).min() {
                    summary.window = finished
                    if attempts > kills * 20 { break }
                }
            }
            let last = try await launch(
                killAfter: processes(nil, &random, summary.window), what: "round \(number), the last launch")
            record(last)
            // A round's first launch has every run to do: the last one's time is too short a window.
            summary.window = max(
                summary.window, launchTime * 0.5, last.filter { !$0.wasKilled }.map(\.seconds).min() ?? 0)
            let model = try SoakLogs(folder)
            summary.postsInDoubt = model.postsInDoubt
            summary.repeatedIdempotentCalls = model.repeatedIdempotentCalls
            summary.tornTails = model.tornTails
            summary.waitedForTheLock = paired.filter { (model.lockWaits["launch-\($0)"] ?? 0) >= 0.010 }.count
            summary.killedBeforeTheLock =
                paired.filter {
                    killed.contains($0) && model.lockWaits["launch-\($0)"] == nil
                }.count
            return summary
        }

        /// Checks the round against the model, then against the same graphs run without a kill.
        func check() async throws {
            let logs = try SoakLogs(folder)
            let what = "round \(number) (folder kept: \(folder.path))"
            let failures = logs.modelFailures(runs: runs)
            guard failures.isEmpty else {
                Issue.record("\(what): \(failures.joined(separator: "; "))")
                throw SoakFailure(description: "the model check failed")
            }
            let journalFiles = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("journal").path
            ).filter { $0.hasPrefix("run-") }
            try #require(journalFiles.isEmpty, "\(what): every run finished and left the journal")

            // The same graphs without a kill, with the posts a kill left in doubt failing in doubt.
            let reference = try SoakRound(child: child, number: number, runs: runs)
            defer { reference.remove() }
            _ = try await reference.launch(
                killAfter: [nil], what: "round \(number)'s reference", failPost: logs.postsFailedInDoubt.sorted())
            let state = try SoakLogs.savedState(folder)
            let expected = try SoakLogs.savedState(reference.folder)
            try #require(
                NSDictionary(dictionary: state).isEqual(to: expected),
                "\(what): the final state \(state) is that of the same graphs run without a kill, \(expected)")
        }

        /// How one process of a launch ended.
        struct Launch {
            var pid: pid_t
            var wasKilled: Bool
            var seconds: Double
        }

        /// Launches one child per entry of `killAfter` on the round's folder, all at once, kills each
        /// after its entry's seconds unless it exited first (`nil`: never), and waits for all of them
        /// (off the cooperative pool, with a deadline on lack of progress). Each must exit 0 unless it
        /// was killed: a child that waited for a sibling's lock resumes what the sibling left.
        func launch(killAfter: [Double?], what: String, failPost: [String] = []) async throws -> [Launch] {
            var arguments = [child.path, folder.path, "\(runs)"]
            if !failPost.isEmpty { arguments += ["--fail-post", failPost.joined(separator: ",")] }
            var processes: [ChildProcess] = []
            do {
                for _ in killAfter {
                    processes.append(
                        try ChildProcess(arguments, output: folder.appendingPathComponent("child-output.log").path))
                }
            } catch {
                for process in processes { process.kill() }
                throw error
            }
            let started = DispatchTime.now().uptimeNanoseconds
            for (process, killAfter) in zip(processes, killAfter) {
                guard let killAfter else { continue }
                // The experiment, not a wait for work: the kill fires on a Dispatch timer.
                DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) { process.kill() }
            }
            let ends: [(status: ChildProcess.Status, seconds: Double)]
            do {
                let children = processes
                ends = try await withDeadline(60, "\(what) of the soak child") {
                    await withTaskGroup(of: (Int, ChildProcess.Status, Double).self) { group in
                        for (index, process) in children.enumerated() {
                            group.addTask {
                                let status = await onThread { process.waitForExit() }
                                return (index, status, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
                            }
                        }
                        var ends = [(status: ChildProcess.Status, seconds: Double)?](
                            repeating: nil, count: children.count)
                        for await (index, status, seconds) in group { ends[index] = (status, seconds) }
                        return ends.map { $0! }
                    }
                }
            } catch {
                for process in processes { process.kill() }  // ends the threads that wait for them
                throw error
            }
            return try zip(processes, zip(killAfter, ends)).map { process, launch in
                let (killAfter, (status, seconds)) = launch
                let which = processes.count > 1 ? "\(what) (pid \(process.pid), one of two at once)" : what
                switch status {
                case .exited(0):
                    return Launch(pid: process.pid, wasKilled: false, seconds: seconds)
                case .signalled(SIGKILL) where killAfter != nil:
                    return Launch(pid: process.pid, wasKilled: true, seconds: seconds)
                default:
                    let output =
                        (try? String(contentsOf: folder.appendingPathComponent("child-output.log"), encoding: .utf8))
                    Issue.record("\(which): the soak child ended with \(status): \(output ?? "(no output)")")
                    throw SoakFailure(description: "\(which): the soak child ended with \(status)")
                }
            }
        }
    }

    struct SoakFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// What a round's child wrote: its side-effect log, its launch log and its saved state.
    struct SoakLogs {
        struct Call: Equatable {
            var run: String
            var node: String
            var launch: String
            var key: String
        }

        let calls: [Call]
        let launches: [String]
        /// How long each launch that got the journal's lock waited for it, in seconds, by launch name.
        let lockWaits: [String: Double]
        let state: [String: Any]

        init(_ folder: URL) throws {
            let effects = (try? String(contentsOf: folder.appendingPathComponent("effects.log"), encoding: .utf8)) ?? ""
            calls = try effects.split(separator: "\n").map { line in
                let parts = line.split(separator: " ").map(String.init)
                guard parts.count == 4 else { throw SoakFailure(description: "a torn side-effect line: \(line)") }
                return Call(run: parts[0], node: parts[1], launch: parts[2], key: parts[3])
            }
            launches = try String(contentsOf: folder.appendingPathComponent("launches.log"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            lockWaits = Dictionary(
                launches.compactMap { line in
                    let parts = line.split(separator: " ")
                    guard parts.count == 3, parts[1] == "locked", parts[2].hasPrefix("waited="),
                        let seconds = Double(parts[2].dropFirst(7))
                    else { return nil }
                    return (String(parts[0]), seconds)
                }, uniquingKeysWith: { first, _ in first })
            state = try Self.savedState(folder)
        }

        /// The saved state, without its marks (a finished run's marks may stay until the next launch).
        static func savedState(_ folder: URL) throws -> [String: Any] {
            let data = try Data(contentsOf: folder.appendingPathComponent("state.json"))
            let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try #require(file["state"] as? [String: Any])
        }

        private var records: [String: [String: Any]] {
            (state["runs"] as? [String: [String: Any]]) ?? [:]
        }

        /// The runs whose post ended failed in doubt (never called again after a kill).
        var postsFailedInDoubt: Set<String> {
            Set(records.filter { $0.value["postFailure"] != nil }.keys)
        }

        var postsInDoubt: Int { postsFailedInDoubt.count }

        var repeatedIdempotentCalls: Int {
            Dictionary(grouping: calls.filter { $0.node != "post" }) { "\($0.run)/\($0.node)" }
                .values.reduce(0) { $0 + max(0, $1.count - 1) }
        }

        var tornTails: Int {
            launches.reduce(0) { sum, line in
                sum
                    + (line.split(separator: " ").first { $0.hasPrefix("tornTails=") }.flatMap { Int($0.dropFirst(10)) }
                        ?? 0)
            }
        }

        /// Every way the round broke a promise of durable runs, as sentences; empty when it kept them.
        func modelFailures(runs: Int) -> [String] {
            var failures: [String] = []
            for index in 0..<runs {
                let run = "run-\(index)"
                let calls = { (node: String) in self.calls.filter { $0.run == run && $0.node == node } }
                for node in ["upload", "post", "notify"] {
                    let expected = IdempotencyKey(runID: run, node: node).rawValue
                    for call in calls(node) where call.key != expected {
                        failures.append("\(run)'s \(node) was called with key \(call.key), not \(expected)")
                    }
                }
                if calls("post").count > 1 {
                    failures.append("\(run)'s post (at most once) was called \(calls("post").count) times")
                }
                guard let record = records[run] else {
                    failures.append("\(run) never reached the saved state")
                    continue
                }
                if calls("upload").isEmpty { failures.append("\(run)'s upload was never called") }
                if let failure = record["postFailure"] {
                    if failure as? String != "in doubt" { failures.append("\(run)'s post failed: \(failure)") }
                    if !calls("notify").isEmpty { failures.append("\(run) notified after its post failed") }
                } else {
                    if calls("post").count != 1 { failures.append("\(run)'s post succeeded without one call") }
                    if calls("notify").isEmpty { failures.append("\(run)'s followers were never notified") }
                }
            }
            // A launch calls only while it holds the journal's lock, which it keeps until it ends (or is
            // killed): the calls of two processes launched at once never interleave.
            var callers: [String] = []
            for call in calls where call.launch != callers.last {
                if callers.contains(call.launch) {
                    failures.append(
                        "\(call.launch) called \(call.run)'s \(call.node) after \(callers.last!) had called: "
                            + "two launches held the journal at once")
                    break
                }
                callers.append(call.launch)
            }
            if !launches.contains(where: { $0.hasSuffix(" finished") }) {
                failures.append("no launch finished")
            }
            for line in launches where line.contains("failures=") && !line.contains("failures=0 notResumed=0") {
                failures.append("a launch could not load the journal: \(line)")
            }
            return failures
        }
    }

    /// Finds the soak's child executable, a dependency of the test target (Package.swift), so that
    /// `swift build --build-tests`, `swift test` and Xcode's Test action all build it beside the tests.
    enum SoakChild {
        static func locate() throws -> URL {
            let name = "DurableSoakChild"
            if let path = ProcessInfo.processInfo.environment["ORESREDUX_SOAK_CHILD"] {
                return URL(fileURLWithPath: path)
            }
            // The child is in the build folder that holds the tests' code. Not found from the test
            // process: on macOS that is xctest or swiftpm-testing-helper in the toolchain, which loads
            // the tests' bundle (…/debug/OresReduxPackageTests.xctest; in Xcode
            // …/Products/Debug/OresReduxTests.xctest). On Linux the tests' code is the test process.
            var candidates: [URL] = []
            #if os(Linux)
                if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                    candidates.append(URL(fileURLWithPath: exe))
                }
            #else
                candidates.append(Bundle(for: ChildProcess.self).bundleURL)
            #endif
            for start in candidates {
                var folder = start.standardizedFileURL.deletingLastPathComponent()
                for _ in 0..<5 {
                    let candidate = folder.appendingPathComponent(name)
                    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                    folder = folder.deletingLastPathComponent()
                }
            }
            throw SoakFailure(
                description: """
                    the soak's child executable \(name) is not beside the test process (looked up from \
                    \(candidates.map(\.path))): build every target with `swift build --build-tests`, or \
                    name it with ORESREDUX_SOAK_CHILD=/path/to/\(name)
                    """)
        }
    }

    /// A child process, spawned with its output in a file; killed at most once, and never after it
    /// was reaped (its id could then belong to another process).
    final class ChildProcess: Sendable {
        enum Status: Equatable, CustomStringConvertible {
            case exited(Int32)
            case signalled(Int32)

            var description: String {
                switch self {
                case .exited(let code): "exit code \(code)"
                case .signalled(let signal): "signal \(signal)"
                }
            }
        }

        let pid: pid_t
        /// Whether the child exited (waited for, not yet reaped); `kill` checks it under the lock.
        private let exited = LockedValue(false)

        init(_ arguments: [String], output: String) throws {
            #if canImport(Darwin)
                var actions: posix_spawn_file_actions_t? = nil  // an opaque pointer on Darwin, set by init
            #else
                var actions = posix_spawn_file_actions_t()
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            // This process's environment, spelled the same everywhere (Darwin's module has no `environ`).
            var environment: [UnsafeMutablePointer<CChar>?] =
                ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in environment { free(pointer) } }
            var pid: pid_t = 0
            let code = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &environment)
            guard code == 0 else {
                throw SoakFailure(description: "posix_spawn \(arguments[0]): \(String(cString: strerror(code)))")
            }
            self.pid = pid
        }

        /// Sends SIGKILL, unless the child already exited.
        func kill() {
            exited.withLock { exited in
                if !exited { sendKill(pid) }
            }
        }

        /// Blocks until the child ends (call it on a thread of its own), then reaps it.
        func waitForExit() -> Status {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            exited.withLock { $0 = true }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
            return .signalled(status & 0x7f)
        }
    }

    /// SIGKILL to `pid` (the C library's `kill`, which `ChildProcess.kill()` hides).
    private func sendKill(_ pid: pid_t) {
        _ = kill(pid, SIGKILL)
    }

#endif
