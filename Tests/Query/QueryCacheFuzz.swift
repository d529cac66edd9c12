import OresRedux

@testable import OresReduxQuery

/// The first broken promise a fuzz round found: what, when, and the steps that led there.
struct QueryFuzzViolation: Error, CustomStringConvertible {
    let seed: UInt64
    let step: Int
    let message: String
    let trace: [String]

    var description: String {
        """
        seed \(seed), step \(step): \(message)
        replay: ORESREDUX_QUERY_SEED=\(seed) ORESREDUX_QUERY_ROUNDS=1 swift test --filter QueryCacheFuzz
        last steps:
        \(trace.suffix(14).map { "  " + $0 }.joined(separator: "\n"))
        """
    }
}

/// One round of the query cache fuzz: a server, a cache under test and the reference model, and
/// a random history played on them by this type, which stands in for the store and the network.
///
/// Calls answer in whatever order the round picks (a call's server read and its answer are two
/// separate events, so a call may read the server before or after a mutation reaches it), time
/// moves only when the round says, and after every commit the cache is compared with the model and
/// each promise of the order is checked by name. At the end the round lets everything land, sends
/// the app's "came back" signal until nothing is stale, and checks that every observed entry
/// shows what the server has.
struct QueryCacheFuzz<Cache: QueryCacheUnderTest> {
    // The world: items owned by one of two users, and one setting.
    static var all: QueryKey { QueryKey("items") }
    static func owned(by owner: Int) -> QueryKey { QueryKey("items", "owner", "\(owner)") }
    static var settings: QueryKey { QueryKey("settings") }
    /// Every item again, as a list fetched page after page (two items a page).
    static var pages: QueryKey { QueryKey("items", "pages") }
    static var keys: [QueryKey] { [all, owned(by: 1), owned(by: 2), settings, pages] }
    static var staleTime: Duration { .seconds(5) }
    static var keepUnobservedFor: Duration { .seconds(20) }

    static func declaration(_ key: QueryKey) -> QueryDeclaration {
        let tags: Set<QueryTag> =
            switch key {
            case all: [QueryTag("items"), QueryTag("all")]
            case settings: [QueryTag("settings")]
            case pages: [QueryTag("items"), QueryTag("all"), QueryTag("pages")]
            default: [QueryTag("items"), QueryTag("owner", id: key.path[2])]
            }
        // The setting is worth finishing into the cache when its last observer leaves; lists are not.
        return QueryDeclaration(
            tags: tags, staleTime: staleTime, keepUnobservedFor: keepUnobservedFor,
            callWhenUnobserved: key == settings ? .finishIntoCache : .cancel)
    }

    struct Server {
        var items: [Int: Int] = [1: 1, 2: 2, 3: 1, 4: 2, 5: 1]
        var setting = 0

        /// The page after `list`: the two items that follow its count, as the server has them now.
        func page(after list: [Int]) -> [Int] {
            Array(items.keys.sorted().dropFirst(list.count).prefix(2))
        }

        func value(_ key: QueryKey) -> [Int] {
            switch key {
            case QueryCacheFuzz.settings: [setting]
            case QueryCacheFuzz.all: items.keys.sorted()
            case QueryCacheFuzz.pages: Array(items.keys.sorted().prefix(2))  // a fetch of the list: its first page
            default: items.filter { "\($0.value)" == key.path[2] }.keys.sorted()
            }
        }
    }

    enum MutationKind {
        case add(item: Int, owner: Int)
        case remove(item: Int, owner: Int)
        case set(Int)
    }

    struct Mutation {
        let id: QueryMutationID
        let kind: MutationKind
        let succeeds: Bool
        let invalidates: [QueryInvalidation]
    }

    /// What a next page's call read of the list when it started, for each cache.
    struct PageBase {
        let list: [Int]
        let cacheVersion: UInt64
        let modelWrite: Int
    }

    enum Pending {
        case read(QueryCallID, QueryKey)
        case answer(QueryCallID, QueryKey, [Int]?)
        case readPage(QueryCallID, PageBase)
        case answerPage(QueryCallID, PageBase, [Int]?)
        case reachServer(Mutation)
        case mutationAnswer(Mutation)
    }

