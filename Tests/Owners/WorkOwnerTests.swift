import Foundation
import OresRedux
import Testing

/// What closing a screen does to the work it started, told through the store: each policy, the
/// owner ended at every point of a run, refusals, a presented child set to `nil`, and waits that
/// end with their task.
@Suite("Work that belongs to a screen")
struct WorkOwnerTests {
    typealias AppState = OwnerStories.AppState
    typealias Gate = OwnerStories.Gate
    typealias Note = OwnerStories.Note
    typealias Call = OwnerStories.Call<AppState>
    typealias Graph = ActionGraph<AppState>

    @Test(
        "closing the log-in screen while the feed loads: the feed is cancelled, the profile finishes, home is never shown"
    )
    func logInClosedWhileTheFeedLoads() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Log-in screen")
        let (profileGate, feedGate) = (Gate(), Gate())
        var graph = Graph()
        let token = graph.run(OwnerStories.Quick<AppState>(name: "token"))
        let profile = graph.run(after: token) { _ in Call("profile", profileGate) }
        let feed = graph.run(after: token) { _ in Call("feed", feedGate) }
        let home = graph.send(after: profile, feed) { profile, feed in Note("home \(profile) \(feed)") }
        graph.setOwnerEndPolicy(.finish, for: profile)
        let run = owner.dispatch(graph)
        try await withDeadline(10, "both calls in flight") {
            await profileGate.arrivals(1)
            await feedGate.arrivals(1)
        }

        owner.end()

