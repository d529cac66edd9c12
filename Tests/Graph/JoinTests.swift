import OresRedux
import Testing

extension GraphStories {
    /// Semantics 7: a graph can wait on work the store is already running, without starting it again.
    @Suite("Joins")
    struct Joins {
        @Test("a login already in flight: the graph joins its ActionTask and passes the token on, typed")
        func joinActionTaskPassesItsResponse() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            let logIn = store.dispatch(call("LogIn", probe, answering: "token-7", gate: gate))
            var graph = Graph()
            let token = graph.join(logIn)
            let profile = graph.run(after: token) { token in
                call("FetchProfile(\(token))", probe, answering: Profile(name: "Ada"))
            }
            let run = store.dispatch(graph)

            try await withDeadline(10, "start LogIn") { await probe.waitFor("start LogIn") }
            #expect(run.report[profile].start == nil)
            gate.open()
            let report = try await withDeadline { await run.wait() }

            #expect(probe.count("start LogIn") == 1)
            #expect(probe.count("start FetchProfile(token-7)") == 1)
            let joined: String = try await withDeadline(10, "the value of token") { try await run.value(of: token) }
            #expect(joined == "token-7")
            #expect(report[token].kind == .join)
            #expect(try await withDeadline(10, "the LogIn task") { try await logIn.value } == "token-7")
        }

        @Test("a joined ActionTask that fails fails the join node with its error; its dependents are skipped")
        func joinActionTaskPassesItsError() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let logIn = store.dispatch(failing("LogIn", probe, as: String.self))
            var graph = Graph()
            let token = graph.join(logIn)
            let profile = graph.run(after: token) { token in call("FetchProfile", probe, answering: token) }
            let run = store.dispatch(graph)
            let report = try await withDeadline { await run.wait() }

