import OresRedux
import OresReduxTesting
import Testing

extension GraphStories {
    /// Semantics 6: timeouts and retries, paced by a `VirtualClock` so that no test waits for real time.
    @Suite("Timeouts, retries and delays")
    struct TimeoutsAndRetries {
        @Test("a feed request that never answers fails with timedOut after exactly 30 s of test time")
        func timeoutFailsTheNode() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let feed = graph.run(hanging("FetchFeed", probe, as: [Post].self))
            graph.setTimeout(.seconds(30), for: feed)
            let show = graph.send(after: feed) { feed in Note("\(feed.count) posts") }
            let run = store.dispatch(graph)

            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(29))
            #expect(clock.sleeperCount == 1, "the timeout fired before 30 s")
            #expect(run.report[feed].outcome == nil)

            await clock.advance(by: .seconds(1))
            let outcome = try await withDeadline(10, "the outcome of feed") { await run.outcome(of: feed) }
            #expect(outcome.error as? GraphError == .timedOut(after: .seconds(30)))
            // The attempt itself was cancelled
            try await withDeadline(10, "cancelled FetchFeed") { await probe.waitFor("cancelled FetchFeed") }
            let report = try await withDeadline { await run.wait() }
            #expect(report[show].outcome == .skipped)
            #expect(report[feed].attempts == 1)
            #expect(store.state.applied.isEmpty)
        }

        @Test("a timeout ends the node at the deadline even when the request ignores cancellation")
        func timeoutDoesNotWaitForAStubbornRequest() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            let gate = Latch()
            var graph = Graph()
            let feed = graph.run(Call(name: "Stubborn", probe: probe, gate: gate, ignoresCancellation: true) { _ in 1 })
            graph.setTimeout(.seconds(30), for: feed)
            let run = store.dispatch(graph)

            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(30))
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].error as? GraphError == .timedOut(after: .seconds(30)))
            #expect(probe.count("end Stubborn") == 0)
            gate.open()  // let the stubborn task end
        }

        @Test("a timed-out attempt is told to stop before the run goes on: wait() never returns beside it")
        func timedOutAttemptIsCancelledFirst() async throws {
            // A held call in a TestStore leaves its list when cancelled: if the run could end
            // before that, `finish()` would find a call "still waiting" for a run that is over.
            struct Unanswered: AsyncAction {
                let told: Box<Bool>
                let started: Box<Bool>
                let answer: Latch
                func run(_ context: ActionContext<AppState>) async throws -> Int {
                    // Marked started inside the handler: a cancel that came before the handler
                    // was installed is told on entry, before the body runs, so "started but not
                    // told" means the run went on before its attempt was cancelled.
                    try await withTaskCancellationHandler {
                        started.value = true
                        try await answer.waitUnlessCancelled()
                        return 1
                    } onCancel: {
                        told.value = true
                    }
                }
            }
            for round in 0..<300 {
                let clock = VirtualClock()
                let store = makeStore(probe: Probe(), clock: clock)
                let told = Box(false)
                let started = Box(false)
                var graph = Graph()
                let feed = graph.run(Unanswered(told: told, started: started, answer: Latch()))
                graph.setTimeout(.seconds(1), for: feed)
                let run = store.dispatch(graph)
                try await clock.waitForSleepers(1)
                await clock.advance(by: .seconds(1))
                let report = try await withDeadline(10, "the run") { await run.wait() }
                #expect(report[feed].error as? GraphError == .timedOut(after: .seconds(1)))
                // On a loaded machine the deadline can pass before the attempt's task ran at all
                // (the limit counts from the attempt's start): then its run is never called.
                let ok = told.value == true || started.value == false
                #expect(ok, "round \(round): the run ended before its attempt was cancelled")
                if !ok { return }
            }
        }

        @Test("offline once, then online: a retry with a 1 s back-off succeeds on the second attempt")
        func retrySucceedsOnTheSecondAttempt() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let feed = graph.run(
                Call<[Post]>(name: "FetchFeed", probe: probe) { attempt in
                    if attempt == 1 { throw Failure("offline") }
                    return [Post(title: "fresh")]
                })
            graph.setRetry(.retry(2, backoff: .constant(.seconds(1))), for: feed)
            graph.send(after: feed) { feed in Note("show \(feed[0].title)") }
            let run = store.dispatch(graph)

            // Attempt 1 failed; the back-off sleeps on the test clock.
            try await clock.waitForSleepers(1)
            #expect(probe.count("start FetchFeed") == 1)
            await clock.advance(by: .milliseconds(999))
            #expect(clock.sleeperCount == 1, "the retry came before its 1 s back-off")
            await clock.advance(by: .milliseconds(1))

            let report = try await withDeadline { await run.wait() }
            #expect(
                try await withDeadline(10, "the value of feed") { try await run.value(of: feed) } == [
                    Post(title: "fresh")
                ])
            #expect(probe.count("start FetchFeed") == 2)
            #expect(report[feed].attempts == 2)
            #expect(report[feed].outcome == .succeeded)
            #expect(store.state.applied == ["show fresh"])
        }

        @Test("exponential back-off waits 1 s, 2 s, then 4 s; the node fails with the last attempt's error")
        func exponentialBackoffPacesTheRetries() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let feed = graph.run(
                Call<Int>(name: "FetchFeed", probe: probe) { attempt in throw Failure("attempt \(attempt)") })
            graph.setRetry(.retry(3, backoff: .exponential(initial: .seconds(1))), for: feed)
            let run = store.dispatch(graph)

            for (attempt, backoff) in [(1, Duration.seconds(1)), (2, .seconds(2)), (3, .seconds(4))] {
                try await clock.waitForSleepers(1)
                #expect(probe.count("start FetchFeed") == attempt)
                await clock.advance(by: backoff - .nanoseconds(1))
                #expect(clock.sleeperCount == 1, "retry \(attempt) came before its \(backoff) back-off")
                await clock.advance(by: .nanoseconds(1))
            }
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].attempts == 4)
            #expect(report[feed].error as? Failure == Failure("attempt 4"))
            #expect(clock.now.offset == .seconds(7))
        }

        @Test("a 401 is not worth a retry: shouldRetry returning false stops at once")
        func shouldRetryFalseStopsRetrying() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let profile = graph.run(
                Call<Int>(name: "FetchProfile", probe: probe) { attempt in
                    throw Failure(attempt == 1 ? "offline" : "unauthorized")
                })
            graph.setRetry(.retry(5, when: { ($0 as? Failure)?.reason != "unauthorized" }), for: profile)
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(probe.count("start FetchProfile") == 2)
            #expect(report[profile].attempts == 2)
            #expect(report[profile].error as? Failure == Failure("unauthorized"))
        }

        @Test("a timed-out attempt counts as a failed attempt and is retried")
        func timedOutAttemptIsRetried() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            let stuck = Latch()
            var graph = Graph()
            let feed = graph.run(
                Call<String>(name: "FetchFeed", probe: probe) { attempt in "attempt \(attempt)" }
                    .hangingOnFirstAttempt(stuck))
            graph.setTimeout(.seconds(10), for: feed)
            graph.setRetry(.retry(1), for: feed)
            let run = store.dispatch(graph)

            // The first call to start is the one that hangs: on a loaded machine the first attempt's
            // task may not have run when its timeout fires, and the retry's would then start first
            // and hang instead, with no timer left to move.
            try await withDeadline(10, "attempt 1 to start") { await probe.waitFor("start FetchFeed") }
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(10))
            let report = try await withDeadline { await run.wait() }

            // Attempt 1 sees its cancellation on its own task, which may get there after the report.
            try await withDeadline(10, "attempt 1 to see its cancellation") {
                await probe.waitFor("cancelled FetchFeed")
            }
            #expect(probe.count("cancelled FetchFeed") == 1)  // attempt 1 was cancelled at its deadline
            #expect(probe.count("start FetchFeed") == 2)
            #expect(report[feed].attempts == 2)
            #expect(try await withDeadline(10, "the value of feed") { try await run.value(of: feed) } == "attempt 2")
        }

        @Test("when every attempt times out, the node fails with timedOut after its last attempt")
        func everyAttemptTimingOutFailsTheNode() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let feed = graph.run(hanging("FetchFeed", probe))
            graph.setTimeout(.seconds(10), for: feed)
            graph.setRetry(.retry(2), for: feed)
            graph.setFallback(for: feed) { error in ShowBanner(text: "\(error)") }
            let run = store.dispatch(graph)

            for attempt in 1...3 {
                try await withDeadline(10, "start FetchFeed") { await probe.waitFor("start FetchFeed", count: attempt) }
                try await clock.waitForSleepers(1)
                await clock.advance(by: .seconds(10))
            }
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].attempts == 3)
            #expect(report[feed].error as? GraphError == .timedOut(after: .seconds(10)))
            #expect(store.state.banner == "\(GraphError.timedOut(after: .seconds(10)))")
        }

        @Test("cancelling during the back-off ends the node cancelled, with no further attempt, and its attempts told")
        func cancelDuringBackoff() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let feed = graph.run(failing("FetchFeed", probe))
            graph.setRetry(.retry(5, backoff: .constant(.seconds(1))), for: feed)
            graph.setFallback(for: feed) { _ in Note("fallback") }
            let run = store.dispatch(graph)
            try await clock.waitForSleepers(1)  // the back-off after attempt 1
            await clock.advance(by: .seconds(1))
            try await clock.waitForSleepers(1)  // the back-off after attempt 2

            run.cancel()
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].outcome == .cancelled)
            #expect(report[feed].attempts == 2, "the attempts it made, though it ended cancelled")
            #expect(clock.sleeperCount == 0, "the back-off kept sleeping after cancel")
            await clock.advance(by: .seconds(10))
            #expect(probe.count("start FetchFeed") == 2)
            #expect(store.state.applied.isEmpty)
        }

        /// Its first attempt ignores its timeout's cancellation and, once `release` opens, dispatches
        /// a stale answer itself; a later attempt dispatches a fresh one at once.
        struct AnswersItself: AsyncAction {
            let probe: Probe
            let release: Latch
            func run(_ context: ActionContext<AppState>) async throws -> Int {
                let attempt = probe.record("start AnswersItself")
                guard attempt == 1 else {
                    context.dispatch(Note("fresh"))
                    return attempt
                }
                await release.wait()
                context.dispatch(Note("stale"))
                probe.record("stale dispatched")
                return attempt
            }
        }

        @Test(
            "a timed-out attempt that ignores its cancellation cannot reach the state: its late dispatch is dropped",
            arguments: [false, true])
        func timedOutAttemptsLateDispatchIsDropped(retried: Bool) async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            let release = Latch()
            var graph = Graph()
            let catalog = graph.run(AnswersItself(probe: probe, release: release))
            graph.setTimeout(.seconds(10), for: catalog)
            if retried { graph.setRetry(.retry(1), for: catalog) }
            graph.setFallback(for: catalog) { _ in Note("could not load") }
            let run = store.dispatch(graph)
            try await withDeadline(10, "attempt 1 to start") { await probe.waitFor("start AnswersItself") }
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(10))
            let report = try await withDeadline { await run.wait() }

            release.open()
            try await withDeadline(10, "attempt 1 to dispatch") { await probe.waitFor("stale dispatched") }

            #expect(report[catalog].outcome == (retried ? .succeeded : .failed))
            #expect(store.state.applied == [retried ? "fresh" : "could not load"], "nothing after it")
        }

        @Test("make builds the action once; every retry runs that same action")
        func makeIsCalledOnceAcrossRetries() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "t"))
            let profile = graph.run(after: token) { token in
                probe.record("make FetchProfile")
                return Call<String>(name: "FetchProfile", probe: probe) { attempt in
                    if attempt < 3 { throw Failure("busy") }
                    return "profile for \(token)"
                }
            }
            graph.setRetry(.retry(2), for: profile)
            let run = store.dispatch(graph)

            #expect(
                try await withDeadline(10, "the value of profile") { try await run.value(of: profile) }
                    == "profile for t")
            #expect(probe.count("make FetchProfile") == 1)
            #expect(probe.count("start FetchProfile") == 3)
        }

        @Test("poll again in 5 s: a delay node releases its dependents only once the clock moved 5 s")
        func delayNodeWaitsOnTheClock() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            let gate = Latch()
            var graph = Graph()
            let first = graph.run(call("Poll", probe, answering: 1, gate: gate))
            let pause = graph.delay(.seconds(5), after: first)
            let again = graph.send(Note("poll again"), after: pause)
            let run = store.dispatch(graph)

            // The delay does not start before the first poll answered.
            try await withDeadline(10, "start Poll") { await probe.waitFor("start Poll") }
            #expect(clock.sleeperCount == 0)
            #expect(run.report[pause].start == nil)
            gate.open()

            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(4))
            #expect(clock.sleeperCount == 1, "the delay ended before 5 s")
            #expect(run.report[again].start == nil)
            await clock.advance(by: .seconds(1))
            let report = try await withDeadline { await run.wait() }

            #expect(store.state.applied == ["poll again"])
            #expect(report[pause].kind == .delay)
            #expect(report[pause].outcome == .succeeded)
        }

        @Test("a timeout also bounds a join node waiting on work already in flight")
        func timeoutAppliesToJoins() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            let gate = Latch()
            let task = store.dispatch(call("LogIn", probe, answering: "t", gate: gate))
            var graph = Graph()
            let token = graph.join(task)
            graph.setTimeout(.seconds(3), for: token)
            let run = store.dispatch(graph)

            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(3))
            let report = try await withDeadline { await run.wait() }

            #expect(report[token].error as? GraphError == .timedOut(after: .seconds(3)))
            gate.open()
        }

        @Test("a timeout on a sync node is ignored: it never waits on the clock")
        func timeoutOnSyncNodeIsIgnored() async throws {
            let probe = Probe()
            let clock = VirtualClock()
            let store = makeStore(probe: probe, clock: clock)
            var graph = Graph()
            let note = graph.send(Note("instant"))
            graph.setTimeout(.seconds(1), for: note)
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report[note].outcome == .succeeded)
            #expect(clock.sleeperCount == 0)
            #expect(graph.problems.isEmpty)
        }
    }

    /// The arithmetic of back-off and retry policies, without a store.
    @Suite("Retry policy")
    struct RetryPolicyRules {
        @Test("no back-off waits nothing; constant waits the same before every retry")
        func noneAndConstant() {
            #expect(RetryPolicy.Backoff.none.delay(beforeRetry: 1) == .zero)
            #expect(RetryPolicy.Backoff.none.delay(beforeRetry: 9) == .zero)
            for retry in 1...5 {
                #expect(
                    RetryPolicy.Backoff.constant(.milliseconds(250)).delay(beforeRetry: retry) == .milliseconds(250))
            }
        }

        @Test("exponential back-off doubles from its initial delay and stops at its maximum")
        func exponential() {
            let backoff = RetryPolicy.Backoff.exponential(initial: .milliseconds(200))
            #expect(
                (1...5).map { backoff.delay(beforeRetry: $0) }
                    == [
                        .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
                        .milliseconds(3200),
                    ])
            #expect(backoff.delay(beforeRetry: 50) == .seconds(60))

            let capped = RetryPolicy.Backoff.exponential(initial: .seconds(1), multiplier: 3, maximum: .seconds(20))
            #expect(
                (1...5).map { capped.delay(beforeRetry: $0) }
                    == [.seconds(1), .seconds(3), .seconds(9), .seconds(20), .seconds(20)])
            #expect(capped.delay(beforeRetry: 0) == .seconds(1))
        }

        @Test("any multiplier or count is bad input the policy survives, never a trap")
        func badPolicyInput() {
            let maximum = Duration.seconds(60)
            for multiplier in [Double.infinity, 1e30, 1e300] {
                let backoff = RetryPolicy.Backoff.exponential(initial: .milliseconds(100), multiplier: multiplier)
                #expect(backoff.delay(beforeRetry: 1) == .milliseconds(100))
                #expect(backoff.delay(beforeRetry: 2) == maximum)
                #expect(backoff.delay(beforeRetry: .max) == maximum)
            }
            for multiplier in [Double.nan, -2, 0.5, -Double.infinity] {
                let backoff = RetryPolicy.Backoff.exponential(initial: .milliseconds(100), multiplier: multiplier)
                #expect(backoff.delay(beforeRetry: 7) == .milliseconds(100), "\(multiplier) waits the initial delay")
            }
            #expect(RetryPolicy.Backoff.constant(.seconds(-1)).delay(beforeRetry: 1) == .zero)
            #expect(RetryPolicy.Backoff.exponential(initial: .seconds(-1)).delay(beforeRetry: 3) == .zero)
            #expect(RetryPolicy.retry(.max).maxAttempts == .max)
            #expect(RetryPolicy.retry(.min).maxAttempts == 1)
        }

        @Test("a policy makes at least one attempt; retry(n) makes n + 1")
        func attemptCounts() {
            #expect(RetryPolicy.never.maxAttempts == 1)
            #expect(RetryPolicy.retry(2).maxAttempts == 3)
            #expect(RetryPolicy.retry(-3).maxAttempts == 1)
            #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
            #expect(RetryPolicy.retry(1).shouldRetry(Failure("any")))
        }
    }
}

extension GraphStories.Call {
    /// The same action, whose first call to start waits on `stuck` (cancellably) before answering:
    /// the first attempt only if its task started before a retry's did.
    func hangingOnFirstAttempt(_ stuck: GraphStories.Latch) -> GraphStories.FirstAttemptHangs<Response> {
        GraphStories.FirstAttemptHangs(inner: self, stuck: stuck)
    }
}

extension GraphStories {
    struct FirstAttemptHangs<Response: Sendable>: AsyncAction {
        let inner: Call<Response>
        let stuck: Latch

        func run(_ context: ActionContext<AppState>) async throws -> Response {
            if inner.probe.count("start \(inner.name)") == 0 {
                inner.probe.record("start \(inner.name)")
                try await withTaskCancellationHandler {
                    try await stuck.waitUnlessCancelled()
                } onCancel: {
                    inner.probe.record("cancelled \(inner.name)")
                }
                throw Failure("first attempt should never answer")
            }
            return try await inner.run(context)
        }
    }
}
