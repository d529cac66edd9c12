import OresRedux

@testable import OresReduxQuery

/// What the fuzz reads of a cache entry, whichever cache it drives: the promises are about these.
struct QueryEntryView: Equatable, CustomStringConvertible {
    var observers: Int
    var status: QueryStatus
    var confirmed: [Int]?
    var visible: [Int]?

    var description: String {
        "observers \(observers), \(status), confirmed \(confirmed.map { "\($0)" } ?? "nil"), "
            + "visible \(visible.map { "\($0)" } ?? "nil")"
    }
}

extension QueryEntryView? {
    /// Whether a view of the entry would show the same: observers, status and data.
    func showsTheSame(as other: QueryEntryView?) -> Bool {
        self?.observers == other?.observers && self?.status == other?.status && self?.visible == other?.visible
    }
}

/// A cache the fuzz can drive: it reduces the cache's actions and answers the shell's questions
/// (is a call needed, what to refetch). `QueryCache` is one; `NaiveQueryCache` is another, wrong
/// on purpose, to show that the fuzz catches what it must.
protocol QueryCacheUnderTest {
    init()
    mutating func reduce(_ action: any Action)
    func view(_ key: QueryKey) -> QueryEntryView?
    func needsCall(_ key: QueryKey, at now: QueryTime, force: Bool) -> Bool
    func keysToRefetch() -> [QueryKey]
    func keysStale(at now: QueryTime) -> [QueryKey]
    func unobservedStamp(_ key: QueryKey) -> UInt64?
    /// The entry's last write, as the cache's `QueryAnswered.extends` names it.
    func version(_ key: QueryKey) -> UInt64?
}

extension QueryCache: QueryCacheUnderTest {
    mutating func reduce(_ action: any Action) {
        QueryCache.reducer(&self, action)
    }

    func view(_ key: QueryKey) -> QueryEntryView? {
        entries[key].map { entry in
            QueryEntryView(
                observers: entry.observers, status: entry.status, confirmed: entry.confirmed?.value(as: [Int].self),
                visible: entry.data(as: [Int].self))
        }
    }

    func unobservedStamp(_ key: QueryKey) -> UInt64? { entries[key]?.unobservedAt }

    func version(_ key: QueryKey) -> UInt64? { entries[key]?.version }
}

/// A cache written the way many are: every answer is applied as it arrives, and an optimistic
/// change is written into the data with a snapshot to restore on failure. The fuzz must catch it.
struct NaiveQueryCache: QueryCacheUnderTest {
    struct Entry {
        var observers = 0
        var data: [Int]?
        var error = false
        var fetchedAt: QueryTime?
        var tags: Set<QueryTag> = []
        var staleTime: Duration = .zero
        var callWhenUnobserved: QueryUnobservedCall = .cancel
        var calls: Set<QueryCallID> = []
        var stale = false
        var unobservedAt: UInt64?
    }

    var entries: [QueryKey: Entry] = [:]
    var snapshots: [QueryMutationID: [QueryKey: [Int]?]] = [:]
    var counter: UInt64 = 0

    mutating func reduce(_ action: any Action) {
        switch action {
        case let action as QueryObserved:
            var entry = entries[action.key] ?? Entry()
            entry.observers += 1
            entry.tags.formUnion(action.declaration.tags)
            entry.staleTime = action.declaration.staleTime
            entry.callWhenUnobserved = action.declaration.callWhenUnobserved
            entries[action.key] = entry
        case let action as QueryUnobserved:
            guard var entry = entries[action.key], entry.observers > 0 else { return }
            entry.observers -= 1
            counter += 1
            if entry.observers == 0 {
                entry.unobservedAt = counter
                if entry.callWhenUnobserved == .cancel { entry.calls = [] }
            }
            entries[action.key] = entry
        case let action as QueryCollected:
            if entries[action.key]?.observers == 0, entries[action.key]?.unobservedAt == action.unobservedAt {
                entries[action.key] = nil
            }
        case let action as QueryCallStarted:
            var entry = entries[action.key] ?? Entry()
            entry.tags.formUnion(action.declaration.tags)
            entry.staleTime = action.declaration.staleTime
            entry.calls.insert(action.call)
            entries[action.key] = entry
        case let action as QueryAnswered:
            guard var entry = entries[action.key] else { return }
            entry.calls.remove(action.call)
            switch action.answer {
            case .response(let value, let tags):
                entry.data = value.value(as: [Int].self)
                entry.error = false
                entry.fetchedAt = action.at
                entry.tags = tags
                entry.stale = false
            case .failure: entry.error = true
            case .cancelled: break
            }
            entries[action.key] = entry
        case let action as QueryOptimisticChangeAdded:
            for patch in action.patches {
                guard var entry = entries[patch.key] else { continue }
                snapshots[action.mutation, default: [:]][patch.key] = entry.data
                entry.data = entry.data.flatMap { patch.change(QueryValue($0)).value(as: [Int].self) }
                entries[patch.key] = entry
            }
        case let action as QueryMutationSucceeded:
            snapshots[action.mutation] = nil
            for (key, entry) in entries where action.invalidates.contains(where: { matches($0, key, entry) }) {
                entries[key]?.stale = true
            }
        case let action as QueryMutationFailed:
            for (key, data) in snapshots.removeValue(forKey: action.mutation) ?? [:] { entries[key]?.data = data }
        case let action as QueryInvalidated:
            for (key, entry) in entries where action.invalidations.contains(where: { matches($0, key, entry) }) {
                entries[key]?.stale = true
            }
        case is QueryCacheCleared:
            entries = entries.filter { $0.value.observers > 0 }.mapValues { old in
                var entry = Entry()
                entry.observers = old.observers
                entry.tags = old.tags
                entry.staleTime = old.staleTime
                entry.stale = true
                return entry
            }
        default: break
        }
    }

    private func matches(_ invalidation: QueryInvalidation, _ key: QueryKey, _ entry: Entry) -> Bool {
        switch invalidation {
        case .tag(let tag): entry.tags.contains { tag.covers($0) }
        case .keyPrefix(let prefix): key.hasPrefix(prefix)
        }
    }

    func view(_ key: QueryKey) -> QueryEntryView? {
        entries[key].map { entry in
            let status: QueryStatus =
                entry.error ? .failed : entry.data != nil ? .succeeded : entry.calls.isEmpty ? .idle : .loading
            return QueryEntryView(
                observers: entry.observers, status: status, confirmed: entry.data, visible: entry.data)
        }
    }

    func needsCall(_ key: QueryKey, at now: QueryTime, force: Bool) -> Bool {
        guard let entry = entries[key] else { return true }
        if !entry.calls.isEmpty { return false }
        guard !force, !entry.error, !entry.stale, let fetchedAt = entry.fetchedAt, entry.data != nil else {
            return true
        }
        return fetchedAt.advanced(by: entry.staleTime) <= now
    }

    func keysToRefetch() -> [QueryKey] {
        entries.filter { $0.value.observers > 0 && $0.value.stale && $0.value.calls.isEmpty }.keys
            .sorted { $0.description < $1.description }
    }

    func keysStale(at now: QueryTime) -> [QueryKey] {
        entries.filter { $0.value.observers > 0 && needsCall($0.key, at: now, force: false) }.keys
            .sorted { $0.description < $1.description }
    }

    func unobservedStamp(_ key: QueryKey) -> UInt64? { entries[key]?.unobservedAt }

    /// A naive cache knows no versions: every answer applies, pages included.
    func version(_ key: QueryKey) -> UInt64? { entries[key] == nil ? nil : 0 }
}
