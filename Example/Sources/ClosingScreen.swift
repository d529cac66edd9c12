import OresRedux

/// Scenario 6: the user closes the log-in screen while the profile and the feed load. The screen
/// dispatched its graph under an owner, so closing it ends the work: the feed's call is cancelled and
/// home is never shown. The profile is shown in the app's header too, so the graph lets it finish and
/// be applied as if the screen were still there (`.finishWithDependents`).
@MainActor
func closingScreenScenario(api: any API) async -> Bool {
    print("\n== 6. The user closes the screen mid-chain: the feed is cancelled, the profile finishes")
    var dependencies = Dependencies()
    dependencies.api = api
    let store = Store(
        initialState: AppState(), reducer: appReducer, options: StoreOptions(dependencies: dependencies))
    let controller = HomeController(store: store)
    var login = controller.logInGraph(user: "ada", password: "lovelace")
    login.graph.setOwnerEndPolicy(.finishWithDependents, for: login.profile)

    let screen = store.makeOwner("Log-in screen")
    let run = screen.dispatch(login.graph)
    _ = try? await run.value(of: login.session)
    print("        (the user closes the screen: screen.end())")
    screen.end()
    let report = await run.wait()
    print(report.description.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))

    let state = store.state
    let asExpected =
        report[login.feed].outcome == .cancelled && report[login.home].outcome == .cancelled
        && report[login.profile].outcome == .succeeded && state.profile != nil && state.feed.isEmpty
    print("        the header shows \(state.profile?.name ?? "nobody"); the feed was never loaded")
    if !asExpected { print("!! scenario 6 did not end as expected") }
    return asExpected
}
