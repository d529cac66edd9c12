import OresRedux
import Testing

/// `combine` sends each action only to the parts that can handle it, found by the action's type:
/// these tests pin down that what reaches the state is exactly what applying every part in order
/// would give, whatever mix of `on` cases, plain reducers, nested combines, scopes and class
/// actions the reducer is made of.
@Suite struct ReducerCombineLookup {
    struct First: Action { var tag = "" }
    struct Second: Action {}
    struct Neither: Action {}
    enum Mode: Action { case on, off }

    // Why this is safe to share: its one stored property is a `let` String; the class is open only
    // so that a subclass can stand for it in `on`.
    class Notice: Action, @unchecked Sendable {
        let text: String
        init(text: String) { self.text = text }
    }
    // Why this is safe to share: it adds nothing to `Notice`, whose only stored property is a `let`.
    final class UrgentNotice: Notice, @unchecked Sendable {}

    /// `log` collects the name of every part an action meets.
    static func part(_ name: String) -> Reducer<[String]> {
        Reducer { log, _ in log.append(name) }
    }

    static func on<A: Action>(_ type: A.Type, _ name: String) -> Reducer<[String]> {
        .on(type) { log, _ in log.append(name) }
    }

    static func log(_ reducer: Reducer<[String]>, _ action: any Action) -> [String] {
        var log: [String] = []
        reducer(&log, action)
        return log
    }

    @Test func eachActionMeetsItsOwnCasesAndEveryPlainReducerInTheOrderGiven() {
        let reducer = Reducer<[String]>.combine(
            Self.on(First.self, "first 1"),
            Self.part("any 1"),
            Self.on(Second.self, "second"),
            Self.on(First.self, "first 2"),
            Self.part("any 2")
        )

        #expect(Self.log(reducer, First()) == ["first 1", "any 1", "first 2", "any 2"])
        #expect(Self.log(reducer, Second()) == ["any 1", "second", "any 2"])
        #expect(Self.log(reducer, Neither()) == ["any 1", "any 2"])
    }

    @Test func anActionTypeHandledBySeveralCasesMeetsEachOnceInOrder() {
        let reducer = Reducer<[String]>.combine(
            .on(First.self) { log, action in log.append("a \(action.tag)") },
            Self.on(Second.self, "second"),
            .on(First.self) { log, action in log.append("b \(action.tag)") },
            .on(First.self) { log, action in log.append("c \(action.tag)") }
        )

        #expect(Self.log(reducer, First(tag: "x")) == ["a x", "b x", "c x"])
        #expect(Self.log(reducer, Second()) == ["second"])
    }

    @Test func onlyOnCasesLeaveAnUnknownActionAlone() {
        let reducer = Reducer<[String]>.combine(Self.on(First.self, "first"), Self.on(Second.self, "second"))

        #expect(Self.log(reducer, Neither()).isEmpty)
        #expect(Self.log(reducer, Mode.on).isEmpty)
    }

    @Test func enumActionsAreLookedUpLikeStructs() {
        let reducer = Reducer<[String]>.combine(
            .on(Mode.self) { log, mode in log.append(mode == .on ? "mode on" : "mode off") },
            Self.on(First.self, "first")
        )

        #expect(Self.log(reducer, Mode.off) == ["mode off"])
        #expect(Self.log(reducer, First()) == ["first"])
    }

    @Test func aNestedCombineKeepsItsPlaceInTheOrder() {
        let inner = Reducer<[String]>.combine(
            Self.on(Second.self, "inner second"),
            Self.part("inner any"),
            Self.on(First.self, "inner first")
        )
        let outer = Reducer<[String]>.combine(
            Self.on(First.self, "outer first"),
            inner,
            Self.on(First.self, "last first"),
            .combine(Self.part("nested any"), .combine(Self.on(Second.self, "deep second")))
        )

        #expect(Self.log(outer, First()) == ["outer first", "inner any", "inner first", "last first", "nested any"])
        #expect(Self.log(outer, Second()) == ["inner second", "inner any", "nested any", "deep second"])
        #expect(Self.log(outer, Neither()) == ["inner any", "nested any"])
        // Combining it elsewhere leaves the inner reducer as it was.
        #expect(Self.log(inner, First()) == ["inner any", "inner first"])
    }

    struct Screen: Sendable {
        var log: [String] = []
        var detail: [String] = []
        var sheet: [String]?
    }

