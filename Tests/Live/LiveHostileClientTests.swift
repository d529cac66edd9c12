#if os(Linux) || os(macOS)
    import Foundation
    import OresRedux
    import OresReduxLive
    import Testing

    @testable import OresReduxLive

    /// Hostile clients from Python sockets (Tests/Live/hostile-clients.py) against a live inspector
    /// with small limits: each is refused with a clear status, and the app, the recorder and the
    /// server's memory are fine afterwards. Nothing it checks depends on the host's cores, speed or
    /// socket buffers: the script waits for the server's own counts, under deadlines.
    @Suite("Live inspector: hostile clients")
    struct LiveHostileClientTests {
        static let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

        @Test(
            "no token, wrong token, huge headers, slowloris, 1,000 connections, garbage, rebinding, foreign Origin, other media types, slow clients holding every slot, a slow stream",
            .enabled(if: python != nil, "needs python3"))
        func hostileClients() async throws {
            var options = LiveInspectorOptions()
            options.printsURL = false
            options.maximumConnections = 32
            options.requestTimeout = .seconds(1)
            // Longer than the script's flood may take, so the never-reading stream is dropped for
            // falling behind, not closed for not reading.
            options.writeTimeout = .seconds(180)
            options.maximumStreamQueueBytes = 16_384
            options.maximumStreamLag = 200
            let live = try LiveInspector<LiveCounter>(registry: ActionCodingRegistry(LiveAdd.self), options: options)
            defer { live.stop() }
            let store = live.makeStore(initialState: LiveCounter(), reducer: liveCounterReducer)
            store.dispatch(LiveAdd(amount: 1))

            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "hostile-clients.py")
            let output = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hostile-clients-\(UUID().uuidString).log")
            defer { try? FileManager.default.removeItem(at: output) }
            let process = try ChildProcess(
                [try #require(Self.python), script.path, live.url.absoluteString, "1", "16384", "32", "1"],
                output: output.path)
            let status: ChildProcess.Status
            do {
                // A bound on a hang, well above the script's own deadlines: a sanitized run on a
                // loaded machine takes minutes.
                status = try await withDeadline(900, "the hostile clients script") {
                    await onThread { process.waitForExit() }
                }
            } catch {
                process.kill()
                throw error
            }
            let report = (try? String(contentsOf: output, encoding: .utf8)) ?? "(no output)"
            print(report)
            #expect(status == .exited(0), "\(report)")

            // The app and the recorder kept working, and the server holds what its limits allow.
            let before = live.recorder.recording.stepCount
            store.dispatch(LiveAdd(amount: 1))
            #expect(live.recorder.recording.stepCount == before + 1)
            #expect(before > 200, "the flood of dispatches went through the store")
            let statistics = live.serverStatistics
            #expect(statistics.connections <= options.maximumConnections)
            #expect(statistics.largestConnections <= options.maximumConnections)
            #expect(statistics.largestQueuedBytes <= options.maximumStreamQueueBytes + 256 * 1_024)
            #expect(statistics.droppedStreams >= 1)
            #expect(statistics.evicted >= 1, "slow requests made room for newer connections")
            for code in [400, 401, 403, 408, 413, 415, 431, 501, 503] {
                #expect((statistics.refused[code] ?? 0) > 0, "refused with \(code)")
            }
        }
    }
#endif