    struct Collection {
        let key: QueryKey
        let due: QueryTime
        let stamp: UInt64
        let modelToken: Int
    }

    struct Failure: Error {}

    let seed: UInt64
    var rng: SplitMix64
    var cache = Cache()
    var model = QueryReferenceModel()
    var server = Server()
    var now = QueryTime(sinceOrigin: .zero)
    var observing: [QueryKey: Int] = [:]
    var pending: [Pending] = []
    var collections: [Collection] = []
    var trace: [String] = []
    var step = 0
    var lastID: UInt64 = 0
    var nextItem = 100
    var failureRate = 15

    init(seed: UInt64) {
        self.seed = seed
        rng = SplitMix64(seed: seed)
    }

    /// Plays a round of `steps` random steps, then quiescence; returns the first broken promise.
    static func run(seed: UInt64, steps: Int = 150) -> QueryFuzzViolation? {
        var round = QueryCacheFuzz(seed: seed)
        do {
            for _ in 0..<steps {
                round.step += 1
                try round.randomStep()
            }
            try round.settle()
            return nil
        } catch {
            return error
        }
    }

    func violation(_ message: String) -> QueryFuzzViolation {
        QueryFuzzViolation(seed: seed, step: step, message: message, trace: trace)
    }

    mutating func newID() -> UInt64 {
        lastID += 1
        return lastID
    }

    // MARK: - Steps

    mutating func randomStep() throws(QueryFuzzViolation) {
        let key = Self.keys[rng.int(in: 0...(Self.keys.count - 1))]
        switch rng.int(in: 0...99) {
        case 0..<12: try observe(key)
        case 12..<22: try unobserve()
        case 22..<30: try fetch(key, force: false, why: "prefetch")
        case 30..<38: try fetch(key, force: true, why: "poll")
        case 38..<46: try advance(by: .seconds(rng.int(in: 1...8)))
        case 46..<70: try deliverOne()
        case 70..<76: try nextPage()
        case 76..<88: try mutate()
        case 88..<94: try invalidate()
        case 94..<98: try signal()
        default: try clear()
        }
    }

    /// Applies `action` to the cache and the model, then compares every entry.
    mutating func commit(_ action: any Action, _ label: String) throws(QueryFuzzViolation) {
        trace.append("\(step): \(label)")
        cache.reduce(action)
        model.reduce(action)
        try compare(after: label)
    }

    func compare(after label: String) throws(QueryFuzzViolation) {
        // What a view reads: observers, status and the data shown. (How a cache keeps its confirmed
        // value apart from its optimistic changes is its own business; `QueryCache`'s is compared.)
        let strict = Cache.self == QueryCache.self
        for key in Self.keys
        where !cache.view(key).showsTheSame(as: model.view(key))
            || strict && cache.view(key)?.confirmed != model.view(key)?.confirmed
        {
            throw violation(
                "after \(label), entry \(key) is {\(cache.view(key).map { "\($0)" } ?? "absent")}, "
                    + "the model says {\(model.view(key).map { "\($0)" } ?? "absent")}")
        }
    }

    mutating func observe(_ key: QueryKey) throws(QueryFuzzViolation) {
        observing[key, default: 0] += 1
        try commit(QueryObserved(key: key, declaration: Self.declaration(key), polling: nil), "observe \(key)")
        try fetch(key, force: false, why: "observer")
    }

    mutating func unobserve() throws(QueryFuzzViolation) {
        let observed = Self.keys.filter { observing[$0, default: 0] > 0 }
        guard !observed.isEmpty else { return }
        let key = observed[rng.int(in: 0...(observed.count - 1))]
        observing[key]! -= 1
        try commit(QueryUnobserved(key: key), "unobserve \(key)")
        if let stamp = cache.unobservedStamp(key), let token = model.unobservedAt(key) {
            collections.append(
                Collection(key: key, due: now.advanced(by: Self.keepUnobservedFor), stamp: stamp, modelToken: token))
        }
    }

