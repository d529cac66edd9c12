import OresRedux

/// Server data kept in the app's state: one ``QueryEntry`` per ``QueryKey``.
///
/// Keep it in the state and give its key path to the store's reducer with
/// `Reducer.queries(_:)`. Then `select` subscribers, `ObservedStore`, the recorder, the inspector
/// and a `TestStore` see the cache as they see any state.
///
/// ```swift
/// struct AppState: Sendable {
///     var cache = QueryCache()
/// }
/// let appReducer = Reducer<AppState>.combine(.queries(\.cache), otherReducers)
/// ```
///
/// ## The order promise
/// The cache is the one place that decides which answer an entry shows. It keeps a counter that
/// stamps every call when it starts and every other write when it commits, and:
/// - an answer is applied only if the entry still knows its call and nothing was written to the
///   entry after the call started (a newer answer, a mutation's success, an invalidation, a clear);
/// - a mutation's optimistic change is a layer over the confirmed value, shown from the commit
///   that adds it until the mutation's own commit: a failure removes exactly that layer, a success
///   keeps it until an answer of a call started after the success replaces it;
/// - ``keysToRefetch()`` names the observed entries an invalidation left without a current call,
///   for a refetch that starts after the invalidation's commit.
public struct QueryCache: Equatable, Sendable {
    /// Every entry, by key.
    public internal(set) var entries: [QueryKey: QueryEntry] = [:]
    /// The last stamp handed out; never reused, not even after a clear.
    var lastStamp: UInt64 = 0

    /// An empty cache.
    public init() {}

    /// The entry at `key`, or `nil` when none is cached.
    public subscript(key: QueryKey) -> QueryEntry? { entries[key] }

    /// The reducer of the cache's actions (``QueryCallStarted``, ``QueryAnswered``, ...).
    public static let reducer = Reducer<QueryCache>.combine(
        .on(QueryObserved.self) { cache, action in cache.observed(action) },
        .on(QueryUnobserved.self) { cache, action in cache.unobserved(action) },
        .on(QueryCollected.self) { cache, action in cache.collected(action) },
        .on(QueryPollClaimed.self) { cache, action in cache.pollClaimed(action) },
        .on(QueryCallStarted.self) { cache, action in cache.callStarted(action) },
        .on(QueryAnswered.self) { cache, action in cache.answered(action) },
        .on(QueryOptimisticChangeAdded.self) { cache, action in cache.optimisticChangeAdded(action) },
        .on(QueryMutationSucceeded.self) { cache, action in cache.mutationSucceeded(action) },
        .on(QueryMutationFailed.self) { cache, action in cache.mutationFailed(action) },
        .on(QueryInvalidated.self) { cache, action in cache.invalidate(action.invalidations) },
        .on(QueryCacheCleared.self) { cache, _ in cache.clear() }
    )

    /// Whether a fetch of `key` at `now` needs a new call: `false` while a call started since the
    /// entry's last write is in flight (join it), or when the entry is fresh and `force` is not set.
    public func needsCall(_ key: QueryKey, at now: QueryTime, force: Bool = false) -> Bool {
        guard let entry = entries[key] else { return true }
        if entry.hasCurrentCall { return false }
        return force || !entry.isFresh(at: now)
    }

    /// The observed entries that were invalidated and have no call started since: what to refetch
    /// after an invalidation's commit. In key order.
    public func keysToRefetch() -> [QueryKey] {
        entries.filter { _, entry in entry.observers > 0 && entry.isInvalidated && !entry.hasCurrentCall }
            .keys.sorted { $0.description < $1.description }
    }

    /// The observed entries that were invalidated, with or without a call started since: what the
    /// refetch after an invalidation fetches, joining the calls started since rather than calling
    /// again, so that its end means every observed entry the invalidation touched was answered.
    /// In key order.
    func keysInvalidatedAndObserved() -> [QueryKey] {
        entries.filter { _, entry in entry.observers > 0 && entry.isInvalidated }
            .keys.sorted { $0.description < $1.description }
    }

