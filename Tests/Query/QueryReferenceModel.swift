import OresRedux

@testable import OresReduxQuery

/// The order promise of the query cache (the guide "Server Data: Queries and Mutations"), written as plainly as it is said:
/// each entry keeps the history of what was written to it, and every answer to a question is
/// read off that history. The fuzz compares `QueryCache` with it after every commit.
struct QueryReferenceModel {
    struct Response {
        let started: Int
        let value: [Int]
        let at: QueryTime
        /// A page appended to the list: as old, and as stale, as the list it extends.
        var isPage = false
    }

    struct Layer {
        let mutation: QueryMutationID
        let patch: QueryPatch
        var settledAt: Int?
    }

    struct Entry {
        var observers = 0
        /// The model's tick of the moment the last observer left, while nobody observes.
        var unobservedAt: Int?
        var tags: Set<QueryTag> = []
        var staleTime: Duration = .zero
        var callWhenUnobserved: QueryUnobservedCall = .cancel
        /// Every write that is not an answer: the creation, mutations' successes, invalidations.
        var writes: [Int]
        var invalidations: [Int] = []
        /// The calls in flight, with the tick of their start.
        var calls: [QueryCallID: Int] = [:]
        /// Those of `calls` that fetch a next page: they do not stand for a fetch of the list.
        var nextPageCalls: Set<QueryCallID> = []
        /// The answers applied, each at its call's start.
        var responses: [Response] = []
        var failures: [Int] = []
        var layers: [Layer] = []

        var lastWrite: Int { (writes + responses.map(\.started) + failures).max() ?? 0 }
        var lastResponse: Response? { responses.max { $0.started < $1.started } }
        /// The last response that is a fetch of the whole entry (not a page appended).
        var lastFetch: Response? { responses.filter { !$0.isPage }.max { $0.started < $1.started } }
        var isFailed: Bool { (failures.max() ?? -1) > (lastResponse?.started ?? -1) }
        var isInvalidated: Bool { (invalidations.max() ?? -1) > (lastFetch?.started ?? -1) }
        var hasCurrentFetch: Bool {
            calls.contains { call, started in started > lastWrite && !nextPageCalls.contains(call) }
        }

        /// A settled layer is shown until a response whose call started after its settlement.
        var shownLayers: [Layer] {
            layers.filter { layer in
                guard let settledAt = layer.settledAt else { return true }
                return !responses.contains { !$0.isPage && $0.started > settledAt }
            }
        }

        var visible: [Int]? {
            guard let confirmed = lastResponse?.value else { return nil }
            return shownLayers.reduce(confirmed) { value, layer in
                layer.patch.change(QueryValue(value)).value(as: [Int].self) ?? value
            }
        }

        var status: QueryStatus {
            if isFailed { return .failed }
            if lastResponse != nil { return .succeeded }
            return calls.isEmpty ? .idle : .loading
        }

        var view: QueryEntryView {
            QueryEntryView(observers: observers, status: status, confirmed: lastResponse?.value, visible: visible)
        }

        func isFresh(at now: QueryTime) -> Bool {
            guard !isFailed, !isInvalidated, let last = lastFetch else { return false }
            return last.at.advanced(by: staleTime) > now
        }
    }

    private(set) var entries: [QueryKey: Entry] = [:]
    private var tick = 0

    private mutating func next() -> Int {
        tick += 1
        return tick
    }

    private mutating func ensure(_ key: QueryKey, _ declaration: QueryDeclaration) {
        if entries[key] == nil {
            let created = next()
            entries[key] = Entry(unobservedAt: created, writes: [created])
        }
        entries[key]!.tags.formUnion(declaration.tags)
        entries[key]!.staleTime = declaration.staleTime
        entries[key]!.callWhenUnobserved = declaration.callWhenUnobserved
    }

