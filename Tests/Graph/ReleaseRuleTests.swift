import OresRedux
import Testing

extension GraphStories {
    /// Semantics 1: a node starts when all its prerequisites succeeded; each sync node is applied
    /// once, each async `run` called once per attempt, nothing started twice.
    @Suite("Release rule")
    struct ReleaseRule {
        @Test("log in, then profile and feed in parallel, then one home update: nothing starts early")
        func dependentsWaitForTheirPrerequisites() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let logInGate = Latch(), profileGate = Latch(), feedGate = Latch()
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "token-ada", gate: logInGate))
            let profile = graph.run(after: token) { token in
                call("FetchProfile", probe, answering: Profile(name: "Ada (\(token))"), gate: profileGate)
            }
            let feed = graph.run(after: token) { token in
                call("FetchFeed", probe, answering: [Post(title: "hello (\(token))")], gate: feedGate)
            }
            let home = graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }

            let run = store.dispatch(graph)

            // Logging in: nothing that needs the token has started.
            try await withDeadline(10, "start LogIn") { await probe.waitFor("start LogIn") }
            #expect(run.report[profile].start == nil)
            #expect(run.report[feed].start == nil)
            #expect(probe.count("start FetchProfile") == 0)
            #expect(probe.count("start FetchFeed") == 0)

            // The token arrives: profile and feed run side by side (both started, both still gated).
            logInGate.open()
            try await withDeadline(10, "start FetchProfile") { await probe.waitFor("start FetchProfile") }
            try await withDeadline(10, "start FetchFeed") { await probe.waitFor("start FetchFeed") }
            #expect(run.report[home].start == nil)

            // The profile arrives, the feed does not yet: the home screen still waits.
            profileGate.open()
            #expect(
                try await withDeadline(10, "the value of profile") { try await run.value(of: profile) }
                    == Profile(name: "Ada (token-ada)"))
            #expect(run.report[home].start == nil)
            #expect(store.state.applied.isEmpty)

            // The feed arrives: one home update with both.
            feedGate.open()
            let report = try await withDeadline { await run.wait() }
            #expect(report.count(of: .succeeded) == 4)
            #expect(store.state.profile == Profile(name: "Ada (token-ada)"))
            #expect(store.state.feed == [Post(title: "hello (token-ada)")])
            #expect(store.state.applied == ["ShowHome"])
            #expect(probe.count("mw ShowHome") == 1)
            for name in ["LogIn", "FetchProfile", "FetchFeed"] {
                #expect(probe.count("start \(name)") == 1, "\(name) was called more than once")
            }
            let log = probe.log
            let loggedIn = try #require(log.firstIndex(of: "end LogIn"))
            #expect(try #require(log.firstIndex(of: "start FetchProfile")) > loggedIn)
            #expect(try #require(log.firstIndex(of: "start FetchFeed")) > loggedIn)
        }

        @Test("a node with ten prerequisites starts once, after the last of them")
        func fanInStartsOnceAfterTheLastPrerequisite() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gates = (0..<10).map { _ in Latch() }
            var graph = Graph()
            let pages = gates.enumerated().map { page, gate in
                graph.run(call("Page\(page)", probe, answering: page, gate: gate))
            }
            let merge = graph.send(Note("merge pages"), after: pages)
            let run = store.dispatch(graph)

            // Pages arrive in reverse; after each but the last, the merge has not started.
            for page in (1..<10).reversed() {
                gates[page].open()
                _ = try await withDeadline(10, "the value of pages[page]") { try await run.value(of: pages[page]) }
                #expect(run.report[merge].start == nil, "merge started with page \(page - 1) still loading")
            }
            gates[0].open()
            _ = try await withDeadline { await run.wait() }

            #expect(store.state.applied == ["merge pages"])
            #expect(probe.count("mw merge pages") == 1)
            for page in 0..<10 { #expect(probe.count("start Page\(page)") == 1) }
        }

        @Test("a sync diamond around two async calls applies its join exactly once, after both")
        func diamondJoinIsAppliedOnce() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let left = Latch(), right = Latch()
            var graph = Graph()
            let open = graph.send(Note("open screen"))
            let profile = graph.run(call("FetchProfile", probe, answering: 1, gate: left), after: open)
            let feed = graph.run(call("FetchFeed", probe, answering: 2, gate: right), after: open)
            graph.send(Note("render"), after: profile, feed)
            let run = store.dispatch(graph)

            // A root sync node is applied before dispatch returns.
            #expect(store.state.applied == ["open screen"])
            right.open()
            _ = try await withDeadline(10, "the value of feed") { try await run.value(of: feed) }
            #expect(store.state.applied == ["open screen"])
            left.open()
            _ = try await withDeadline { await run.wait() }

            #expect(store.state.applied == ["open screen", "render"])
            #expect(probe.count("mw open screen") == 1)
            #expect(probe.count("mw render") == 1)
            #expect(probe.count("start FetchProfile") == 1)
            #expect(probe.count("start FetchFeed") == 1)
        }

        @Test("one async answer feeds ten dependents: run is called once, each dependent applied once")
        func fanOutCallsRunOnce() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let total = graph.run(call("FetchTotal", probe, answering: 7))
            for slot in 0..<10 {
                graph.send(after: total) { total in Add(total + slot) }
            }
            let report = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(report.count(of: .succeeded) == 11)
            #expect(probe.count("start FetchTotal") == 1)
            #expect(store.state.total == (0..<10).reduce(0) { $0 + 7 + $1 })
            #expect(store.state.applied.count == 10)
            for slot in 0..<10 { #expect(probe.count("mw Add(\(7 + slot))") == 1) }
        }

        @Test("a graph is a value: dispatched twice, it runs twice, each node once per run")
        func graphDispatchedTwiceRunsTwice() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let count = graph.run(call("Count", probe, answering: 5))
            graph.send(after: count) { count in Add(count) }

            let first = store.dispatch(graph)
            let second = store.dispatch(graph)
            _ = try await withDeadline(10, "the first dispatch") { await first.wait() }
            _ = try await withDeadline(10, "the second dispatch") { await second.wait() }

            #expect(probe.count("start Count") == 2)
            #expect(probe.count("mw Add(5)") == 2)
            #expect(store.state.total == 10)
        }
    }

    /// Semantics 2: responses flow, typed, from prerequisites to the nodes built from them.
    @Suite("Typed data flow")
    struct TypedDataFlow {
        @Test("run(after: token) receives the token; send(after: profile, feed) receives both, typed")
        func responsesFlowTyped() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let token = graph.run(call("LogIn", probe, answering: "t-42"))
            let userID = graph.run(call("LookUpUser", probe, answering: 42))
            let profile = graph.run(after: token, userID) { token, userID in
                call("FetchProfile(\(token), \(userID))", probe, answering: Profile(name: "user \(userID)"))
            }
            let feed = graph.run(after: token) { token in
                call("FetchFeed(\(token))", probe, answering: [Post(title: "a"), Post(title: "b")])
            }
            graph.send(after: profile, feed) { profile, feed in ShowHome(profile: profile, feed: feed) }
            let run = store.dispatch(graph)
            _ = try await withDeadline { await run.wait() }

            #expect(probe.count("start FetchProfile(t-42, 42)") == 1)
            #expect(probe.count("start FetchFeed(t-42)") == 1)
            #expect(store.state.profile == Profile(name: "user 42"))
            #expect(store.state.feed == [Post(title: "a"), Post(title: "b")])
            let typedToken: String = try await withDeadline(10, "the value of token") { try await run.value(of: token) }
            let typedFeed: [Post] = try await withDeadline(10, "the value of feed") { try await run.value(of: feed) }
            #expect(typedToken == "t-42")
            #expect(typedFeed.map(\.title) == ["a", "b"])
        }

        @Test("a sync node answers Void, and a typed node can take it beside typed responses")
        func syncNodesAnswerVoid() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let saved = graph.send(Note("save draft"))
            let count = graph.run(call("CountDrafts", probe, answering: 3))
            let label = graph.run(call("Label", probe, answering: "drafts"))
            graph.send(after: saved, count, label) { (_: Void, count: Int, label: String) in
                Note("\(count) \(label) saved")
            }
            let reread = graph.run(after: saved) { (_: Void) in call("Reread", probe, answering: true) }
            let run = store.dispatch(graph)
            _ = try await withDeadline { await run.wait() }

            // Void: returns, no value to read
            try await withDeadline(10, "the value of saved") { try await run.value(of: saved) }
            #expect(
                try await withDeadline(10, "the outcome of saved") { await run.outcome(of: saved) }.kind == .succeeded)
            #expect(try await withDeadline(10, "the value of reread") { try await run.value(of: reread) })
            #expect(store.state.applied == ["save draft", "3 drafts saved"])
        }

        @Test("each parameter gets its own prerequisite's response, in the order given, not the order added")
        func responsesFollowTheOrderGiven() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let count = graph.run(call("CountDrafts", probe, answering: 3))
            let label = graph.run(call("Label", probe, answering: "drafts"))
            // Added count first; given label first, and label twice.
            graph.send(after: label, count, label) { (first: String, count: Int, again: String) in
                Note("\(first) \(count) \(again)")
            }
            let echoed = graph.run(after: label, count) { label, count in
                call("Echo \(label) \(count)", probe, answering: count)
            }
            graph.send(after: echoed, label) { state, echoed, label in
                Note("\(label) \(echoed) after \(state.applied.count) note")
            }
            let run = store.dispatch(graph)
            _ = try await withDeadline { await run.wait() }

            #expect(probe.count("start Echo drafts 3") == 1)
            #expect(store.state.applied == ["drafts 3 drafts", "drafts 3 after 1 note"])
        }

        @Test("the pack form with no prerequisites runs at once")
        func packFormWithoutPrerequisites() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            graph.send { Note("built at once") }
            let hello = graph.run { call("Hello", probe, answering: "hello") }
            graph.send(after: hello) { hello in Note(hello + ", world") }
            let run = store.dispatch(graph)
            _ = try await withDeadline { await run.wait() }

            #expect(store.state.applied == ["built at once", "hello, world"])
            #expect(try await withDeadline(10, "the value of hello") { try await run.value(of: hello) } == "hello")
        }

        @Test("a make closure is called once per run, when its node starts")
        func makeIsCalledOncePerRun() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let number = graph.run(call("Number", probe, answering: 2))
            graph.send(after: number) { number in
                probe.record("make send")
                return Add(number)
            }
            graph.run(after: number) { number in
                probe.record("make run")
                return call("Double", probe, answering: number * 2)
            }
            #expect(probe.count("make send") == 0, "make ran while the graph was being built")

            _ = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(probe.count("make send") == 1)
            #expect(probe.count("make run") == 1)
        }
    }

    /// Semantics 3: sync nodes that become ready together reach the reducer in insertion order.
    @Suite("Deterministic order")
    struct DeterministicOrder {
        @Test("fifty root sync nodes reach the reducer in the order they were added")
        func rootsInInsertionOrder() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            for step in 0..<50 { graph.send(Note("step \(step)")) }
            _ = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            let expected = (0..<50).map { "step \($0)" }
            #expect(store.state.applied == expected)
            #expect(probe.log.filter { $0.hasPrefix("mw ") } == expected.map { "mw \($0)" })
        }

        @Test("the sync dependents of one async node reach the reducer in insertion order")
        func dependentsOfOneAsyncNodeInInsertionOrder() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gate = Latch()
            var graph = Graph()
            let feed = graph.run(call("FetchFeed", probe, answering: 30, gate: gate))
            var expected: [String] = []
            for row in 0..<30 {
                // Roots interleaved with the dependents: they are applied at dispatch, before the feed.
                if row % 3 == 0 { graph.send(Note("placeholder \(row)")) }
                graph.send(after: feed) { count in Note("row \(row) of \(count)") }
                expected.append("row \(row) of 30")
            }
            let run = store.dispatch(graph)
            #expect(store.state.applied == (0..<10).map { "placeholder \($0 * 3)" })

            gate.open()
            _ = try await withDeadline { await run.wait() }
            #expect(Array(store.state.applied.dropFirst(10)) == expected)
        }

        @Test("a sync node's sync dependents follow it in insertion order")
        func syncFanOutInInsertionOrder() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            var graph = Graph()
            let open = graph.send(Note("open"))
            graph.send(Note("title"), after: open)
            graph.send(Note("body"), after: open)
            graph.send(Note("footer"), after: open)
            _ = try await withDeadline { [graph] in await store.dispatch(graph).wait() }

            #expect(store.state.applied == ["open", "title", "body", "footer"])
        }

        @Test("dependents released at different moments reach the reducer in the order they were released")
        func laterReleaseMeansLaterApply() async throws {
            let probe = Probe()
            let store = makeStore(probe: probe)
            let gates = [Latch(), Latch(), Latch()]
            var graph = Graph()
            var shows: [Node<Void>] = []
            for page in 0..<3 {
                let fetched = graph.run(call("Page\(page)", probe, answering: page, gate: gates[page]))
                shows.append(graph.send(after: fetched) { page in Note("show page \(page)") })
            }
            let run = store.dispatch(graph)
            for page in [2, 0, 1] {
                gates[page].open()
                try await withDeadline(10, "the value of shows[page]") { [shows] in try await run.value(of: shows[page])
                }
            }
            _ = try await withDeadline { await run.wait() }

            #expect(store.state.applied == ["show page 2", "show page 0", "show page 1"])
        }
    }
}
