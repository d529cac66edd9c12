import Testing

@testable import OresRedux

struct Inc: Action { var by = 1 }
struct Fetch: AsyncAction { let n: Int; func run(_ c: ActionContext<Int>) async throws -> Int { n * 10 } }
struct Boom: AsyncAction { struct E: Error {}; func run(_ c: ActionContext<Int>) async throws -> Int { throw E() } }
struct SetTo: Action { let v: Int }

@Test func smoke() async throws {
    let store = Store(initialState: 0, reducer: .combine(.on(Inc.self) { $0 += $1.by }, .on(SetTo.self) { $0 = $1.v }))
    var seen: [Int] = []
    let lock = LockedValue<[Int]>([])
    let sub = store.subscribe { s in lock.withLock { $0.append(s) } }
    store.dispatch(Inc())
    store.dispatch(Inc(by: 2))
    #expect(store.state == 3)
    let v = try await withDeadline(10, "Fetch") { try await store.dispatch(Fetch(n: 4)).value }
    #expect(v == 40)
    var g = ActionGraph<Int>()
    let a = g.run(Fetch(n: 1))
    let b = g.run(Fetch(n: 2))
    let c = g.send(after: a, b) { x, y in SetTo(v: x + y) }
    let f = g.run(Boom())
    let d = g.send(SetTo(v: 999), after: f)
    g.setFallback(for: f) { _ in SetTo(v: -1) }
    let run = store.dispatch(g)
    let report = try await withDeadline { await run.wait() }
    print(report)
    #expect(try await withDeadline(10, "the value of b") { try await run.value(of: b) } == 20)
    #expect(try await withDeadline(10, "the outcome of c") { await run.outcome(of: c) }.kind == .succeeded)
    #expect(try await withDeadline(10, "the outcome of d") { await run.outcome(of: d) }.kind == .skipped)
    seen = lock.withLock { $0 }
    print(seen)
    #expect(store.state == 30 || store.state == -1)
    sub.cancel()
}
