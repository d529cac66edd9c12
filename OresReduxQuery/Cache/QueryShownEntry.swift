/// What a view sees of an entry: its data, its error, whether it was invalidated, and how many
/// observe it. Read through ``QueryCache/shown``.
///
/// With ``QueryCache/bookkeeping`` (the rest), it lets a `TestStore` assert entries as it asserts
/// state: the expected change says what a view sees, and the cache's own bookkeeping (the stamps
/// of calls and writes, when an answer came on the store's clock, the calls in flight, the
/// optimistic layers under the data) is taken as the store made it.
///
/// ```swift
/// try await store.receive(QueryAnswered.self, notAsserting: [\.cache.bookkeeping]) {
///     $0.cache.shown[Feed(userID: 1).key]?.data = QueryValue([hello])
/// }
/// ```
public struct QueryShownEntry: Equatable, Sendable {
    /// ``QueryEntry/data``: the response with the optimistic changes in progress on top.
    public var data: QueryValue?
    /// ``QueryEntry/error``: why the last applied answer failed.
    public var error: QueryError?
    /// ``QueryEntry/isInvalidated``: whether the entry was invalidated since its last response.
    public var isInvalidated: Bool
    /// ``QueryEntry/observers``: how many observers keep the entry.
    public var observers: Int

    /// An entry as a view sees it.
    public init(data: QueryValue? = nil, error: QueryError? = nil, isInvalidated: Bool = false, observers: Int = 0) {
        self.data = data
        self.error = error
        self.isInvalidated = isInvalidated
        self.observers = observers
    }
}

/// What the cache keeps for itself, beside what views see (``QueryCache/shown``): leave it out of
/// a `TestStore`'s assertions with `notAsserting: [\.cache.bookkeeping]`.
public struct QueryBookkeeping: Equatable, Sendable {
    fileprivate let lastStamp: UInt64
    fileprivate let entries: [QueryKey: QueryEntry]
}

extension QueryEntry {
    /// The part of the entry a view sees.
    var shown: QueryShownEntry {
        get { QueryShownEntry(data: data, error: error, isInvalidated: isInvalidated, observers: observers) }
        set {
            data = newValue.data
            error = newValue.error
            isInvalidated = newValue.isInvalidated
            observers = newValue.observers
        }
    }
}

extension QueryCache {
    /// Every entry as a view sees it, by key; writable, so that a `TestStore`'s expected state can
    /// say what an action changed (an entry written here that the cache did not have starts with
    /// no bookkeeping, and compares equal to none the store made).
    public var shown: [QueryKey: QueryShownEntry] {
        get { entries.mapValues(\.shown) }
        set {
            let old = entries
            entries = newValue.reduce(into: [:]) { entries, item in
                var entry = old[item.key] ?? QueryEntry(version: 0)
                entry.shown = item.value
                entries[item.key] = entry
            }
        }
    }

    /// Everything but what views see: the counter that stamps calls and writes, and each entry's
    /// bookkeeping. Setting it keeps this cache's keys and what views see of them, and takes the
    /// rest from `newValue`: that is what `notAsserting: [\.cache.bookkeeping]` does to the
    /// expected state of a `TestStore`'s `receive`.
    public var bookkeeping: QueryBookkeeping {
        get { QueryBookkeeping(lastStamp: lastStamp, entries: entries) }
        set {
            lastStamp = newValue.lastStamp
            for (key, entry) in entries {
                guard var kept = newValue.entries[key] else { continue }
                kept.shown = entry.shown
                entries[key] = kept
            }
        }
    }
}
