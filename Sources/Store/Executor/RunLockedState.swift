/// What a ``GraphRun`` keeps behind its lock: its machine, its observers, and the tasks and
/// continuations the machine knows by number.
// Not nested in the generic `GraphRun`: a nested type would be generic too, and unspecialized code
// would look up its metadata on every event.
struct RunLockedState {
    var machine: RunStateMachine
    /// The store's count of its work, when it keeps one (a test store's).
    let counter: WorkCounter?
    /// When the run was created, on the store's clock.
    let createdAt: Duration
    /// Those who observe the run (the durable journal, the event recorder); set before its first event.
    var observers: [any RunObserver] = []
    var registration: UInt64?
    /// The continuations of `outcome(of:)` and `wait()`, with the number the machine knows each by.
    var waiters = NumberedWaiters()
    var nextWaiter: RunStateMachine.Waiter = 0
    /// The task of each async node in flight, by node; empty until the first one starts (then one
    /// slot per node: one allocation for the run, and no hashing).
    var tasks: [Task<Void, Never>?] = []
    /// While the run's sync work waits for or is in the pipeline, the unit that counts it as
    /// running work of a store that counts its work (see `WorkCounter`).
    var scheduledUnit: WorkCounter.Unit? = nil

    /// Feeds the machine one event, shows its steps to the observers (in the machine's order,
    /// since the run's lock is held), and takes out of the tables the tasks the steps name (the
    /// waiters they resume are taken as they resume: see ``ResumedWaiters``).
    ///
    /// - Parameter finishedTask: the async node whose task reports its end in `event`, if any.
    mutating func handle(
        _ event: consuming RunEvent, insidePipeline: Bool = false, finishedTask: Int? = nil
    ) -> StepsToPerform {
        let steps = observe(event, insidePipeline: insidePipeline)
        if let node = finishedTask { handOn(from: node, to: steps.handedOn) }
        // `steps` last: every other argument reads it, and then it moves instead of being copied.
        return StepsToPerform(
            tasks: takeTasks(of: steps.cancelWorkers),
            registration: steps.finished ? registration : nil,
            observers: steps.syncStep == nil || observers.isEmpty ? [] : observers, steps: steps)
    }

    /// Feeds the machine one event and shows its steps to the observers; for an event whose steps
    /// name no task, waiter or registration (an attempt's start).
    mutating func observe(_ event: consuming RunEvent, insidePipeline: Bool = false) -> RunSteps {
        let wasScheduled = machine.isScheduled
        let steps = machine.handle(event, insidePipeline: insidePipeline)
        if machine.isScheduled != wasScheduled { countScheduling() }
        if !observers.isEmpty { observers.observe(steps, of: machine) }
        return steps
    }

    /// The tasks of `nodes`, taken out of the table.
    @inline(__always)
    private mutating func takeTasks(of nodes: [Int]) -> [Task<Void, Never>] {
        guard !nodes.isEmpty, !tasks.isEmpty else { return [] }
        var taken: [Task<Void, Never>] = []
        for node in nodes { if let task = tasks[node].take() { taken.append(task) } }
        return taken
    }

    /// Feeds the machine a wait (`event`, given the waiter's number); keeps the continuation until
    /// a step resumes it, unless the steps resume it at once (``RunStep/resumeCaller(behindEvents:)``).
    mutating func wait(
        _ waiter: ParkedWaiter, _ event: (RunStateMachine.Waiter) -> RunEvent
    ) -> StepsToPerform {
        nextWaiter += 1
        let performable = handle(event(nextWaiter))
        if !performable.steps.resumesCaller { waiters.append(waiter, number: nextWaiter) }
        return performable
    }

    /// The run's report, when a wait for its end would be resumed at once, behind nothing: the run
    /// finished, holds no waiter until the pipeline's exit, and is not observed (an observed run
    /// resumes its waiters behind its events). `nil` otherwise.
    func reportIfWaitReturnsAtOnce(_ storage: GraphStorage) -> GraphReport? {
        guard machine.isFinished, !machine.holdsWaitersForPipelineExit, !machine.isObserved else { return nil }
        return machine.report(shape: GraphShape(storage))
    }