    /// The observed entries a fetch at `now` would call for (stale, invalidated, failed or never
    /// fetched): what to refetch when the app says it came back (foreground, network). In key order.
    public func keysStale(at now: QueryTime) -> [QueryKey] {
        entries.filter { key, entry in entry.observers > 0 && needsCall(key, at: now) }
            .keys.sorted { $0.description < $1.description }
    }

    // MARK: - The reducer's steps

    private mutating func stamp() -> UInt64 {
        lastStamp += 1
        return lastStamp
    }

    /// The entry at `key`, created (a write, stamped) with `declaration` if missing.
    /// An entry created by a call that nobody observes counts as unobserved from its creation, so
    /// that it is removed like one whose last observer left.
    private mutating func entry(_ key: QueryKey, declaring declaration: QueryDeclaration) -> QueryEntry {
        var entry = entries[key] ?? QueryEntry(version: stamp())
        if entry.observers == 0, entry.unobservedAt == nil { entry.unobservedAt = lastStamp }
        entry.tags.formUnion(declaration.tags)
        entry.staleTime = declaration.staleTime
        entry.keepUnobservedFor = declaration.keepUnobservedFor
        entry.callWhenUnobserved = declaration.callWhenUnobserved
        if let recipe = declaration.recipe { entry.recipe = recipe }
        return entry
    }

    mutating func observed(_ action: QueryObserved) {
        var entry = entry(action.key, declaring: action.declaration)
        entry.observers += 1
        entry.unobservedAt = nil
        if let polling = action.polling { entry.pollIntervals.append(polling) }
        entries[action.key] = entry
    }

    /// The last observer's leave abandons the calls in flight if the endpoint cancels them: they
    /// are forgotten at this commit, so their answers are discarded even if they come anyway.
    mutating func unobserved(_ action: QueryUnobserved) {
        guard var entry = entries[action.key], entry.observers > 0 else { return }
        entry.observers -= 1
        if let polling = action.polling, let index = entry.pollIntervals.firstIndex(of: polling) {
            entry.pollIntervals.remove(at: index)
        }
        if entry.pollIntervals.isEmpty { entry.poll = nil }
        if entry.observers == 0 {
            entry.unobservedAt = stamp()
            if entry.callWhenUnobserved == .cancel {
                entry.cancelledCalls.formUnion(entry.calls.keys)
                entry.calls.removeAll()
                entry.nextPageCalls.removeAll()
            }
        }
        entries[action.key] = entry
    }

    /// One poll an entry: the first that claims it while someone asks for polling.
    mutating func pollClaimed(_ action: QueryPollClaimed) {
        guard var entry = entries[action.key], entry.poll == nil, !entry.pollIntervals.isEmpty else { return }
        entry.poll = action.poll
        entries[action.key] = entry
    }

    mutating func collected(_ action: QueryCollected) {
        guard let entry = entries[action.key], entry.observers == 0, entry.unobservedAt == action.unobservedAt
        else { return }
        entries[action.key] = nil
    }

    mutating func callStarted(_ action: QueryCallStarted) {
        var entry = entry(action.key, declaring: action.declaration)
        entry.calls[action.call] = stamp()
        entry.lastCallReason = action.reason
        if action.isNextPage { entry.nextPageCalls.insert(action.call) }
        entries[action.key] = entry
    }

    mutating func answered(_ action: QueryAnswered) {
        guard var entry = entries[action.key] else { return }  // removed since the call started: discarded
        entry.nextPageCalls.remove(action.call)
        guard let started = entry.calls.removeValue(forKey: action.call) else {
            // Cleared, or abandoned by the last observer, since the call started: discarded.
            if entry.cancelledCalls.remove(action.call) != nil { entries[action.key] = entry }
            return
        }
        defer { entries[action.key] = entry }
        guard started > entry.version else { return }  // something newer was written: discarded
        if let extends = action.extends, extends != entry.version { return }  // its list was replaced: discarded
        switch action.answer {
        case .response(let value, let tags):
            entry.confirmed = value
            entry.error = nil
            entry.tags = tags
            // A page appended to a list leaves it as old (and as stale) as the list it extends.
            if action.extends == nil {
                entry.fetchedAt = action.at
                entry.isInvalidated = false
                // A settled change that this answer's call started after is in the answer already.
                entry.layers.removeAll { layer in layer.settledAt.map { $0 < started } ?? false }
            }
        case .failure(let error):
            entry.error = error
        case .cancelled:
            return
        }
        entry.version = started
        entry.showLayers()
    }