    /// What the store's shell does for a fetch: asks whether a call is needed, and starts one.
    mutating func fetch(_ key: QueryKey, force: Bool, why: String) throws(QueryFuzzViolation) {
        let needed = cache.needsCall(key, at: now, force: force)
        guard needed == model.needsCall(key, at: now, force: force) else {
            throw violation(
                "\(why) of \(key) at \(now): the cache says a call is \(needed ? "" : "not ")needed, the model the opposite"
            )
        }
        if needed { try startCall(key, why: why) }
    }

    mutating func startCall(_ key: QueryKey, why: String) throws(QueryFuzzViolation) {
        let call = QueryCallID(rawValue: newID())
        try commit(
            QueryCallStarted(key: key, call: call, declaration: Self.declaration(key)),
            "\(call) of \(key) starts (\(why))")
        pending.append(.read(call, key))
    }

    /// What `fetchNextPage` does: a call marked as a next page, which reads the list after its
    /// start's commit (a list never fetched gets a whole fetch instead).
    mutating func nextPage() throws(QueryFuzzViolation) {
        guard let list = cache.view(Self.pages)?.confirmed else {
            return try fetch(Self.pages, force: true, why: "first page")
        }
        // Half the time a refetch of the list is in flight when the next page is asked for, and half
        // of those times it lands first: the page then follows a list that is no longer shown.
        let refetch = rng.int(in: 0...1) == 0
        let pendingBefore = pending.count
        if refetch { try fetch(Self.pages, force: true, why: "poll of the list") }
        let refetchCall = pending.count > pendingBefore ? pending.removeLast() : nil
        let call = QueryCallID(rawValue: newID())
        try commit(
            QueryCallStarted(key: Self.pages, call: call, declaration: Self.declaration(Self.pages), isNextPage: true),
            "\(call) of the page after \(list) starts")
        if let cacheVersion = cache.version(Self.pages), let modelWrite = model.lastWrite(Self.pages) {
            pending.append(.readPage(call, PageBase(list: list, cacheVersion: cacheVersion, modelWrite: modelWrite)))
        }
        guard case .read(let refetchID, let key) = refetchCall else { return }
        if rng.int(in: 0...1) == 0 {
            trace.append("\(step): \(refetchID) reads the server: \(server.value(key)), and lands first")
            try answer(refetchID, key, server.value(key))
        } else {
            pending.append(.read(refetchID, key))
        }
    }

    mutating func advance(by duration: Duration) throws(QueryFuzzViolation) {
        now = now.advanced(by: duration)
        trace.append("\(step): time \(now)")
        let due = collections.filter { $0.due <= now }
        collections.removeAll { $0.due <= now }
        for collection in due {
            trace.append("\(step): collect \(collection.key) if still unobserved")
            cache.reduce(QueryCollected(key: collection.key, unobservedAt: collection.stamp))
            model.collect(collection.key, unobservedAt: collection.modelToken)
            try compare(after: "the collection of \(collection.key)")
        }
    }

    mutating func deliverOne() throws(QueryFuzzViolation) {
        guard !pending.isEmpty else { return }
        let event = pending.remove(at: rng.int(in: 0...(pending.count - 1)))
        switch event {
        case .read(let call, let key):
            let fails = rng.int(in: 0...99) < failureRate
            trace.append("\(step): \(call) reads the server\(fails ? " and will fail" : ": \(server.value(key))")")
            pending.append(.answer(call, key, fails ? nil : server.value(key)))
        case .answer(let call, let key, let value):
            try answer(call, key, value)
        case .readPage(let call, let base):
            let fails = rng.int(in: 0...99) < failureRate
            let page = server.page(after: base.list)
            trace.append("\(step): \(call) reads the page after \(base.list)\(fails ? " and will fail" : ": \(page)")")
            pending.append(.answerPage(call, base, fails ? nil : base.list + page))
        case .answerPage(let call, let base, let value):
            try answer(call, Self.pages, value, extending: base)
        case .reachServer(let mutation):
            switch mutation.kind {
            case .add(let item, let owner): server.items[item] = owner
            case .remove(let item, _): server.items[item] = nil
            case .set(let value): server.setting = value
            }
            trace.append("\(step): \(mutation.id) reaches the server")
            pending.append(.mutationAnswer(mutation))
        case .mutationAnswer(let mutation):
            try mutationAnswered(mutation)
        }
    }

