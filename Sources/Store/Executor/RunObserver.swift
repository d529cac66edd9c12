/// What watches a run from the side without changing what it does: the durable journal and the
/// run-event recorder. A new capability that follows runs adds an observer, not call sites in the
/// run's shell.
///
/// An observer sees every step the run's machine decides, in the machine's order, with the run's
/// lock held (so two threads' events reach it in the order the machine took them). It must not run
/// user code there, nor take a lock that is ever held while a run's lock is taken: it only records
/// and queues (the event hub's queue, the journal's writer).
protocol RunObserver: AnyObject {
    /// One step of an event, under the run's lock; `machine` is the state right after the event.
    func observe(_ step: RunStep, of machine: RunStateMachine)
    /// Around the application of `item` through `host`'s pipeline (`apply`), on the applier's
    /// thread with no lock held.
    func apply(_ item: RunStateMachine.SyncItem, on host: any RunHost, _ apply: () -> Void)
}

extension Array where Element == any RunObserver {
    /// Shows each observer each of `steps`, in order. Called under the run's lock.
    func observe(_ steps: RunSteps, of machine: RunStateMachine) {
        guard !isEmpty else { return }
        for step in steps {
            for observer in self { observer.observe(step, of: machine) }
        }
    }

    /// Applies `item` with `apply`, inside every observer's `apply`.
    func apply(_ item: RunStateMachine.SyncItem, on host: any RunHost, _ apply: () -> Void) {
        self[...].apply(item, on: host, apply)
    }
}

extension ArraySlice where Element == any RunObserver {
    fileprivate func apply(_ item: RunStateMachine.SyncItem, on host: any RunHost, _ apply: () -> Void) {
        guard let first else { return apply() }
        first.apply(item, on: host) { dropFirst().apply(item, on: host, apply) }
    }
}
