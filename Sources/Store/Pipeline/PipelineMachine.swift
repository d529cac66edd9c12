/// Who applies a store's sync work, and in what order: the decisions of the store's one pipeline
/// (middleware, reducer, subscribers), as a value with no locks, no threads and no user code.
///
/// One thread at a time is the *applier*. Work arrives three ways:
/// - **A dispatch** (an action, or a subscriber's first call). From the applier itself (a
///   subscriber or middleware dispatched) it is a *follow-up*: applied right after the current
///   action. From another thread it waits until the pipeline is free, then that thread applies it
///   itself, so `dispatch` returns after its action was applied, on the thread that called it.
/// - **A run's ready sync nodes** (`schedule`). Never waits. On the applier (the current action
///   made them ready, or cancelled their run) they are a follow-up; from another thread while
///   someone applies, they are *handed over*, and the applier applies them before it leaves. A
///   task that ends a node never blocks on someone else's middleware or subscriber.
/// - **A run that yielded** to follow-ups after one of its items goes back in line behind them
///   (`requeue`).
///
/// The order, decided here and nowhere else: follow-ups first, first in first out; handed-over
/// work only when no follow-up waits, first in first out. So a subscriber's or middleware's
/// dispatch is the next commit, whatever other threads hand over meanwhile.
///
/// The applier takes queued work with ``next()`` until both lines are empty; then it leaves, and the
/// machine says what its exit owes: the runs whose waiters were held until now, whether events
/// recorded inside wait for delivery, whether a waiting thread must be woken. So every held waiter
/// is resumed by one route, after everything the pipeline applied meanwhile.
///
/// The shell (`StoreCore`'s pipeline section) feeds it one event at a time under its lock and does
/// what it returns with the lock released.
@usableFromInline
struct PipelineMachine<Thread: Equatable> {
    /// What a thread that brings work must do.
    @usableFromInline
    enum Arrival: Equatable {
        /// The thread is the applier now: apply the work, then take ``next()`` until it says leave.
        case apply
        /// The thread is already the applier: the work was queued as a follow-up of the current
        /// action (for a subscriber's first call: call it in place, the pipeline is this thread's).
        case queued
        /// Another thread applies and will apply this work before it leaves (runs only).
        case handedOff
        /// Another thread applies: wait to be woken, then ask ``enterAfterWaiting(on:)``.
        case wait
        /// The store was released: drop the work and report it.
        case closed
    }

    /// What the applier does next.
    @usableFromInline
    enum Next {
        case apply(QueuedWork)
        /// The pipeline is free and the exit owes nothing (the common case).
        case free
        case leave(Exit)
    }

    /// What the applier owes as it leaves, performed after the lock is released (the held
    /// waiters are taken from the runs before, under the lock, so no other applier adds to them).
    @usableFromInline
    struct Exit {
        /// Runs that held their waiters until the pipeline was left.
        @usableFromInline var runsHoldingWaiters = SmallList<any PipelineRun>()
        /// Events were recorded inside: deliver them.
        @usableFromInline var deliversEvents = false
        /// A thread waits to apply its own dispatch: wake one.
        @usableFromInline var wakesWaitingThread = false

        @inlinable
        init() {}

        @inlinable
        var isEmpty: Bool { runsHoldingWaiters.isEmpty && !deliversEvents && !wakesWaitingThread }
    }

    @usableFromInline private(set) var applier: Thread?
    /// Work the current action caused: its middleware's and subscribers' dispatches, runs it made
    /// ready or cancelled, and runs that yielded to such work. Applied first.
    @usableFromInline var followUps = FIFO<QueuedWork>()
    /// Runs other threads handed over while this one applied. Applied when no follow-up waits.
    @usableFromInline var handedOver = FIFO<QueuedWork>()
    /// Threads blocked until the pipeline is free (their dispatch or subscribe applies on them).
    @usableFromInline private(set) var waitingThreads = 0
    @usableFromInline var exit = Exit()
    @usableFromInline private(set) var isClosed = false

    @inlinable
    init() {}

    // MARK: Arriving

