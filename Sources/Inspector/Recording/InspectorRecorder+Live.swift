// What the live inspector (the OresReduxLive library) reads from a recorder and the page: `package`
// API, not public, so the live server stays a product of its own that a release build leaves out.

extension InspectorRecorder {
    /// Calls `body` with the number of each step as it is appended (when the batch of described
    /// steps it is in lands, on the worker or a reader, not on the dispatching thread), and whether it
    /// only marks where another store begins. It is called under the recorder's lock, in step order;
    /// steps dropped past the bound before they were described are skipped. It must only note the
    /// number and return (take no lock that is held while calling into the recorder).
    package func observeSteps(_ body: @escaping @Sendable (_ number: Int, _ startsStore: Bool) -> Void) {
        storage.withLock { $0.stepObserver = body }
    }

    /// The number of the newest described step (0 before the first): the newest a page can be sent.
    package var newestStepNumber: Int {
        storage.withLock { $0.stepCount }
    }

    /// The number of the newest step queued, described or not (0 before the first): right after the
    /// middleware returns, the number of the step it queued.
    package var newestQueuedStepNumber: Int {
        storage.withLock { $0.enqueued }
    }

    /// The whole page as the live server first serves it: the recording so far, with `liveScript`
    /// run before the page's own script and `connect-src 'self'` added to its policy.
    package func liveHTML(title: String, liveScript: String) -> String {
        let recording = self.recording
        return InspectorPage.html(
            title: title, dataJSON: recording.dataJSON(title: title), liveScript: liveScript)
    }

    /// What a page that has seen what `cursor` says must see next, as one line of JSON, or `nil` when
    /// nothing changed: at most `limit` steps after `cursor.lastStep`, and the runs and async actions
    /// that are new or changed since the cursor last saw them. The lock is held only to copy them.
    ///
    /// The JSON is `{"steps": [...], "runs": [...], "asyncActions": [...], "missed": n,
    /// "droppedSteps": n, "stores": n, "newest": n}`, with steps, runs and async actions in the
    /// page's own shapes; `missed` counts steps the recorder dropped (past its bound) before this
    /// cursor saw them.
    package func liveUpdate(after cursor: inout InspectorLiveCursor, limit: Int) -> InspectorLiveUpdate? {
        // Every step queued before the call is described first, as for `recording`.
        storage.drainQueued()
        let copied = storage.withLock { storage in
            let kept = storage.steps.count - storage.firstKept
            let firstNumber = storage.stepCount - kept + 1
            let cleared = cursor.lastStep > storage.stepCount
            let after = cleared ? 0 : cursor.lastStep
            let start = max(after + 1, firstNumber)
            let from = storage.firstKept + (start - firstNumber)
            let to = min(storage.steps.count, from + max(1, limit))
            let steps = from < to ? Array(storage.steps[from..<to]) : []
            var runs: [(key: UInt64, fingerprint: Int, run: InspectorRun)] = []
            for (key, run) in storage.runs {
                let fingerprint = Self.fingerprint(run)
                if cursor.runs[key] != fingerprint { runs.append((key, fingerprint, run)) }
            }
            var actions: [(key: UInt64, fingerprint: Int, action: InspectorAsyncAction)] = []
            for (key, action) in storage.asyncActions {
                let fingerprint = action.end == nil ? 1 : 2
                if cursor.asyncActions[key] != fingerprint { actions.append((key, fingerprint, action)) }
            }
            return (
                steps: steps, runs: runs, actions: actions, missed: max(0, start - after - 1), cleared: cleared,
                dropped: storage.stepCount - kept, stores: max(1, storage.store), newest: storage.stepCount
            )
        }
        if copied.cleared { cursor = InspectorLiveCursor(after: 0) }
        guard !copied.steps.isEmpty || !copied.runs.isEmpty || !copied.actions.isEmpty || copied.missed > 0 else {
            return nil
        }
        for step in copied.steps {
            cursor.lastStep = step.number
            InspectorRecording.noteRelease(of: step, in: &cursor.released)
        }
        if copied.steps.isEmpty && copied.missed > 0 { cursor.lastStep = copied.newest }
        // The released map grows with the steps that came from runs; forget the oldest half now and then.
        if cursor.released.count > 20_000 {
            let cut = cursor.lastStep - 10_000
            cursor.released = cursor.released.filter { $0.value > cut }
        }
        var json = JSONText()
        json.object { update in
            update.field("steps") { json in
                json.array(copied.steps) { json, step in InspectorRecording.write(step, into: &json) }
            }
            update.field("runs") { json in
                json.array(copied.runs.sorted { InspectorStart.isOrdered($0.run.start, before: $1.run.start) }) {
                    json, entry in
                    InspectorRecording.write(entry.run, released: cursor.released, into: &json)
                }
            }
            update.field("asyncActions") { json in
                json.array(copied.actions.sorted { $0.key < $1.key }) { json, entry in
                    InspectorRecording.write(entry.action, into: &json)
                }
            }
            update.field("missed") { $0.number(copied.missed) }
            update.field("cleared") { $0.raw(copied.cleared ? "true" : "false") }
            update.field("droppedSteps") { $0.number(copied.dropped) }
            update.field("stores") { $0.number(copied.stores) }
            update.field("newest") { $0.number(copied.newest) }
        }
        for entry in copied.runs { cursor.runs[entry.key] = entry.fingerprint }
        for entry in copied.actions { cursor.asyncActions[entry.key] = entry.fingerprint }
        return InspectorLiveUpdate(
            json: json.text, steps: copied.steps.count, missed: copied.missed, newest: copied.newest)
    }

    /// Changes whenever a run gains an attempt or an end, or finishes.
    private static func fingerprint(_ run: InspectorRun) -> Int {
        var value = run.finishAt.map { $0 + 1 } ?? 0
        for node in run.nodes {
            value = value &* 31 &+ node.attempts.count &* 2 &+ (node.end == nil ? 0 : 1)
        }
        return value
    }
}

/// How far one live page has seen the recording: its last step, and each run's and async action's
/// state when it was last sent.
package struct InspectorLiveCursor: Sendable {
    /// The number of the last step sent (0: none).
    package var lastStep: Int
    var runs: [UInt64: Int] = [:]
    var asyncActions: [UInt64: Int] = [:]
    var released: [String: Int] = [:]

    /// A cursor for a page that has every step up to `after` and no run yet.
    package init(after: Int) {
        lastStep = max(0, after)
    }
}

/// One update for a live page (see `InspectorRecorder.liveUpdate(after:limit:)`).
package struct InspectorLiveUpdate: Sendable {
    /// One line of JSON.
    package let json: String
    /// How many steps it carries.
    package let steps: Int
    /// Steps the recorder dropped before the page could be sent them.
    package let missed: Int
    /// The newest step's number when it was made.
    package let newest: Int
}

extension Middleware {
    /// Runs this middleware's body: for a middleware that wraps another (the live inspector's pause).
    package func run(_ action: any Action, _ context: ActionContext<State>, _ next: (any Action) -> Void) {
        body(action, context, next)
    }
}
