/// Where an entry stands.
public enum QueryStatus: Hashable, Sendable, Codable {
    /// Never fetched: no answer, no call in flight.
    case idle
    /// No answer yet, and a call is in flight.
    case loading
    /// The last applied answer was a response (``QueryEntry/data``).
    case succeeded
    /// The last applied answer was an error (``QueryEntry/error``); earlier data is kept.
    case failed
}

/// One cached response, with what is known about it: the value a view reads.
///
/// Only the cache's reducer changes an entry (see ``QueryCache``). An entry is `Equatable`, so a
/// view that selects one entry is redrawn when that entry changes, and never for another.
public struct QueryEntry: Equatable, Sendable, CustomReflectable {
    /// Every field of the entry, stored behind one reference (``QueryEntry/fields``).
    struct Fields: Equatable, Sendable {
        // What views read: documented on the entry's properties of the same names.
        var data: QueryValue? = nil
        var error: QueryError? = nil
        var fetchedAt: QueryTime? = nil
        var tags: Set<QueryTag> = []
        var observers: Int = 0
        var version: UInt64
        var isInvalidated: Bool = false
        var lastCallReason: QueryCallReason? = nil
        var staleTime: Duration = .zero
        var keepUnobservedFor: Duration = .seconds(60)
        var callWhenUnobserved: QueryUnobservedCall = .cancel
        // What the cache keeps to decide what views read.
        /// The last applied response, without optimistic changes.
        var confirmed: QueryValue? = nil
        /// The calls in flight, each with the stamp of its start.
        var calls: [QueryCallID: UInt64] = [:]
        /// Those of `calls` that fetch a next page.
        var nextPageCalls: Set<QueryCallID> = []
        /// The optimistic changes over `confirmed`, in the order they were added.
        var layers: [QueryLayer] = []
        /// How to call the endpoint again (for refetches decided from the state alone).
        var recipe: QueryRecipe? = nil
        /// The stamp of the moment the last observer left, while nobody observes the entry.
        var unobservedAt: UInt64? = nil
        /// The intervals the observers that poll asked for, one per such observer.
        var pollIntervals: [Duration] = []
        /// The poll that refetches the entry, while one does (see ``QueryPollClaimed``).
        var poll: UInt64? = nil
        /// The calls the last observer's leave abandoned: forgotten by the entry (their answers are
        /// discarded), to be cancelled by the shell; each is dropped from here when its answer comes.
        var cancelledCalls: Set<QueryCallID> = []
    }

    /// The fields behind one reference, so that copying an entry (as every read of `cache[key]`
    /// does) retains one object and copies one pointer, whatever the entry holds.
    private var box: FieldsBox

