import OresRedux

/// What `StatePersistence` would have saved when an ``InMemoryRunJournal`` stopped: the state and
/// its `DurableMarks`, for the test store that plays the next launch.
///
/// It is taken as if the state had been saved at the very moment of the stop (the best case of a
/// debounced save): for a stop at `.syncApplied(node:)`, the state right after that node's commit;
/// for a stop at an attempt's record, the last state committed before it. Get one with
/// ``TestStore/persisting(untilStopOf:)`` before the run starts.
public final class PersistedAtStop<State: Sendable>: Sendable {
    private struct Kept {
        /// Each committed state, with the store's commit count after it (the first: at subscription).
        var history: [(count: UInt64, state: State)] = []
        var saved: (state: State, marks: DurableMarks)?
    }

    private let kept = LockedValue(Kept())
    private let point: @Sendable () -> String
    // Keeps the subscription that feeds `history` for as long as this object lives.
    private let subscription: LockedValue<Subscription?> = LockedValue(nil)

    init(store: Store<State>, journal: InMemoryRunJournal) {
        point = { journal.hasStopped ? "its stop point" : "a stop point it never reached" }
        let kept = self.kept
        subscription.withLock {
            // A subscriber runs on the committing thread before anything else is applied, so the
            // count read here is the count of `state`.
            $0 = store.subscribe { [weak store] state in
                guard let store else { return }
                let count = store.commitCount
                kept.withLock { $0.history.append((count, state)) }
            }
        }
        journal.onStop { [weak store] record in
            guard let store else { return }
            var upTo = UInt64.max
            if case .syncApplied(_, let commitCount) = record { upTo = commitCount }
            kept.withLock { kept in
                guard let last = kept.history.last(where: { $0.count <= upTo }) else { return }
                kept.saved = (last.state, store.durableMarks(upTo: last.count))
            }
        }
    }

    /// The state saved at the stop.
    /// - Throws: ``TestStoreFailure`` when the journal never reached its stop point.
    public func state(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> State {
        try saved(Place(fileID: fileID, filePath: filePath, line: line, column: column)).state
    }

    /// The durable marks saved with the state.
    /// - Throws: ``TestStoreFailure`` when the journal never reached its stop point.
    public func durableMarks(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> DurableMarks {
        try saved(Place(fileID: fileID, filePath: filePath, line: line, column: column)).marks
    }

    private func saved(_ place: Place) throws -> (state: State, marks: DurableMarks) {
        guard let saved = kept.withLock({ $0.saved }) else {
            throw TestStoreFailure(
                place, "the journal never stopped: the run did not reach \(point()), so nothing was saved there")
        }
        return saved
    }
}

extension TestStore {
    /// Keeps what `StatePersistence` would save when `journal` reaches its stop point (see
    /// ``InMemoryRunJournal/stop(at:)``): call it before the durable run starts, and build the
    /// next launch's test store from the result.
    public func persisting(untilStopOf journal: InMemoryRunJournal) -> PersistedAtStop<State> {
        PersistedAtStop(store: store, journal: journal)
    }
}