    mutating func answer(_ call: QueryCallID, _ key: QueryKey, _ value: [Int]?, extending base: PageBase? = nil)
        throws(QueryFuzzViolation)
    {
        let applies = model.wouldApply(key, call, extending: base?.modelWrite)
        let before = cache.view(key)
        let answer: QueryAnswered.Answer =
            value.map { .response(QueryValue($0), tags: Self.declaration(key).tags) } ?? .failure(QueryError(Failure()))
        let label = "\(call) of \(key) answers \(value.map { "\($0)" } ?? "an error")"
        trace.append("\(step): \(label)")
        cache.reduce(QueryAnswered(key: key, call: call, answer: answer, at: now, extends: base?.cacheVersion))
        model.answer(QueryAnswered(key: key, call: call, answer: answer, at: now), extending: base?.modelWrite)
        let after = cache.view(key)
        if !applies,
            after?.confirmed != before?.confirmed || after?.status != before?.status && after?.status == .failed
        {
            if let base {
                throw violation(
                    "promise 5 broken: \(label), a page of the list \(base.list), but the list was replaced since "
                        + "(or cleared), and the page was appended: the entry went from "
                        + "{\(before.map { "\($0)" } ?? "absent")} to {\(after.map { "\($0)" } ?? "absent")}")
            }
            throw violation(
                "promise 1 broken: \(label), but something newer was written to \(key) after that call started "
                    + "(or the entry was cleared), and the answer was applied: the entry went from "
                    + "{\(before.map { "\($0)" } ?? "absent")} to {\(after.map { "\($0)" } ?? "absent")}")
        }
        try compare(after: label)
    }

    func patches(_ kind: MutationKind) -> [QueryPatch] {
        switch kind {
        case .add(let item, let owner):
            [Self.all, Self.owned(by: owner)].map { key in
                QueryPatch(key, as: [Int].self) { items in items = (items + [item]).sorted() }
            }
        case .remove(let item, let owner):
            [Self.all, Self.owned(by: owner)].map { key in
                QueryPatch(key, as: [Int].self) { items in items.removeAll { $0 == item } }
            }
        case .set(let value):
            [QueryPatch(Self.settings, as: [Int].self) { setting in setting = [value] }]
        }
    }

    /// Whether `visible` shows the effect of `kind`, as the top layer must.
    func shows(_ kind: MutationKind, _ visible: [Int], on key: QueryKey) -> Bool {
        switch kind {
        case .add(let item, _): visible.contains(item)
        case .remove(let item, _): !visible.contains(item)
        case .set(let value): visible == [value]
        }
    }

    mutating func mutate() throws(QueryFuzzViolation) {
        let kind: MutationKind
        let invalidates: [QueryInvalidation]
        switch rng.int(in: 0...2) {
        case 0 where !server.items.isEmpty:
            let item = server.items.keys.sorted()[rng.int(in: 0...(server.items.count - 1))]
            kind = .remove(item: item, owner: server.items[item]!)
        case 0, 1:
            nextItem += 1
            kind = .add(item: nextItem, owner: rng.int(in: 1...2))
        default:
            kind = .set(rng.int(in: 0...99))
        }
        switch kind {
        case .add(_, let owner), .remove(_, let owner):
            invalidates =
                [
                    [.tag(QueryTag("items"))], [.keyPrefix(QueryKey("items"))],
                    [.tag(QueryTag("all")), .tag(QueryTag("owner", id: "\(owner)"))],
                ][rng.int(in: 0...2)]
        case .set:
            invalidates = [[.tag(QueryTag("settings"))], [.keyPrefix(Self.settings)]][rng.int(in: 0...1)]
        }
        let mutation = Mutation(
            id: QueryMutationID(rawValue: newID()), kind: kind, succeeds: rng.int(in: 0...3) > 0,
            invalidates: invalidates)
        let patches = patches(kind)
        try commit(
            QueryOptimisticChangeAdded(mutation: mutation.id, patches: patches),
            "\(mutation.id) \(kind) (will \(mutation.succeeds ? "succeed" : "fail")): optimistic change added")
        for patch in patches {
            guard let visible = cache.view(patch.key)?.visible else { continue }
            if !shows(kind, visible, on: patch.key) {
                throw violation(
                    "promise 2 broken: the optimistic change of \(mutation.id) (\(kind)) is not visible on \(patch.key) "
                        + "at the commit that adds it: it shows \(visible)")
            }
        }
        pending.append(mutation.succeeds ? .reachServer(mutation) : .mutationAnswer(mutation))
    }

