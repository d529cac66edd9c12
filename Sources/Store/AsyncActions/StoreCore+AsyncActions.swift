extension StoreCore {
    /// Starts `action` in this store with `context` (this store's, or a scope's of it). `onEnd` is
    /// called inside the action's task once its body has ended, or at once when it is not started;
    /// a call shared by a ``KeyedAsyncAction``'s dispatches never calls it.
    func startAsync<A: AsyncAction>(
        _ action: A, context: ActionContext<A.State>, onEnd: (@Sendable () -> Void)? = nil
    ) -> ActionTask<A.Response> {
        if refusesDispatchFromPureCode("\(A.self)", "it was not started") {
            onEnd?()
            return ActionTask(.failed(StoreError.dispatchedFromReducer))
        }
        if let keyed = KeyedActionCheck(A.self).keyed(action) {
            let key = SharedCallKey(actionType: ObjectIdentifier(A.self), key: AnyHashable(keyed.key))
            return dispatchShared(action, key: key, context: context)
        }
        // Register before the task exists, so that a store already released never calls `run`.
        let cancellation = CancellationGate()
        guard let (id, isObserved) = registerObserved(cancel: { cancellation.cancel() }) else {
            report(.dispatchAfterRelease, "\(A.self) was dispatched after its store was released; it was not started.")
            onEnd?()
            return ActionTask(.failed(StoreError.storeReleased))
        }
        let observed = isObserved ? announceStart(of: action) : nil
        let unit = options.workCounter.begin("async action \(A.self)")
        let end = unit.map { _ in TaskEnd() }
        let task = Task<A.Response, any Error> {
            try await WorkCounter.run(unit) {
                defer {
                    let wasCancelled = Task.isCancelled  // before `onEnd` lets an owner forget the task
                    self.unregister(id)
                    onEnd?()
                    end?.finish(wasCancelled: wasCancelled)
                }
                guard let observed else { return try await self.perform(action, context: context) }
                return try await self.performObserved(action, context: context, observed).get()
            }
        }
        cancellation.attach(task)
        return ActionTask(.task(task, end: end))
    }

    /// Joins the call in flight under `key`, or starts it.
    func dispatchShared<A: AsyncAction>(
        _ action: A, key: SharedCallKey, context: ActionContext<A.State>
    ) -> ActionTask<A.Response> {
        var ticket: UInt64 = 0
        guard
            let (call, isNew) = sharedCall(
                for: key,
                join: { (call: SharedCall<A.Response>) in
                    guard let joined = call.join(gate: context.gate) else { return false }
                    ticket = joined
                    return true
                },
                start: {
                    let call = SharedCall<A.Response>()
                    ticket = call.join(gate: context.gate)!
                    return call
                })
        else {
            return ActionTask(.failed(StoreError.storeReleased))
        }
        if isNew {
            // The call's context is every joiner's: closed only once all of theirs are.
            let context = ActionContext(
                backend: context.core, gate: .sharedCall(call.joiners), idempotencyKey: context.idempotencyKey)
            let observed = hasEventObservers ? announceStart(of: action) : nil
            let unit = options.workCounter.begin("the shared call of \(A.self) (key \(key.key))")
            call.attach(
                Task {
                    await WorkCounter.run(unit) { await self.performShared(action, key: key, call, context, observed) }
                })
        }
        return ActionTask(.shared(call, ticket: ticket))
    }

    /// Runs a shared call, then leaves the registry and answers every dispatch that joined it.
    private func performShared<A: AsyncAction>(
        _ action: A, key: SharedCallKey, _ call: SharedCall<A.Response>, _ context: ActionContext<A.State>,
        _ observed: StoreEvent.AsyncActionInfo?
    ) async {
        let result: Result<A.Response, any Error>
        if let observed {
            result = await self.performObserved(action, context: context, observed)
        } else {
            do { result = .success(try await self.perform(action, context: context)) } catch {
                result = .failure(error)
            }
        }
        // Leave the registry first, so a dispatch from here on starts a fresh call.
        self.removeSharedCall(key, ifItIs: call)
        call.finish(result)
    }

    // MARK: Events of an observed store

    /// Records that `action` starts (the store is observed): its identity for the finish.
    func announceStart<A: AsyncAction>(of action: A) -> StoreEvent.AsyncActionInfo {
        let info = StoreEvent.AsyncActionInfo(id: events.nextID(), action: action)
        events.enqueue([.event(.actionStarted(info))])
        deliverEvents()
        return info
    }

    /// Runs `action`, then records how it ended and returns once that was delivered, so that its
    /// `ActionTask.value` returns after the observers heard of it. An error thrown after the task was
    /// cancelled reports `.cancelled`.
    func performObserved<A: AsyncAction>(
        _ action: A, context: ActionContext<A.State>, _ info: StoreEvent.AsyncActionInfo
    ) async -> Result<A.Response, any Error> {
        let result: Result<A.Response, any Error>
        do { result = .success(try await perform(action, context: context)) } catch { result = .failure(error) }
        let outcome: Outcome<any Sendable> =
            switch result {
            case .success(let response): .succeeded(response)
            case .failure(let error): Task.isCancelled ? .cancelled : .failed(error)
            }
        await deliver(.actionFinished(info, outcome))
        return result
    }

    // MARK: Every call of an async action's `run`

    var interceptor: (any AsyncActionInterceptor)? { options.interceptor }

    /// Runs one attempt of `action`: its own `run`, or the test store's stub.
    func perform<A: AsyncAction>(_ action: A, context: ActionContext<A.State>) async throws -> A.Response {
        try await performAttempt(of: action, context: context, interceptor: options.interceptor)
    }
}

/// Runs one attempt of `action`: its own `run`, or, in a test store, its `interceptor`'s stub.
/// Always inlined: the task keeps a frame for every async call between its loop and `run`.
@inline(__always)
func performAttempt<A: AsyncAction>(
    of action: A, context: ActionContext<A.State>, interceptor: (any AsyncActionInterceptor)?
) async throws -> A.Response {
    if let interceptor {
        return try await interceptor.perform(action, context: context)
    }
    return try await action.run(context)
}