    /// Whether the shell holds the handle of `node`'s task: only then may the task run a node its
    /// end releases (a task that outran `startTask` has no handle yet, and a handle stored late
    /// must not be taken for the next node's).
    func holdsTask(of node: Int) -> Bool {
        !tasks.isEmpty && tasks[node] != nil
    }

    /// After `node`'s task ended it: moves the task's handle to `next`, the node the machine handed
    /// on to the same task, so that `cancel()` reaches whichever node the task runs; drops it
    /// when nothing was handed on.
    private mutating func handOn(from node: Int, to next: Int?) {
        guard !tasks.isEmpty, let task = tasks[node].take(), let next else { return }
        tasks[next] = task
    }

    /// Counts the run's sync work as running work of the store from the moment the machine asks
    /// for the pipeline until it says the run is idle: while it waits for the pipeline behind
    /// another thread's actions, no task of the run may run, yet the store is not quiet.
    private mutating func countScheduling() {
        guard let counter else { return }
        if machine.isScheduled {
            scheduledUnit = counter.begin("ready sync nodes of a run, waiting for the pipeline", isTask: false)
        } else {
            scheduledUnit.take()?.end()
        }
    }
}

extension RunLockedState {
    /// The state of a run of the graph whose nodes `graph` holds, created at `createdAt`; a durable
    /// run's `journal` observes it.
    // In an extension, to build the state with the memberwise initializer: one written field by
    // field builds it aside, then copies it out and destroys the first.
    init(graph: GraphStorage, counter: WorkCounter?, createdAt: Duration, journal: DurableRunJournal?) {
        self.init(
            machine: RunStateMachine(graph: graph), counter: counter, createdAt: createdAt,
            observers: journal.map { [$0] } ?? [])
    }
}

extension LockedValue<RunLockedState> {
    /// Right before an attempt of `node` calls its action: the attempt's numbers, or `nil` when
    /// the node may no longer run (the run was cancelled), in which case no attempt starts.
    /// (`host` delivers an observed run's events; `sinceCreation` is the store's time since its
    /// creation.)
    func startAttempt(of node: Int, host: any RunHost, sinceCreation: () -> Duration) -> AttemptStart? {
        // An unobserved run's attempt starts in the locked section that finds the run unobserved:
        // its event shows no time. An observed run's shows when it starts, read from the store's
        // clock with no lock held (the clock may be the app's); then its events are delivered.
        var isObserved = false
        let unobservedStart = withLock { state in
            isObserved = state.machine.isObserved
            return isObserved ? nil : state.startAttempt(of: node, now: nil)
        }
        guard isObserved else { return unobservedStart }
        let now = sinceCreation()
        let start = withLock { $0.startAttempt(of: node, now: now - $0.createdAt) }
        host.deliverEvents()
        return start
    }
}

extension RunLockedState {
    /// Feeds the machine the start of an attempt of `node` (`now`, when the run is observed: its
    /// event shows the time) and shows its steps to the observers: the attempt's numbers, or `nil`
    /// when the node may no longer run. The event's other step, the events' delivery, is an
    /// observed run's only.
    mutating func startAttempt(of node: Int, now: Duration?) -> AttemptStart? {
        // With no observer and no time, the event changes nothing but the node's count of
        // attempts: its steps would be built only to be dropped.
        guard !observers.isEmpty || now != nil else { return machine.attemptStarting(node) }
        return observe(.attemptStarting(node: node, now: now)).attemptStarted
    }
}

/// The continuations a run holds, each with the number the machine knows it by, in the order they
/// parked: numbers are handed out in increasing order, so the list is sorted by number. A run holds
/// few at once, and a sorted list needs no hashing; most hold one at a time (their `wait()`), kept
/// inline, so that a run's one waiter needs no allocation.
struct NumberedWaiters {
    typealias Entry = (number: RunStateMachine.Waiter, waiter: ParkedWaiter)