    mutating func mutationAnswered(_ mutation: Mutation) throws(QueryFuzzViolation) {
        guard mutation.succeeds else {
            let label = "\(mutation.id) failed: rolled back"
            trace.append("\(step): \(label)")
            cache.reduce(QueryMutationFailed(mutation: mutation.id))
            model.reduce(QueryMutationFailed(mutation: mutation.id))
            for key in Self.keys where cache.view(key)?.visible != model.view(key)?.visible {
                throw violation(
                    "promise 3 broken: after the rollback of \(mutation.id), \(key) shows "
                        + "\(cache.view(key)?.visible.map { "\($0)" } ?? "nothing"); with exactly its change removed "
                        + "(other changes and answers kept) it would show \(model.view(key)?.visible.map { "\($0)" } ?? "nothing")"
                )
            }
            try compare(after: label)
            return
        }
        try commit(
            QueryMutationSucceeded(mutation: mutation.id, invalidates: mutation.invalidates),
            "\(mutation.id) succeeded, invalidating \(mutation.invalidates)")
        try refetchInvalidated(after: "the success of \(mutation.id)")
    }

    /// What the mutation's graph does after its commit: refetch the observed entries it invalidated.
    mutating func refetchInvalidated(after what: String) throws(QueryFuzzViolation) {
        let keys = cache.keysToRefetch()
        guard keys == model.keysToRefetch() else {
            throw violation(
                "promise 4 broken: after \(what), the cache refetches \(keys), the model says \(model.keysToRefetch())")
        }
        for key in keys { try startCall(key, why: "refetch after \(what)") }
    }

    mutating func invalidate() throws(QueryFuzzViolation) {
        let invalidation: QueryInvalidation =
            switch rng.int(in: 0...3) {
            case 0: .tag(QueryTag("items"))
            case 1: .tag(QueryTag("owner", id: "\(rng.int(in: 1...2))"))
            case 2: .keyPrefix(QueryKey("items", "owner"))
            default: .keyPrefix(Self.settings)
            }
        try commit(QueryInvalidated([invalidation]), "invalidate \(invalidation)")
        try refetchInvalidated(after: "invalidating \(invalidation)")
    }

    mutating func signal() throws(QueryFuzzViolation) {
        let keys = cache.keysStale(at: now)
        guard keys == model.keysStale(at: now) else {
            throw violation(
                "at the app's signal, the cache refetches \(keys), the model says \(model.keysStale(at: now))")
        }
        for key in keys { try startCall(key, why: "app signal") }
    }

    mutating func clear() throws(QueryFuzzViolation) {
        try commit(QueryCacheCleared(), "clear everything")
    }

    /// Lets every call and mutation land (calls no longer fail), signals until nothing observed is
    /// stale, then checks that each observed entry shows the server's value.
    mutating func settle() throws(QueryFuzzViolation) {
        failureRate = 0
        trace.append("quiescence")
        for _ in 0..<100 {
            while !pending.isEmpty { try deliverOne() }
            if cache.keysStale(at: now).isEmpty { break }
            try signal()
        }
        for key in Self.keys where observing[key, default: 0] > 0 {
            let view = cache.view(key)
            // A list shows its first page and any pages fetched after it: a prefix of every item.
            let expected =
                key == Self.pages
                ? server.value(Self.all).prefix(max(2, view?.visible?.count ?? 0)).map { $0 } : server.value(key)
            guard view?.visible == expected, view?.status == .succeeded else {
                throw violation(
                    "at quiescence the observed entry \(key) is {\(view.map { "\($0)" } ?? "absent")}, "
                        + "but the server has \(expected)")
            }
        }
    }
}