        #expect(run.report[feed].outcome == .cancelled, "the call in flight ends at once")
        #expect(run.report[home].outcome == .cancelled, "the screen's own sync node is dropped")
        #expect(run.report[home].start == nil && run.report[home].attempts == 0, "it never started, as after a cancel")
        #expect(run.report[profile].outcome == nil, "the profile's call goes on")
        profileGate.open()
        let value = try await withDeadline { try await run.value(of: profile) }
        #expect(value == "profile", "its answer is kept for whoever still wants it")
        let report = try await withDeadline { await run.wait() }
        #expect(report[token].outcome == .succeeded)
        #expect(store.state.applied.isEmpty)
        #expect(run.isEndedByOwner)
    }

    @Test(
        "closing the log-in screen while its kept call runs: the screen's sign-in is dropped, and its cancel action is applied once that call ended, last"
    )
    func theCancelActionFollowsWhatOutlivesTheScreen() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Log-in screen")
        let logInGate = Gate()
        var graph = Graph()
        let spinnerOn = graph.send(Note("spinner on"))
        let logIn = graph.run(after: spinnerOn) { _ in Call("session", logInGate) }
        let signedIn = graph.send(after: logIn) { session in Note("signed in: \(session)") }
        graph.setOwnerEndPolicy(.finish, for: logIn)  // the session is worth keeping
        graph.setCancelAction(Note("spinner off"))
        let run = owner.dispatch(graph)
        try await withDeadline(10, "the log-in in flight") { await logInGate.arrivals(1) }

        owner.end()

        #expect(run.report[signedIn].outcome == .cancelled, "the screen's own sync node is dropped")
        #expect(store.state.applied == ["spinner on"], "nothing more while the kept call runs")
        logInGate.open()
        let report = try await withDeadline { await run.wait() }
        #expect(report[logIn].outcome == .succeeded)
        #expect(store.state.applied == ["spinner on", "spinner off"], "the cancel action, once, last")
        #expect(run.isEndedByOwner)
    }

    @Test("closing the composer after the post was sent: the post finishes and the list learns of it")
    func postOutlivesTheComposer() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Composer")
        let (postGate, draftGate) = (Gate(), Gate())
        var graph = Graph()
        let post = graph.run(Call("post", postGate))
        graph.send(after: post) { sent in Note("post appeared: \(sent)") }
        graph.send(after: post) { _ in Note("composer spinner off") }
        let draft = graph.run(Call("draft", draftGate))
        let draftSaved = graph.send(after: draft) { _ in Note("draft saved") }
        graph.setOwnerEndPolicy(.finishWithDependents, for: post)
        let run = owner.dispatch(graph)
        try await withDeadline(10, "both calls in flight") {
            await postGate.arrivals(1)
            await draftGate.arrivals(1)
        }

        owner.end()
        postGate.open()
        draftGate.open()

        let report = try await withDeadline { await run.wait() }
        #expect(store.state.applied == ["post appeared: post", "composer spinner off"], "in the usual order")
        #expect(report[draft].outcome == .cancelled && report[draftSaved].outcome == .cancelled)
    }

    @Test(
        "closing a screen while a call that ignores cancellation runs: a cancelled call's own dispatches are dropped, a finishing call's applied",
        arguments: [OwnerEndPolicy.cancel, .finish])
    func aCancelledCallsContextIsClosed(_ policy: OwnerEndPolicy) async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Search screen")
        let answer = GraphStories.Latch()
        let call = GraphStories.StubbornCall<AppState>(answer: answer, note: Note("said the call"))
        var graph = Graph()
        let node = graph.run(call)
        graph.setOwnerEndPolicy(policy, for: node)
        let run = owner.dispatch(graph)
        try await withDeadline(10, "the call to start") { await call.started.wait() }

        owner.end()
        answer.open()
        try await withDeadline(10, "the call to dispatch") { await call.finished.wait() }

        #expect(store.state.applied == (policy == .cancel ? [] : ["said the call"]))
        _ = try await withDeadline(10, "the run") { await run.wait() }
    }

    @Test("work dispatched to an ended owner is refused, never run, and the store says why")
    func dispatchAfterEndIsRefused() async throws {
        let diagnostics = OwnerStories.Recorder<StoreDiagnostic>()
        let store = OwnerStories.makeStore(diagnostics: diagnostics)
        let owner = store.makeOwner("Settings")
        owner.end()
        #expect(owner.isEnded)

        var graph = Graph()
        let note = graph.send(Note("should not apply"))
        let run = owner.dispatch(graph)
        #expect(run.isFinished && run.report[note].outcome == .cancelled)
        let task = owner.dispatch(OwnerStories.Quick<AppState>(name: "late"))
        await #expect(throws: CancellationError.self) {
            try await withDeadline(10, "the late action") { try await task.value }
        }

        #expect(store.state.applied.isEmpty)
        #expect(diagnostics.all.map(\.kind) == [.dispatchRefusedByOwner, .dispatchRefusedByOwner])
        #expect(diagnostics.all.allSatisfy { $0.message.contains("\"Settings\"") })
    }

    @Test("a durable graph on an owner is refused with a clear error: durable runs belong to the app")
    func durableGraphIsRefused() async throws {
        let diagnostics = OwnerStories.Recorder<StoreDiagnostic>()
        let store = OwnerStories.makeStore(diagnostics: diagnostics)
        let owner = store.makeOwner("Checkout")
        var graph = Graph()
        let pay = graph.run(OwnerStories.Quick<AppState>(name: "pay"))
        graph.setDurable(pay, inDoubt: .failInDoubt)
        let run = owner.dispatch(graph)
        #expect(run.isFinished && run.report[pay].outcome == .cancelled)
        #expect(diagnostics.all.map(\.kind) == [.dispatchRefusedByOwner])
        #expect(diagnostics.all.first?.message.contains("durable") == true)
        #expect(!owner.isEnded, "the owner itself goes on")
    }

    @Test("ended in a middleware while a sync node is applied: it completes, what depends on it is cancelled")
    func endedWhileASyncNodeIsApplied() async throws {
        let holder = LockedValue<WorkOwner<AppState>?>(nil)
        let store = OwnerStories.makeStore(onAction: { action in
            if (action as? Note)?.text == "first" { holder.withLock { $0 }?.end() }
        })
        let owner = store.makeOwner("Screen")
        holder.withLock { $0 = owner }
        let gate = Gate()
        var graph = Graph()
        let first = graph.send(Note("first"))
        let second = graph.send(Note("second"), after: first)
        let kept = graph.run(Call("kept", gate))
        graph.setOwnerEndPolicy(.finish, for: kept)
        let run = owner.dispatch(graph)
        gate.open()
        let report = try await withDeadline { await run.wait() }
        #expect(store.state.applied == ["first"])
        #expect(report[first].outcome == .succeeded && report[second].outcome == .cancelled)
        #expect(report[kept].outcome == .succeeded)
        holder.withLock { $0 = nil }
    }

    @Test("ended in a subscriber after a sync node's commit: the next node never applies")
    func endedInASubscriber() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Screen")
        let subscription = store.subscribe { state in
            if state.applied.last == "first" { owner.end() }
        }
        var graph = Graph()
        let first = graph.send(Note("first"))
        let second = graph.send(Note("second"), after: first)
        let run = owner.dispatch(graph)
        let report = try await withDeadline { await run.wait() }
        #expect(store.state.applied == ["first"])
        #expect(report[second].outcome == .cancelled)
        subscription.cancel()
    }

    @Test("ended between an async node's end and the sync node it released: that node never applies")
    func endedBetweenAsyncEndAndApply() async throws {
        let (entered, hold) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let store = OwnerStories.makeStore(onAction: { action in
            guard (action as? Note)?.text == "hold" else { return }
            entered.signal()
            hold.wait()
        })
        async let held: Void = onThread { store.dispatch(Note("hold")) }
        // Another thread now applies actions, and holds the pipeline.
        try await withDeadline(10, "the held dispatch to enter") { await onThread { entered.wait() } }
        let owner = store.makeOwner("Screen")
        var graph = Graph()
        let answer = graph.run(OwnerStories.Quick<AppState>(name: "answer"))
        let show = graph.send(after: answer) { answer in Note("show \(answer)") }
        let run = owner.dispatch(graph)
        try await withDeadline(10, "the async node ends; its sync node waits behind the held pipeline") {
            while run.report[answer].outcome == nil { await Task.yield() }
        }

        owner.end()
        hold.signal()
        await held

        let report = try await withDeadline { await run.wait() }
        #expect(report[show].outcome == .cancelled)
        #expect(store.state.applied == ["hold"])
    }

    @Test("ended before the run's first node: a kept node runs alone")
    func endedBeforeTheFirstNode() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Screen")
        let gate = Gate()
        var graph = Graph()
        let call = graph.run(Call("kept", gate))
        let after = graph.send(after: call) { Note("after \($0)") }
        graph.setOwnerEndPolicy(.finish, for: call)
        let run = owner.dispatch(graph)
        owner.end()
        gate.open()
        let report = try await withDeadline { await run.wait() }
        #expect(report[call].outcome == .succeeded && report[after].outcome == .cancelled)
        #expect(store.state.applied.isEmpty)
    }

    @Test("ended after the run finished: nothing changes")
    func endedAfterTheRunFinished() async throws {
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Screen")
        var graph = Graph()
        let note = graph.send(Note("done"))
        let run = owner.dispatch(graph)
        _ = try await withDeadline { await run.wait() }
        owner.end()
        #expect(run.report[note].outcome == .succeeded)
        #expect(!run.isEndedByOwner)
        #expect(store.state.applied == ["done"])
    }

    @Test("releasing the owner ends its work")
    func releasingTheOwnerEndsItsWork() async throws {
        let store = OwnerStories.makeStore()
        let gate = Gate()
        var owner: WorkOwner<AppState>? = store.makeOwner("Screen")
        var graph = Graph()
        let call = graph.run(Call("call", gate))
        let run = owner!.dispatch(graph)
        try await withDeadline { await gate.arrivals(1) }
        owner = nil
        #expect(run.report[call].outcome == .cancelled)
        _ = try await withDeadline { await run.wait() }
    }

    @Test("an async action of the owner is cancelled with it, and what it dispatches after is dropped")
    func asyncActionEndsWithItsOwner() async throws {
        struct Stubborn: AsyncAction {
            let gate: Gate
            func run(_ context: ActionContext<AppState>) async throws -> String {
                try? await gate.pass()  // ignores its cancellation
                context.dispatch(Note("late"))
                return "stubborn"
            }
        }
        let store = OwnerStories.makeStore()
        let owner = store.makeOwner("Screen")
        let gate = Gate()
        let task = owner.dispatch(Stubborn(gate: gate))
        try await withDeadline { await gate.arrivals(1) }
        owner.end()
        let value = try await withDeadline { try await task.value }
        #expect(value == "stubborn")
        #expect(store.state.applied.isEmpty, "nothing it dispatches after the end reaches the state")
    }

    @Test("a presented child set to nil ends its work at that commit, with no cancel(id:) in the app")
    func presentedChildSetToNil() async throws {
        let store = OwnerStories.makeStore()
        store.dispatch(OwnerStories.OpenGame())
        let game = store.scope(\.game)
        let owner = game.makeOwner("Game")
        let gate = Gate()
        var graph = ActionGraph<OwnerStories.GameState?>()
        let level = graph.run(OwnerStories.Call<OwnerStories.GameState?>("level 1", gate))
        let loaded = graph.send(after: level) { OwnerStories.GameLoaded(level: $0) }
        let run = owner.dispatch(graph)
        try await withDeadline { await gate.arrivals(1) }

        store.dispatch(OwnerStories.CloseGame())

        #expect(owner.isEnded, "decided at the commit that made it nil")
        #expect(run.report[level].outcome == .cancelled && run.report[loaded].outcome == .cancelled)
        gate.open()
        _ = try await withDeadline { await run.wait() }
        #expect(store.state.applied == ["OpenGame()", "CloseGame()"])
    }

    @Test("an owner made for a child that is not presented has ended already")
    func ownerOfAnAbsentChild() {
        let store = OwnerStories.makeStore()
        let owner = store.scope(\.game).makeOwner("Game")
        #expect(owner.isEnded)
        let notOptional = store.scope(\.applied).makeOwner("Log")
        #expect(!notOptional.isEnded)
    }

    @Test("a task cancelled while it awaits a run cancels the run, when it asks to")
    func structuredWaitingCancelsTheRun() async throws {
        let store = OwnerStories.makeStore()
        let gate = Gate()
        var graph = Graph()
        let call = graph.run(Call("call", gate))
        let run = store.dispatch(graph)
        let waiter = Task { await run.wait(cancelsOnTaskCancel: true) }
        try await withDeadline { await gate.arrivals(1) }
        waiter.cancel()
        let report = try await withDeadline { await waiter.value }
        #expect(report[call].outcome == .cancelled)

        let other = Gate()
        let task = store.dispatch(Call("action", other))
        let actionWaiter = Task { try await task.value(cancelsOnTaskCancel: true) }
        try await withDeadline { await other.arrivals(1) }
        actionWaiter.cancel()
        await #expect(throws: CancellationError.self) {
            try await withDeadline(10, "the action's waiter") { try await actionWaiter.value }
        }
    }

    @Test("a task cancelled while it awaits a run leaves the run alone unless it asks")
    func plainWaitingLeavesTheRun() async throws {
        let store = OwnerStories.makeStore()
        let gate = Gate()
        var graph = Graph()
        let call = graph.run(Call("call", gate))
        let run = store.dispatch(graph)
        let waiter = Task { try await run.value(of: call, cancelsOnTaskCancel: false) }
        try await withDeadline { await gate.arrivals(1) }
        waiter.cancel()
        gate.open()
        let value = try await withDeadline { try await waiter.value }
        #expect(value == "call")
    }
}