    private enum Storage {
        case none
        case one(Entry)
        case many([Entry])
    }

    private var storage = Storage.none

    mutating func append(_ waiter: ParkedWaiter, number: RunStateMachine.Waiter) {
        switch storage {
        case .none: storage = .one((number, waiter))
        case .one(let first): storage = .many([first, (number, waiter)])
        case .many(var list):
            storage = .none  // the list's one reference: appended in place
            list.append((number, waiter))
            storage = .many(list)
        }
    }

    /// The continuations numbered `numbers` that the list holds, in that order, taken out of it.
    mutating func take(_ numbers: SmallList<RunStateMachine.Waiter>) -> [ParkedWaiter] {
        switch storage {
        case .none:
            return []
        case .one(let entry):
            guard numbers.contains(entry.number) else { return [] }
            storage = .none
            return [entry.waiter]
        case .many(var list):
            storage = .none
            let taken = Self.take(numbers, from: &list)
            if !list.isEmpty { storage = .many(list) }
            return taken
        }
    }

    /// The continuation numbered `number`, if the list holds it, taken out of it.
    mutating func take(_ number: RunStateMachine.Waiter) -> ParkedWaiter? {
        switch storage {
        case .none:
            return nil
        case .one(let entry):
            guard entry.number == number else { return nil }
            storage = .none
            return entry.waiter
        case .many(var list):
            storage = .none
            defer { if !list.isEmpty { storage = .many(list) } }
            return Self.place(of: number, in: list).map { list.remove(at: $0).waiter }
        }
    }

    private static func take(_ numbers: SmallList<RunStateMachine.Waiter>, from list: inout [Entry]) -> [ParkedWaiter] {
        if numbers.count == 1 {
            guard let place = place(of: numbers[0], in: list) else { return [] }
            return [list.remove(at: place).waiter]
        }
        // Each found, then all removed from the back, so that taking every waiter (a finished
        // run's) moves none of the others.
        var found: [(place: Int, order: Int)] = []
        for (order, number) in numbers.enumerated() {
            if let place = place(of: number, in: list) { found.append((place, order)) }
        }
        var taken = [ParkedWaiter?](repeating: nil, count: numbers.count)
        for (place, order) in found.sorted(by: { $0.place > $1.place }) {
            taken[order] = list.remove(at: place).waiter
        }
        return taken.compactMap { $0 }
    }

    /// Where the waiter numbered `number` is in the sorted `list`, if it is there.
    private static func place(of number: RunStateMachine.Waiter, in list: [Entry]) -> Int? {
        var (low, high) = (0, list.count)
        while low < high {
            let middle = (low + high) / 2
            if list[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low < list.count && list[low].number == number ? low : nil
    }
}

/// An event's steps, with the tasks and observers they name, taken out under the run's lock.
struct StepsToPerform {
    /// The tasks of ``RunStep/cancelTasks``.
    let tasks: [Task<Void, Never>]
    /// The run's place in the store's registry, when the run finished.
    let registration: UInt64?
    /// The observers around the application of the sync item a step names (none otherwise).
    let observers: [any RunObserver]
    let steps: RunSteps
}

/// The budget of one async node's attempts, kept by its run's machine: asked before each attempt
/// (which the run's observers see start) and after each failed one.
struct RunAttempts: AttemptBudget {
    let state: LockedValue<RunLockedState>
    let node: Int
    let host: any RunHost
    /// The store's time since its creation (with the run's creation, the run's time), for the start
    /// of an attempt that an observed run's event shows.
    let sinceCreation: @Sendable () -> Duration

    // Never inlined into the attempts' async loop: its locals would join the frame the task keeps
    // while each attempt runs.
    @inline(never)
    func startAttempt() -> AttemptStart? {
        state.startAttempt(of: node, host: host, sinceCreation: sinceCreation)
    }

    @inline(never)
    func mayRetry(maxAttempts: Int) -> Bool {
        state.withLock { $0.machine.mayRetry(node, maxAttempts: maxAttempts) }
    }
}
