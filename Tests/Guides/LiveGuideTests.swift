import Foundation
import OresRedux
import OresReduxLive
import Testing

// The snippets of OresReduxLive/OresReduxLive.docc/WatchingARunningApp.md (and the catalog's landing
// page). The time-travel semantics it states are LiveInspectorTests.jumpLeavesRunsRunning.

extension GuideApp {
    @Suite("Guide: Watching a Running App")
    struct WatchingARunningAppGuide {
        static let analytics = Middleware<AppState> { action, _, next in next(action) }

        @Test("WatchingARunningApp guide: one call, the URL, the commands from Swift")
        func oneCall() throws {
            let live = try LiveInspector<AppState>(
                registry: ActionCodingRegistry(Increment.self, ShowBanner.self))  // what the page may dispatch again
            defer { live.stop() }
            let store = live.makeStore(initialState: AppState(), reducer: appReducer, middleware: [Self.analytics])

            #expect(live.url.absoluteString.hasPrefix("http://127.0.0.1:"))
            #expect(live.url.query?.hasPrefix("token=") == true)
            store.dispatch(Increment(amount: 1))
            store.dispatch(ShowBanner(message: "offline"))
            store.dispatch(Increment(amount: 2))

            try live.jump(toStep: 3)  // the state after step 3; 0 is the initial state
            try live.dispatchAgain(step: 2)  // through the registry's coding, on this thread
            live.pauseRecording()
            store.dispatch(Increment(amount: 5))
            live.resumeRecording()

            #expect(store.state.count == 8 && store.state.banner == "offline")
            #expect(
                live.recorder.recording.actionTypes == [
                    "Increment", "ShowBanner", "Increment", "JumpedToStep", "ShowBanner", "RecordingResumed",
                ])
        }

        @Test("WatchingARunningApp guide: a device names its address and a fixed port")
        func device() throws {
            var options = LiveInspectorOptions()
            options.address = "127.0.0.1"  // the guide: the device's Wi-Fi address
            options.port = 0  // the guide: a fixed port, easier to type
            options.printsURL = false
            let live = try LiveInspector<AppState>(options: options)
            defer { live.stop() }
            #expect(live.url.host == "127.0.0.1")

            var taken = LiveInspectorOptions()
            taken.printsURL = false
            taken.port = UInt16(live.url.port ?? 0)
            #expect(throws: LiveInspectorError.self, "a port in use is a clear error") {
                _ = try LiveInspector<AppState>(options: taken)
            }
            var nowhere = LiveInspectorOptions()
            nowhere.address = "not an address"
            #expect(throws: LiveInspectorError.self) { _ = try LiveInspector<AppState>(options: nowhere) }
        }
    }
}
