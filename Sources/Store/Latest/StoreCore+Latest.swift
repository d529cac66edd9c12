extension StoreCore {
    /// Starts `action` under `id` according to `policy` (see `Store.dispatch(_:id:policy:)`), with
    /// the context `makeContext` makes around the dispatch's gate (this store's, or a scope's). An
    /// owner's dispatch gives that gate (`gate`), and `onEnd`, called as `startAsync(_:context:onEnd:)`
    /// calls it.
    func startAsync<A: AsyncAction>(
        _ action: A, id: WorkID, policy: InFlightPolicy, gate: CancellationGate? = nil,
        onEnd: (@Sendable () -> Void)? = nil, makeContext: (CancellationGate) -> ActionContext<A.State>
    ) -> ActionTask<A.Response> {
        if refusesDispatchFromPureCode("\(A.self)", "it was not started") {
            onEnd?()
            return ActionTask(.failed(StoreError.dispatchedFromReducer))
        }
        let gate = gate ?? CancellationGate()
        // Waiting for the state lock once after closing the gate: a dispatch of the replaced work
        // being reduced right now ends first, and none can pass the gate later.
        let cancel: @Sendable () -> Void = { [weak self] in
            gate.cancel()
            self?.stateLock.withLock {}
        }
        let (token, delay) = latest.enter(id, policy: policy, cancel: cancel)
        guard let registration = register(cancel: cancel) else {
            latest.end(id, token: token)
            report(.dispatchAfterRelease, "\(A.self) was dispatched after its store was released; it was not started.")
            onEnd?()
            return ActionTask(.failed(StoreError.storeReleased))
        }
        let context = makeContext(gate)
        let clock = options.clock
        let unit = options.workCounter.begin("async action \(A.self) (id \(id))")
        let end = unit.map { _ in TaskEnd() }
        let task = Task<A.Response, any Error> {
            try await WorkCounter.run(unit) {
                defer { onEnd?() }
                return try await self.performLatest(
                    action, id: id, token: token, delay: delay, context: context, clock: clock, end: end,
                    registration: registration)
            }
        }
        gate.attach(task)
        return ActionTask(.task(task, end: end))
    }

    /// The body of an async action dispatched under `id`: its wait, then its call.
    private func performLatest<A: AsyncAction>(
        _ action: A, id: WorkID, token: UInt64, delay: Duration?, context: ActionContext<A.State>,
        clock: any Clock<Duration>, end: TaskEnd?, registration: UInt64
    ) async throws -> A.Response {
        defer {
            self.latest.end(id, token: token)
            self.unregister(registration)
            end?.finish(wasCancelled: Task.isCancelled)
        }
        if let delay {
            try await clock.sleep(for: delay)
            guard self.latest.begin(id, token: token) else { throw CancellationError() }
        }
        try Task.checkCancellation()
        if action is any KeyedAsyncAction {
            // A keyed call is shared with other dispatches: join it, and withdraw when cancelled.
            let shared = self.startAsync(action, context: context)
            return try await withTaskCancellationHandler {
                try await shared.value
            } onCancel: {
                shared.cancel()
            }
        }
        // Announced here, not at dispatch: work debounced away never started.
        guard self.hasEventObservers else { return try await self.perform(action, context: context) }
        let observed = self.announceStart(of: action)
        return try await self.performObserved(action, context: context, observed).get()
    }

    /// Starts `graph` under `id` according to `policy` (see `Store.dispatch(_:id:policy:)`), as
    /// `owner`'s work when given (adopted before it waits or starts, or refused).
    func startGraph<S: Sendable>(
        _ graph: ActionGraph<S>, backend: any StoreBackend<S>, id: WorkID, policy: InFlightPolicy,
        owner: OwnerCore? = nil
    ) -> GraphRun<S> {
        // Reported and cancelled there.
        if PureCall.current != nil { return startGraph(graph, backend: backend, owner: owner) }
        let run = GraphRun(host: self, backend: backend, storage: graph.storage, time: runTime, owner: owner?.name)
        if refusesForOwner(run, owner) { return run }
        let waiting = CancellationGate()
        let cancel: @Sendable () -> Void = {
            waiting.cancel()
            run.cancel()
        }
        let (token, delay) = latest.enter(id, policy: policy, cancel: cancel)
        Task {
            await run.wait()
            self.latest.end(id, token: token)
        }
        guard let delay else {
            run.start()
            return run
        }
        guard let registration = register(cancel: cancel) else {
            run.start()  // reports the release and cancels the run
            return run
        }
        let clock = options.clock
        let unit = options.workCounter.begin("a graph dispatched under id \(id), waiting for its delay")
        waiting.attach(
            Task {
                await WorkCounter.run(unit) {
                    await self.startAfterDelay(run, delay: delay, id: id, token: token, clock: clock)
                }
                self.unregister(registration)
            })
        return run
    }

    /// Starts a run dispatched with a debounce or throttle once its wait is over and it was not
    /// replaced meanwhile; cancels it otherwise.
    private func startAfterDelay<S: Sendable>(
        _ run: GraphRun<S>, delay: Duration, id: WorkID, token: UInt64, clock: any Clock<Duration>
    ) async {
        do { try await clock.sleep(for: delay) } catch {
            run.cancel()
            return
        }
        guard self.latest.begin(id, token: token), !Task.isCancelled else {
            run.cancel()
            return
        }
        run.start()
    }

    /// Cancels the work dispatched under `id`, waiting or running.
    func cancelWork(id: WorkID) {
        latest.cancel(id)
    }
}
