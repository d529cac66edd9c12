import OresRedux
import OresReduxLive

// The live inspector: how many steps a live session takes from a page's "Dispatch again" to the
// update a page is sent, the rate past which a client that dispatches is answered 429 and a page
// that stops reading falls behind (the guide "Watching a Running App" quotes it). The server's
// sockets are left out: the session's own work, as the server's thread and the commands' queue do it.

/// A small state: what a page's dispatch changes.
struct LiveTally: Sendable {
    var total = 0
}

/// What the page dispatches again: registered, so it goes through the registry's JSON and back.
struct AddToTally: Action, Codable {
    var amount: Int
}

let liveTallyReducer = Reducer<LiveTally>.on(AddToTally.self) { state, action in state.total += action.amount }

func benchLive(_ report: Report, budget: Budget) async {
    report.section("The live inspector: a page's dispatch, described and sent to a page (time per step)")
    var options = LiveInspectorOptions()
    options.printsURL = false
    let live: LiveInspector<LiveTally>
    do {
        live = try LiveInspector<LiveTally>(registry: ActionCodingRegistry(AddToTally.self), options: options)
    } catch {
        print("live: cannot measure: \(error)")
        return
    }
    defer { live.stop() }
    let store = live.makeStore(initialState: LiveTally(), reducer: liveTallyReducer)
    store.dispatch(AddToTally(amount: 1))
    let plain = Store(initialState: LiveTally(), reducer: liveTallyReducer)
    let add = opaque(AddToTally(amount: 1))
    var cursor = InspectorLiveCursor(after: 0)

    let session = report.add(
        await comparePaired(
            "live", "dispatch again, described, sent to a page", baseline: "store.dispatch, no inspector",
            budget: budget,
            ours: { ops in
                for _ in 0..<ops {
                    // The newest step is always among those kept for dispatching again.
                    do {
                        try live.dispatchAgain(step: live.recorder.newestQueuedStepNumber)
                    } catch {
                        fatalError("live: \(error)")
                    }
                }
                while let update = live.recorder.liveUpdate(after: &cursor, limit: 500) {
                    blackhole(update.json.utf8.count)
                }
            },
            baseline: { ops in for _ in 0..<ops { plain.dispatch(add) } }))
    report.add(
        GuardRecord(
            scenario: "live: steps a session describes and sends a second",
            value: formatCount(Int((1e9 / max(1, session.ours.median)).rounded())),
            note: "one over the time per step above"))
}