            #expect(report[token].error as? Failure == Failure("LogIn"))
            #expect(report[profile].outcome == .skipped)
        }

        @Test("cancelling the run stops the wait, not the joined work, which belongs to whoever started it")
        func cancelDoesNotCancelJoinedWork() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            let logIn = store.dispatch(call("LogIn", probe, answering: "token", gate: gate))
            var graph = Graph()
            let token = graph.join(logIn)
            let run = store.dispatch(graph)
            try await withDeadline(10, "start LogIn") { await probe.waitFor("start LogIn") }

            run.cancel()
            let report = try await withDeadline { await run.wait() }

            #expect(report[token].outcome == .cancelled)
            #expect(probe.count("cancelled LogIn") == 0)
            gate.open()
            #expect(try await withDeadline(10, "the LogIn task") { try await logIn.value } == "token")
        }

        @Test("joining a node of another run: its response flows into this graph")
        func joinNodeOfAnotherRun() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var session = Graph()
            let token = session.run(call("LogIn", probe, answering: "token-1", gate: gate))
            let sessionRun = store.dispatch(session)

            var settings = Graph()
            let joined = settings.join(token, of: sessionRun)
            let show = settings.send(after: joined) { token in Note("settings for \(token)") }
            let settingsRun = store.dispatch(settings)
            try await withDeadline(10, "start LogIn") { await probe.waitFor("start LogIn") }
            #expect(settingsRun.report[show].start == nil)

            gate.open()
            _ = try await withDeadline(10, "the settings run") { await settingsRun.wait() }

            #expect(
                try await withDeadline(10, "the value of joined") { try await settingsRun.value(of: joined) }
                    == "token-1")
            #expect(store.state.applied == ["settings for token-1"])
            #expect(probe.count("start LogIn") == 1)
        }

        @Test("joining a node that failed fails with the same error")
        func joinFailedNode() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var session = Graph()
            let token = session.run(failing("LogIn", probe, as: String.self))
            let sessionRun = store.dispatch(session)

            var settings = Graph()
            let joined = settings.join(token, of: sessionRun)
            let show = settings.send(after: joined) { token in Note(token) }
            let report = try await withDeadline { [settings] in await store.dispatch(settings).wait() }

            #expect(report[joined].error as? Failure == Failure("LogIn"))
            #expect(report[show].outcome == .skipped)
        }

        @Test("joining a node that was skipped or cancelled fails with joinedNodeDidNotSucceed")
        func joinSkippedOrCancelledNode() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var session = Graph()
            let token = session.run(failing("LogIn", probe, as: String.self))
            let profile = session.run(after: token) { token in call("FetchProfile", probe, answering: token) }
            let sessionRun = store.dispatch(session)

            var cancelled = Graph()
            let stuck = cancelled.run(call("Stuck", probe, answering: 0, gate: Latch()))
            let cancelledRun = store.dispatch(cancelled)
            cancelledRun.cancel()

            var settings = Graph()
            let joinedSkipped = settings.join(profile, of: sessionRun)
            let joinedCancelled = settings.join(stuck, of: cancelledRun)
            let report = try await withDeadline { [settings] in await store.dispatch(settings).wait() }

            #expect(report[joinedSkipped].error as? GraphError == .joinedNodeDidNotSucceed(.skipped))
            #expect(report[joinedCancelled].error as? GraphError == .joinedNodeDidNotSucceed(.cancelled))
        }

        @Test("joining a run of another store fails with joinedRunOfAnotherStore")
        func joinRunOfAnotherStore() async throws {
            let probe = Probe()
            let otherStore = makeStore(probe: probe)
            var other = Graph()
            let token = other.run(call("LogIn", probe, answering: "elsewhere"))
            let otherRun = otherStore.dispatch(other)

            let store = makeStore(probe: probe)
            var graph = Graph()
            let joined = graph.join(token, of: otherRun)
            let show = graph.send(after: joined) { token in Note(token) }
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report[joined].error as? GraphError == .joinedRunOfAnotherStore)
            #expect(report[show].outcome == .skipped)
            #expect(store.state.applied.isEmpty)
        }

        @Test("a keyed feed request dispatched directly and as a graph node shares one call of run")
        func keyedActionSharesOneCall() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let feed = graph.run(FetchFeed(userID: 1, probe: probe, gate: gate))
            let other = graph.run(FetchFeed(userID: 2, probe: probe, gate: gate))
            graph.send(after: feed, other) { feed, other in Note("\(feed.count + other.count) posts") }
            let run = store.dispatch(graph)
            try await withDeadline(10, "start FetchFeed(1)") { await probe.waitFor("start FetchFeed(1)") }
            try await withDeadline(10, "start FetchFeed(2)") { await probe.waitFor("start FetchFeed(2)") }
            // The nodes' calls are in flight: a direct dispatch joins one before `dispatch` returns
            // (a node's own task joins whenever it gets there, so only a direct dispatch is sure to).
            let direct = store.dispatch(FetchFeed(userID: 1, probe: probe, gate: gate))
            let directAgain = store.dispatch(FetchFeed(userID: 1, probe: probe, gate: gate))

            gate.open()
            _ = try await withDeadline { await run.wait() }

            #expect(probe.count("start FetchFeed(1)") == 1)
            #expect(probe.count("start FetchFeed(2)") == 1)
            #expect(
                try await withDeadline(10, "the direct dispatch") { try await direct.value } == [
                    Post(title: "post of 1")
                ])
            #expect(
                try await withDeadline(10, "the direct dispatch again") { try await directAgain.value } == [
                    Post(title: "post of 1")
                ])
            #expect(
                try await withDeadline(10, "the value of feed") { try await run.value(of: feed) } == [
                    Post(title: "post of 1")
                ])
            #expect(
                try await withDeadline(10, "the value of other") { try await run.value(of: other) } == [
                    Post(title: "post of 2")
                ])
            #expect(store.state.applied == ["2 posts"])
        }

        @Test("a shared keyed call's error reaches both the direct dispatch and the graph node")
        func keyedActionSharesItsError() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let feed = graph.run(FetchFeed(userID: 3, probe: probe, gate: gate, fails: true))
            let run = store.dispatch(graph)
            try await withDeadline(10, "start FetchFeed(3)") { await probe.waitFor("start FetchFeed(3)") }
            // The node's call is in flight: a direct dispatch joins it before `dispatch` returns.
            let direct = store.dispatch(FetchFeed(userID: 3, probe: probe, gate: gate, fails: true))
            gate.open()
            let report = try await withDeadline { await run.wait() }

            #expect(report[feed].error as? Failure == Failure("feed 3"))
            await #expect(throws: Failure("feed 3")) {
                try await withDeadline(10, "the direct dispatch") { try await direct.value }
            }
            #expect(probe.count("start FetchFeed(3)") == 1)
        }

        @Test("cancelling a run that joined a keyed call leaves the call running for the direct dispatch")
        func cancellingOneSharerKeepsTheCall() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            let direct = store.dispatch(FetchFeed(userID: 4, probe: probe, gate: gate))
            try await withDeadline(10, "start FetchFeed(4)") { await probe.waitFor("start FetchFeed(4)") }
            var graph = Graph()
            let feed = graph.run(FetchFeed(userID: 4, probe: probe, gate: gate))
            let run = store.dispatch(graph)

            run.cancel()
            let report = try await withDeadline { await run.wait() }
            #expect(report[feed].outcome == .cancelled)

            gate.open()
            #expect(
                try await withDeadline(10, "the direct dispatch") { try await direct.value } == [
                    Post(title: "post of 4")
                ])
            #expect(probe.count("start FetchFeed(4)") == 1)
        }
    }
}