    /// A sync action dispatched on `thread`.
    // Always inlined into the store's dispatch: left to itself, the compiler keeps it a call (for
    // the follow-up queue's append), which costs more than the common case's few comparisons.
    @inlinable @inline(__always)
    mutating func dispatch(_ action: any Action, admit: (@Sendable () -> Bool)?, on thread: Thread) -> Arrival {
        if isClosed { return .closed }
        if applier == thread {
            followUps.append(.action(action, admit: admit))
            return .queued
        }
        return enter(thread)
    }

    /// A subscriber's first call, made on `thread` (`.queued`: call it in place).
    @inlinable
    mutating func subscribe(on thread: Thread) -> Arrival {
        if isClosed { return .closed }
        if applier == thread { return .queued }
        return enter(thread)
    }

    /// A run's ready sync nodes, on `thread`: never `.wait`.
    mutating func schedule(_ run: any PipelineRun, on thread: Thread) -> Arrival {
        if applier == nil {
            applier = thread
            return .apply
        }
        if applier == thread {
            followUps.append(.run(run))
            return .queued
        }
        handedOver.append(.run(run))
        return .handedOff
    }

    /// A thread woken after `.wait` asks again: `.apply` once the pipeline is free, else `.wait`.
    @inlinable
    mutating func enterAfterWaiting(on thread: Thread) -> Arrival {
        if isClosed {
            waitingThreads -= 1
            return .closed
        }
        guard applier == nil else { return .wait }
        waitingThreads -= 1
        applier = thread
        return .apply
    }

    @inlinable
    mutating func enter(_ thread: Thread) -> Arrival {
        if applier == nil {
            applier = thread
            return .apply
        }
        waitingThreads += 1
        return .wait
    }

    // MARK: Applying (the applier only)

    /// The next queued work (a follow-up before handed-over work), or the exit once nothing is
    /// queued (the pipeline is free then).
    @inlinable
    mutating func next() -> Next {
        if let work = followUps.popFirst() ?? handedOver.popFirst() { return .apply(work) }
        applier = nil
        if waitingThreads > 0 { exit.wakesWaitingThread = true }
        if exit.isEmpty { return .free }
        defer { exit = Exit() }
        return .leave(exit)
    }

    /// The applier leaves at once, if nothing is queued and its exit owes nothing (what ``next()``
    /// then answers with `.free`); returns whether it did. The common case, without building a `Next`.
    @inlinable
    mutating func leaveIfFree() -> Bool {
        guard followUps.isEmpty, handedOver.isEmpty, waitingThreads == 0, exit.isEmpty else { return false }
        applier = nil
        return true
    }

    /// Whether a follow-up waits: a run applying its items yields to it after the current item.
    /// (It does not yield to handed-over work, which only waits for the pipeline to be free.)
    @inlinable
    var hasFollowUps: Bool { !followUps.isEmpty }

    /// A run that yielded to follow-ups goes back in line behind them.
    mutating func requeue(_ run: any PipelineRun) {
        followUps.append(.run(run))
    }

    /// Whether `thread` is the applier (a subscriber, middleware or sync node runs on it now).
    @inlinable
    func isApplying(on thread: Thread) -> Bool { applier == thread }

    /// Whether some thread applies now.
    var isApplyingOnAnyThread: Bool { applier != nil }

    /// `run` holds waiters until the applier leaves.
    mutating func holdWaiters(of run: any PipelineRun) {
        exit.runsHoldingWaiters.append(run)
    }

    /// Events were recorded while `thread` applies: delivered at its exit. Returns `false` when
    /// `thread` is not the applier (deliver them now).
    mutating func deferEvents(on thread: Thread) -> Bool {
        guard applier == thread else { return false }
        exit.deliversEvents = true
        return true
    }

    // MARK: Closing

    /// The store was released: dispatches and subscriptions are refused from now on, those that
    /// wait included. Returns whether threads wait (wake them all, to be refused).
    mutating func close() -> Bool {
        isClosed = true
        return waitingThreads > 0
    }
}

/// Work queued in the pipeline behind the action being applied. Not generic over the state (nothing
/// in it depends on it), so that the store's generic code finds the queue's type without a lookup.
@usableFromInline
enum QueuedWork {
    /// A sync action, and the check it must pass right before the reducer, if any.
    case action(any Action, admit: (@Sendable () -> Bool)?)
    /// A run with ready sync nodes (it holds one place in the queue at most).
    case run(any PipelineRun)
}