/// The run's events say why a node was cancelled.
@Suite("Work that belongs to a screen: run events")
struct WorkOwnerEventTests {
    typealias AppState = OwnerStories.AppState

    /// A store whose events `events` records, and an owner of its work named "Screen".
    static func observedStore() -> (Store<AppState>, WorkOwner<AppState>, OwnerStories.Recorder<StoreEvent>) {
        let events = OwnerStories.Recorder<StoreEvent>()
        var options = StoreOptions()
        options.onEvent = { events.record($0) }
        let store = Store(initialState: AppState(), reducer: OwnerStories.reducer, options: options)
        return (store, store.makeOwner("Screen"), events)
    }

    @Test("a run's events name the owner it was dispatched under; a store's run has none")
    func eventsNameTheOwner() async throws {
        let (store, owner, events) = Self.observedStore()
        var graph = ActionGraph<AppState>()
        graph.send(OwnerStories.Note("shown"))
        let (owned, plain) = (owner.dispatch(graph), store.dispatch(graph))
        _ = try await withDeadline { await owned.wait() }
        _ = try await withDeadline { await plain.wait() }
        let owners = try await withDeadline {
            while true {
                let finished = events.all.compactMap { event -> String?? in
                    if case .runFinished(let run, _) = event { run.owner } else { nil }
                }
                if finished.count == 2 { return finished }
                await Task.yield()
            }
        }
        #expect(Set(owners.map { $0 ?? "none" }) == ["Screen", "none"])
    }

    @Test("a node cancelled by its owner's end says so in its event")
    func eventsGiveTheReason() async throws {
        let (_, owner, events) = Self.observedStore()
        let gate = OwnerStories.Gate()
        var graph = ActionGraph<AppState>()
        graph.run(OwnerStories.Call<AppState>("feed", gate))
        let run = owner.dispatch(graph)
        try await withDeadline { await gate.arrivals(1) }
        owner.end()
        _ = try await withDeadline { await run.wait() }
        let finished = try await withDeadline {
            while true {
                let found = events.all.compactMap { event -> StoreEvent.NodeInfo? in
                    if case .nodeFinished(_, let node) = event { node } else { nil }
                }
                if let node = found.first { return node }
                await Task.yield()
            }
        }
        #expect(finished.isCancelledByOwnerEnd)
        #expect(
            StoreEvent.nodeFinished(
                events.all.compactMap { if case .runStarted(let info) = $0 { info } else { nil } }.first!, finished
            ).description.hasSuffix("cancelled because its owner ended"))
    }
}