    /// A write copies the fields first when another entry shares them.
    var fields: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = FieldsBox(box.fields) }
            yield &box.fields
        }
    }

    /// The response with every optimistic change still in progress applied on top, or `nil`
    /// before the first response.
    public internal(set) var data: QueryValue? {
        get { fields.data }
        _modify { yield &fields.data }
    }
    /// Why the last applied answer failed, or `nil` when it was a response.
    public internal(set) var error: QueryError? {
        get { fields.error }
        _modify { yield &fields.error }
    }
    /// When the last applied response arrived, on the store's clock.
    public internal(set) var fetchedAt: QueryTime? {
        get { fields.fetchedAt }
        _modify { yield &fields.fetchedAt }
    }
    /// The tags the entry provides: its endpoint's, and its response's.
    public internal(set) var tags: Set<QueryTag> {
        get { fields.tags }
        _modify { yield &fields.tags }
    }
    /// How many observers keep the entry; at zero, it is removed once ``keepUnobservedFor`` passed.
    public internal(set) var observers: Int {
        get { fields.observers }
        _modify { yield &fields.observers }
    }
    /// The stamp of the last write to the entry (an applied answer, a mutation's success, an
    /// invalidation, its creation): an answer is applied only if its call started after it.
    public internal(set) var version: UInt64 {
        get { fields.version }
        _modify { yield &fields.version }
    }
    /// Whether the entry was invalidated (or cleared) since its last applied response.
    public internal(set) var isInvalidated: Bool {
        get { fields.isInvalidated }
        _modify { yield &fields.isInvalidated }
    }
    /// Why the entry's last call was made; `nil` before its first.
    public internal(set) var lastCallReason: QueryCallReason? {
        get { fields.lastCallReason }
        _modify { yield &fields.lastCallReason }
    }
    /// How long a response stays fresh: a fetch within that time is served without a call.
    public internal(set) var staleTime: Duration {
        get { fields.staleTime }
        _modify { yield &fields.staleTime }
    }
    /// How long the entry is kept once nobody observes it.
    public internal(set) var keepUnobservedFor: Duration {
        get { fields.keepUnobservedFor }
        _modify { yield &fields.keepUnobservedFor }
    }
    /// What becomes of the entry's calls in flight when its last observer leaves.
    public internal(set) var callWhenUnobserved: QueryUnobservedCall {
        get { fields.callWhenUnobserved }
        _modify { yield &fields.callWhenUnobserved }
    }

    var confirmed: QueryValue? {
        get { fields.confirmed }
        _modify { yield &fields.confirmed }
    }
    var calls: [QueryCallID: UInt64] {
        get { fields.calls }
        _modify { yield &fields.calls }
    }
    var nextPageCalls: Set<QueryCallID> {
        get { fields.nextPageCalls }
        _modify { yield &fields.nextPageCalls }
    }
    var layers: [QueryLayer] {
        get { fields.layers }
        _modify { yield &fields.layers }
    }
    var recipe: QueryRecipe? {
        get { fields.recipe }
        _modify { yield &fields.recipe }
    }
    var unobservedAt: UInt64? {
        get { fields.unobservedAt }
        _modify { yield &fields.unobservedAt }
    }
    var pollIntervals: [Duration] {
        get { fields.pollIntervals }
        _modify { yield &fields.pollIntervals }
    }
    var poll: UInt64? {
        get { fields.poll }
        _modify { yield &fields.poll }
    }
    var cancelledCalls: Set<QueryCallID> {
        get { fields.cancelledCalls }
        _modify { yield &fields.cancelledCalls }
    }

    init(version: UInt64) {
        self.box = FieldsBox(Fields(version: version))
    }

    /// Every field, as if stored in the entry itself: what the inspector and a `TestStore`'s state
    /// diff show.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: fields).children, displayStyle: .struct)
    }

    /// Where the entry stands: failed if the last applied answer was an error, succeeded if it
    /// was a response, loading while the first call is in flight, idle otherwise.
    public var status: QueryStatus {
        if error != nil { return .failed }
        if confirmed != nil { return .succeeded }
        return calls.isEmpty ? .idle : .loading
    }

    /// How often the entry is refetched while observed: the shortest interval its polling
    /// observers asked for, or `nil` when none polls.
    public var pollInterval: Duration? { pollIntervals.min() }

    /// Whether a call for this entry is in flight (in the background, when ``data`` is there).
    public var isFetching: Bool { !calls.isEmpty }

    /// The response as a `T`, optimistic changes included.
    public func data<T>(as type: T.Type) -> T? {
        data?.value(as: type)
    }

    /// The optimistic changes shown, by mutation, in the order they were added.
    public var optimisticChanges: [QueryMutationID] { layers.map(\.mutation) }

    /// Whether a response is there, not invalidated, and younger than ``staleTime`` at `now`.
    public func isFresh(at now: QueryTime) -> Bool {
        guard error == nil, confirmed != nil, !isInvalidated, let fetchedAt else { return false }
        return fetchedAt.advanced(by: staleTime) > now
    }

    /// Whether a fetch of the entry started since the last write is in flight: its answer will be
    /// applied. (A next page's call is no fetch of the list: it only extends it.)
    var hasCurrentCall: Bool { calls.contains { call, started in started > version && !nextPageCalls.contains(call) } }

    /// Whether nothing but settled optimistic changes keeps the entry: nobody observes it, it has
    /// no answer and no call in flight, and no change on it is still in progress. The next answer
    /// it could get comes from a call started after those changes settled, so it would drop them.
    var isHeldOnlyBySettledChanges: Bool {
        observers == 0 && confirmed == nil && error == nil && calls.isEmpty && layers.allSatisfy { $0.settledAt != nil }
    }

    /// `data`: `confirmed` with every layer applied, in order.
    mutating func showLayers() {
        data = confirmed.map { confirmed in layers.reduce(confirmed) { value, layer in layer.change(value) } }
    }
}

/// The box of an entry's fields.
///
/// `@unchecked Sendable`: `fields` is written only through ``QueryEntry/fields``, which first
/// replaces a box that is not uniquely referenced; a box shared by several entries (so possibly
/// read on several threads) is therefore never written, and a unique one is reached only through
/// the entry being mutated, which Swift's exclusivity gives to one thread at a time.
private final class FieldsBox: Equatable, @unchecked Sendable {
    var fields: QueryEntry.Fields

    init(_ fields: QueryEntry.Fields) {
        self.fields = fields
    }

    static func == (lhs: FieldsBox, rhs: FieldsBox) -> Bool {
        lhs === rhs || lhs.fields == rhs.fields
    }
}