    /// Applies a cache action; `QueryCollected` is applied with ``collect(_:unobservedAt:)``, whose
    /// token is the model's own.
    mutating func reduce(_ action: any Action) {
        switch action {
        case let action as QueryObserved:
            ensure(action.key, action.declaration)
            entries[action.key]!.observers += 1
            entries[action.key]!.unobservedAt = nil
        case let action as QueryUnobserved:
            guard let entry = entries[action.key], entry.observers > 0 else { return }
            entries[action.key]!.observers -= 1
            if entry.observers == 1 {
                entries[action.key]!.unobservedAt = next()
                // Nobody needs the answers of the calls in flight any more: they are not applied.
                if entry.callWhenUnobserved == .cancel {
                    entries[action.key]!.calls = [:]
                    entries[action.key]!.nextPageCalls = []
                }
            }
        case let action as QueryCallStarted:
            ensure(action.key, action.declaration)
            entries[action.key]!.calls[action.call] = next()
            if action.isNextPage { entries[action.key]!.nextPageCalls.insert(action.call) }
        case let action as QueryAnswered:
            answer(action, extending: nil)
        case let action as QueryOptimisticChangeAdded:
            // A change to an entry not cached creates it, to be shown on its first answer.
            for patch in action.patches {
                if entries[patch.key] == nil {
                    let created = next()
                    entries[patch.key] = Entry(unobservedAt: created, writes: [created])
                }
                entries[patch.key]!.layers.append(Layer(mutation: action.mutation, patch: patch))
            }
        case let action as QueryMutationSucceeded:
            let now = next()
            for (key, entry) in entries {
                let changed = entry.layers.contains { $0.mutation == action.mutation }
                let invalidated = action.invalidates.contains { matches($0, key, entry) }
                if changed || invalidated { entries[key]!.writes.append(now) }
                if invalidated { entries[key]!.invalidations.append(now) }
                for index in entry.layers.indices where entry.layers[index].mutation == action.mutation {
                    entries[key]!.layers[index].settledAt = now
                }
                if changed { dropIfHeldOnlyBySettledChanges(key) }
            }
        case let action as QueryMutationFailed:
            for (key, entry) in entries
            where entry.layers.contains(where: { $0.mutation == action.mutation && $0.settledAt == nil }) {
                entries[key]!.layers.removeAll { $0.mutation == action.mutation && $0.settledAt == nil }
                dropIfHeldOnlyBySettledChanges(key)
            }
        case let action as QueryInvalidated:
            let now = next()
            for (key, entry) in entries where action.invalidations.contains(where: { matches($0, key, entry) }) {
                entries[key]!.writes.append(now)
                entries[key]!.invalidations.append(now)
            }
        case is QueryCacheCleared:
            let now = next()
            entries = entries.filter { $0.value.observers > 0 }.mapValues { old in
                var entry = Entry(writes: [now])
                entry.observers = old.observers
                entry.tags = old.tags
                entry.staleTime = old.staleTime
                entry.callWhenUnobserved = old.callWhenUnobserved
                entry.invalidations = [now]
                return entry
            }
        default: break
        }
    }

    /// An entry that nobody observes, with no answer and no call, is kept by changes in progress
    /// only: once they are settled, it goes.
    private mutating func dropIfHeldOnlyBySettledChanges(_ key: QueryKey) {
        guard let entry = entries[key], entry.observers == 0, entry.responses.isEmpty, entry.failures.isEmpty,
            entry.calls.isEmpty, entry.layers.allSatisfy({ $0.settledAt != nil })
        else { return }
        entries[key] = nil
    }

    /// An answer; for a page appended to a list, `extending` is the model's last write to the
    /// list when the call read it, and the page is applied only if nothing was written since.
    mutating func answer(_ action: QueryAnswered, extending: Int?) {
        guard var entry = entries[action.key], let started = entry.calls.removeValue(forKey: action.call) else {
            return
        }
        entry.nextPageCalls.remove(action.call)
        defer { entries[action.key] = entry }
        guard started > entry.lastWrite, extending.map({ $0 == entry.lastWrite }) ?? true else { return }
        switch action.answer {
        case .response(let value, let tags):
            let at = extending == nil ? action.at : entry.lastFetch?.at ?? action.at
            entry.responses.append(
                Response(started: started, value: value.value(as: [Int].self)!, at: at, isPage: extending != nil))
            entry.tags = tags
        case .failure: entry.failures.append(started)
        case .cancelled: break
        }
    }

    /// The model's last write to `key`: what a page's call extends.
    func lastWrite(_ key: QueryKey) -> Int? { entries[key]?.lastWrite }

    /// Whether the answer of `call`, a page extending the write `extending`, would be applied now.
    func wouldApply(_ key: QueryKey, _ call: QueryCallID, extending: Int?) -> Bool {
        guard let entry = entries[key], let started = entry.calls[call] else { return false }
        return started > entry.lastWrite && (extending.map { $0 == entry.lastWrite } ?? true)
    }

    /// The removal of `key`, scheduled when its last observer left at the model's `unobservedAt`.
    mutating func collect(_ key: QueryKey, unobservedAt: Int) {
        if let entry = entries[key], entry.observers == 0, entry.unobservedAt == unobservedAt { entries[key] = nil }
    }

    func unobservedAt(_ key: QueryKey) -> Int? { entries[key]?.unobservedAt }

    private func matches(_ invalidation: QueryInvalidation, _ key: QueryKey, _ entry: Entry) -> Bool {
        switch invalidation {
        case .tag(let tag): entry.tags.contains { tag.covers($0) }
        case .keyPrefix(let prefix): key.path.starts(with: prefix.path)
        }
    }

    func view(_ key: QueryKey) -> QueryEntryView? { entries[key]?.view }

    func needsCall(_ key: QueryKey, at now: QueryTime, force: Bool) -> Bool {
        guard let entry = entries[key] else { return true }
        if entry.hasCurrentFetch { return false }
        return force || !entry.isFresh(at: now)
    }

    func keysToRefetch() -> [QueryKey] {
        entries.filter { _, entry in
            entry.observers > 0 && entry.isInvalidated && !entry.hasCurrentFetch
        }.keys.sorted { $0.description < $1.description }
    }

    func keysStale(at now: QueryTime) -> [QueryKey] {
        entries.filter { key, entry in entry.observers > 0 && needsCall(key, at: now, force: false) }
            .keys.sorted { $0.description < $1.description }
    }
}