    @Test func aScopeIsAppliedInItsPlaceAndSeesEveryAction() {
        let reducer = Reducer<Screen>.combine(
            .on(First.self) { screen, _ in screen.log.append("first") },
            .scope(\.detail, .combine(Self.on(First.self, "detail first"), Self.on(Second.self, "detail second"))),
            .scope(\.sheet, Self.on(First.self, "sheet first")),
            .on(First.self) { screen, _ in
                // Runs after the scopes: it sees what they did.
                screen.log.append("after \(screen.detail.count) detail lines")
            }
        )
        var screen = Screen()

        reducer(&screen, First())
        reducer(&screen, Second())
        screen.sheet = []
        reducer(&screen, First())

        #expect(screen.log == ["first", "after 1 detail lines", "first", "after 3 detail lines"])
        #expect(screen.detail == ["detail first", "detail second", "detail first"])
        #expect(screen.sheet == ["sheet first"])
    }

    @Test func aClassActionMeetsTheCasesForItsClassAndEverySuperclass() {
        let reducer = Reducer<[String]>.combine(
            .on(Notice.self) { log, notice in log.append("notice: \(notice.text)") },
            Self.on(First.self, "first"),
            .on(UrgentNotice.self) { log, notice in log.append("urgent: \(notice.text)") },
            Self.part("any")
        )
        let erasedAtItsSuperclass: Notice = UrgentNotice(text: "flood")

        #expect(Self.log(reducer, UrgentNotice(text: "fire")) == ["notice: fire", "urgent: fire", "any"])
        #expect(Self.log(reducer, erasedAtItsSuperclass) == ["notice: flood", "urgent: flood", "any"])
        #expect(Self.log(reducer, Notice(text: "lunch")) == ["notice: lunch", "any"])
        #expect(Self.log(reducer, First()) == ["first", "any"])
    }

    /// Distinct types from generic arguments, enough to fill a lookup table with collisions.
    struct Pair<Left, Right>: Action {}
    enum T0 {}
    enum T1 {}
    enum T2 {}
    enum T3 {}
    enum T4 {}
    enum T5 {}

    @Test func manyActionTypesEachReachOnlyTheirOwnCase() {
        let actions: [any Action] = [
            Pair<T0, T0>(), Pair<T0, T1>(), Pair<T0, T2>(), Pair<T0, T3>(), Pair<T0, T4>(), Pair<T0, T5>(),
            Pair<T1, T0>(), Pair<T1, T1>(), Pair<T1, T2>(), Pair<T1, T3>(), Pair<T1, T4>(), Pair<T1, T5>(),
            Pair<T2, T0>(), Pair<T2, T1>(), Pair<T2, T2>(), Pair<T2, T3>(), Pair<T2, T4>(), Pair<T2, T5>(),
            Pair<T3, T0>(), Pair<T3, T1>(), Pair<T3, T2>(), Pair<T3, T3>(), Pair<T3, T4>(), Pair<T3, T5>(),
            Pair<T4, T0>(), Pair<T4, T1>(), Pair<T4, T2>(), Pair<T4, T3>(), Pair<T4, T4>(), Pair<T4, T5>(),
            Pair<T5, T0>(), Pair<T5, T1>(), Pair<T5, T2>(), Pair<T5, T3>(), Pair<T5, T4>(), Pair<T5, T5>(),
        ]
        func on(_ action: some Action, _ index: Int) -> Reducer<[String]> {
            Self.on(type(of: action), "case \(index)")
        }
        let reducer = Reducer<[String]>.combine(actions.enumerated().map { index, action in on(action, index) })

        for (index, action) in actions.enumerated() {
            #expect(Self.log(reducer, action) == ["case \(index)"])
        }
        #expect(Self.log(reducer, Pair<Int, Int>()).isEmpty)
    }

    @Test func aCombinedReducerBehavesLikeItsPartsAppliedOneAfterAnother() {
        let parts: [Reducer<[String]>] = [
            Self.on(First.self, "first"), Self.part("any"), Self.on(Mode.self, "mode"),
            .on(Notice.self) { log, _ in log.append("notice") }, Self.on(First.self, "first again"),
            .combine(Self.on(Second.self, "second"), Self.part("inner any")),
        ]
        let combined = Reducer.combine(parts)
        let actions: [any Action] = [First(), Second(), Neither(), Mode.on, Notice(text: "n"), UrgentNotice(text: "u")]

        for action in actions {
            var oneByOne: [String] = []
            for part in parts { part(&oneByOne, action) }
            #expect(Self.log(combined, action) == oneByOne, "\(type(of: action))")
        }
    }
}