    /// A change to an entry that is not cached creates it, empty and unobserved, to hold the change:
    /// a screen that opens while the mutation is in flight then shows its first answer with the
    /// change on top. Such an entry goes when the mutation settles, if nothing else holds it
    /// (``QueryEntry/isHeldOnlyBySettledChanges``).
    mutating func optimisticChangeAdded(_ action: QueryOptimisticChangeAdded) {
        for patch in action.patches {
            var entry = entries[patch.key] ?? QueryEntry(version: stamp())
            if entry.observers == 0, entry.unobservedAt == nil { entry.unobservedAt = entry.version }
            entry.layers.append(QueryLayer(mutation: action.mutation, change: patch.change))
            entry.showLayers()
            entries[patch.key] = entry
        }
    }

    mutating func mutationSucceeded(_ action: QueryMutationSucceeded) {
        let now = stamp()
        for (key, var entry) in entries {
            let changed = entry.layers.contains { $0.mutation == action.mutation }
            let invalidated = action.invalidates.contains { $0.matches(key, entry) }
            guard changed || invalidated else { continue }
            for index in entry.layers.indices where entry.layers[index].mutation == action.mutation {
                entry.layers[index].settledAt = now
            }
            entry.version = now
            if invalidated { entry.isInvalidated = true }
            entries[key] = changed && entry.isHeldOnlyBySettledChanges ? nil : entry
        }
    }

    /// A settled change stays: the mutation succeeded (a cancel that comes after the success, say).
    mutating func mutationFailed(_ action: QueryMutationFailed) {
        func isRolledBack(_ layer: QueryLayer) -> Bool { layer.mutation == action.mutation && layer.settledAt == nil }
        for (key, var entry) in entries where entry.layers.contains(where: isRolledBack) {
            entry.layers.removeAll(where: isRolledBack)
            entry.showLayers()
            entries[key] = entry.isHeldOnlyBySettledChanges ? nil : entry
        }
    }

    mutating func invalidate(_ invalidations: [QueryInvalidation]) {
        let now = stamp()
        for (key, var entry) in entries where invalidations.contains(where: { $0.matches(key, entry) }) {
            entry.version = now
            entry.isInvalidated = true
            entries[key] = entry
        }
    }

    mutating func clear() {
        let now = stamp()
        entries = entries.compactMapValues { old in
            guard old.observers > 0 else { return nil }
            var entry = QueryEntry(version: now)
            entry.observers = old.observers
            entry.tags = old.tags
            entry.staleTime = old.staleTime
            entry.keepUnobservedFor = old.keepUnobservedFor
            entry.callWhenUnobserved = old.callWhenUnobserved
            entry.recipe = old.recipe
            entry.pollIntervals = old.pollIntervals
            entry.poll = old.poll
            entry.cancelledCalls = old.cancelledCalls
            entry.isInvalidated = true
            return entry
        }
    }
}

extension Reducer {
    /// The query cache's reducer, run on the cache at `cache` in the state.
    ///
    /// ```swift
    /// let appReducer = Reducer<AppState>.combine(.queries(\.cache), feedReducer)
    /// ```
    public static func queries(_ cache: WritableKeyPath<State, QueryCache> & Sendable) -> Reducer {
        .scope(cache, QueryCache.reducer)
    }
}

/// A cache is saved as nothing and restored empty, so that an app state holding one stays
/// `Codable` for `StatePersistence` without code of its own.
///
/// Why not its entries: their responses are type-erased (one cache holds every endpoint's
/// answers), so decoding them would need every endpoint's type up front; their times are on the
/// store's clock, which starts again at every launch, so a restored `fetchedAt` would mean nothing;
/// and their observer counts belong to screens that are gone. After a relaunch each screen's
/// observation fetches what it shows. Keep what must be on screen before the first answer (a
/// draft, the last feed for offline reading) in the app's own state.
extension QueryCache: Codable {
    /// An empty cache, whatever was encoded.
    public init(from decoder: any Decoder) throws {
        self.init()
    }

    /// Encodes an empty object.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}
