import Foundation

/// What an ``InspectorRecorder`` recorded: the steps (each action that reached the reducer and the
/// change it made), the graph runs and the async actions. Write it as a page with
/// ``writeHTML(to:title:)``, export it for Redux DevTools with ``reduxDevToolsJSON()``, or turn it
/// into a `TestStore` test with ``generatedTest(named:reducer:initialState:graph:)``.
///
/// Steps are numbered from 1 in the order they reached the reducer, counting the steps dropped
/// past ``InspectorOptions/maximumSteps``.
public struct InspectorRecording: Sendable {
    let stateType: String
    /// The state before the first step kept.
    let base: InspectorValue
    let steps: [InspectorStep]
    /// Steps dropped, oldest first, to keep the recording within its bound.
    public let droppedSteps: Int
    let maximumSteps: Int
    let runs: [InspectorRun]
    let asyncActions: [InspectorAsyncAction]
    let droppedRuns: Int
    let droppedAsyncActions: Int

    /// How many steps the recording keeps.
    public var stepCount: Int { steps.count }

    /// How many graph runs it keeps.
    public var runCount: Int { runs.count }

    /// How many async actions dispatched on their own it keeps.
    public var asyncActionCount: Int { asyncActions.count }

    /// The type name of each step's action, in order.
    public var actionTypes: [String] { steps.map(\.actionType) }

    /// The state after each step kept, described (the first element is the state before them).
    var states: [InspectorValue] {
        var state = base
        var all = [state]
        for step in steps {
            step.patch.apply(to: &state)
            all.append(state)
        }
        return all
    }

    // MARK: The page

    /// The recording as one self-contained HTML page: the data embedded as JSON, every script and
    /// style inline, and a Content-Security-Policy that forbids every network source, so it opens
    /// from disk in any current browser with no server, no extension and no request of any kind.
    /// Every recorded string is shown as text, never as markup.
    /// - Parameter title: the page's title.
    public func html(title: String = "OresRedux recording") -> String {
        InspectorPage.html(title: title, dataJSON: dataJSON(title: title))
    }

    /// Writes ``html(title:)`` to `url`, replacing what is there.
    public func writeHTML(to url: URL, title: String = "OresRedux recording") throws {
        try Data(html(title: title).utf8).write(to: url, options: .atomic)
    }

    /// The data the page shows, as JSON safe to embed in a `<script>` element.
    func dataJSON(title: String) -> String {
        let released = releasedSteps()
        var json = JSONText()
        json.object { page in
            page.field("format") { $0.string("oresredux-inspector") }
            page.field("version") { $0.number(1) }
            page.field("title") { $0.string(title) }
            page.field("stateType") { $0.string(stateType) }
            page.field("stores") { $0.number(max(1, (steps.map(\.store) + runs.map(\.start.store)).max() ?? 1)) }
            page.field("maximumSteps") { $0.number(maximumSteps) }
            page.field("droppedSteps") { $0.number(droppedSteps) }
            page.field("droppedRuns") { $0.number(droppedRuns) }
            page.field("droppedAsyncActions") { $0.number(droppedAsyncActions) }
            page.field("initial") { $0.value(base) }
            page.field("steps") { json in
                json.array(steps) { json, step in Self.write(step, into: &json) }
            }
            page.field("runs") { json in
                json.array(runs) { json, run in Self.write(run, released: released, into: &json) }
            }
            page.field("asyncActions") { json in
                json.array(asyncActions) { json, action in Self.write(action, into: &json) }
            }
            page.field("test") { json in
                // Past 1 MB the Test tab says how to generate it from Swift; writing stops there.
                let test = generatedTest(limit: 1 << 20).flatMap { $0.utf8.count <= 1 << 20 ? $0 : nil }
                json.string(
                    test
                        ?? "// The generated test is larger than 1 MB: generate it from Swift with "
                        + "recording.generatedTest(named:reducer:initialState:graph:).")
            }
        }
        return json.text
    }

    /// One step as the page reads it: `[number, timeMs, type, action, edits, origin, store]`
    /// (`store` negative where another store's recording begins).
    static func write(_ step: InspectorStep, into json: inout JSONText) {
        json.tuple(
            { $0.number(step.number) }, { $0.milliseconds(step.time) }, { $0.string(step.actionType) },
            { $0.value(step.action) }, { $0.patch(step.patch) },
            { json in
                guard let origin = step.origin else { return json.raw("null") }
                json.tuple(
                    { $0.number(Int(origin.run.rawValue)) }, { $0.optionalNumber(origin.node) },
                    { $0.string(origin.kind.rawValue) })
            },
            { $0.number(step.startsStore ? -step.store : step.store) })
    }

    /// One async action dispatched on its own, as the page reads it.
    static func write(_ action: InspectorAsyncAction, into json: inout JSONText) {
        json.object { object in
            write(action.start, into: &object)
            object.field("name") { $0.string(action.name) }
            object.field("action") { $0.value(action.action) }
            object.field("endTime") { $0.milliseconds(action.endTime) }
            object.field("end") { Self.write(action.end, into: &$0) }
        }
    }

    /// The fields a run and an async action both begin with: `id`, `store`, `time`, `startAt`.
    private static func write(_ start: InspectorStart, into object: inout JSONText.ObjectWriter) {
        object.field("id") { $0.number(Int(start.id)) }
        object.field("store") { $0.number(start.store) }
        object.field("time") { $0.milliseconds(start.time) }
        object.field("startAt") { $0.number(start.at) }
    }

    /// For each run and node, the step its action (or its fallback) became.
    func releasedSteps() -> [String: Int] {
        var released: [String: Int] = [:]
        for step in steps { Self.noteRelease(of: step, in: &released) }
        return released
    }

    /// Notes in `released` the step a run's node (or its fallback) became, if `step` is one.
    static func noteRelease(of step: InspectorStep, in released: inout [String: Int]) {
        guard let origin = step.origin, let node = origin.node else { return }
        released[releaseKey(store: step.store, run: origin.run.rawValue, node: node, kind: origin.kind)] = step.number
    }

    private static func releaseKey(store: Int, run: UInt64, node: Int, kind: SyncOrigin.Kind) -> String {
        "\(store)/\(run)/\(node)/\(kind.rawValue)"
    }

    static func write(_ run: InspectorRun, released: [String: Int], into json: inout JSONText) {
        let layout = LayeredLayout(prerequisites: run.nodes.map(\.prerequisites))
        let start = run.start
        json.object { object in
            write(run.start, into: &object)
            object.field("finishAt") { $0.optionalNumber(run.finishAt) }
            object.field("summary") { $0.optionalString(run.summary) }
            object.field("owner") { $0.optionalString(run.owner) }
            object.field("duration") { $0.milliseconds(run.duration) }
            object.field("chromeTrace") { $0.optionalString(run.chromeTrace) }
            object.field("layers") { $0.number(layout.layers) }
            object.field("rows") { $0.number(layout.rows) }
            object.field("nodes") { json in
                json.array(run.nodes) { json, node in
                    json.object { object in
                        object.field("index") { $0.number(node.index) }
                        object.field("label") { $0.string(node.label) }
                        object.field("type") { $0.string(node.typeName) }
                        object.field("kind") { $0.string(node.kind.rawValue) }
                        object.field("prerequisites") { $0.array(node.prerequisites) { $0.number($1) } }
                        object.field("layer") { $0.number(layout.positions[node.index].layer) }
                        object.field("row") { $0.number(layout.positions[node.index].row) }
                        object.field("start") { $0.milliseconds(node.start) }
                        object.field("endTime") { $0.milliseconds(node.endTime) }
                        object.field("attempts") { json in
                            json.array(node.attempts) { json, attempt in
                                json.tuple(
                                    { $0.number(attempt.number) }, { $0.milliseconds(attempt.time) },
                                    { $0.milliseconds(attempt.backoff) }, { $0.number(attempt.at) })
                            }
                        }
                        object.field("end") { Self.write(node.end, into: &$0) }
                        object.field("released") {
                            $0.optionalNumber(
                                released[releaseKey(store: start.store, run: start.id, node: node.index, kind: .node)])
                        }
                        object.field("fallback") {
                            $0.optionalNumber(
                                released[
                                    releaseKey(store: start.store, run: start.id, node: node.index, kind: .fallback)])
                        }
                    }
                }
            }
        }
    }

    static func write(_ end: InspectorNodeEnd?, into json: inout JSONText) {
        guard let end else { return json.raw("null") }
        json.object { object in
            object.field("outcome") { $0.string(end.outcome.rawValue) }
            object.field("at") { $0.number(end.at) }
            if let error = end.error { object.field("error") { $0.value(error) } }
            if let response = end.response { object.field("response") { $0.value(response) } }
        }
    }

    // MARK: Redux DevTools

    /// The recording in the shape Redux DevTools imports (its "lifted state"): one `PERFORM_ACTION`
    /// per step in `actionsById` (the action as `{"type": name, ...its fields}`, with its time in
    /// milliseconds), the state after each in `computedStates`, `stagedActionIds`,
    /// `currentStateIndex` on the last step, `nextActionId`, no `skippedActionIds`, and the state
    /// before the first step as `committedState` (and as the `@@INIT` action's state). States are
    /// plain JSON: structures as objects, collections as arrays.
    ///
    /// It holds every state in full, so it grows with steps times state size: for a large
    /// recording, ``writeReduxDevToolsJSON(to:)`` writes the same text to a file a state at a time.
    public func reduxDevToolsJSON() -> String {
        var text = ""
        writeDevTools { text += $0 }
        return text
    }

    /// Writes ``reduxDevToolsJSON()`` to `url` (replacing what is there) one state at a time, so
    /// that memory holds one state's text, not the whole export: what the page's export button
    /// points to when the file would be too large for a browser.
    public func writeReduxDevToolsJSON(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var failure: (any Error)?
        writeDevTools { part in
            guard failure == nil else { return }
            do { try file.write(contentsOf: Data(part.utf8)) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The lifted state in parts, in order: the actions, then each state, then the rest.
    private func writeDevTools(_ write: (String) -> Void) {
        var head = JSONText()
        head.raw("{\"actionsById\":")
        head.object { actions in
            actions.field("0") { json in
                json.object { entry in
                    entry.field("type") { $0.string("PERFORM_ACTION") }
                    entry.field("action") { $0.raw("{\"type\":\"@@INIT\"}") }
                    entry.field("timestamp") { $0.number(0) }
                }
            }
            for (offset, step) in steps.enumerated() {
                actions.field(String(offset + 1)) { json in
                    json.object { entry in
                        entry.field("type") { $0.string("PERFORM_ACTION") }
                        entry.field("action") { json in Self.writeDevToolsAction(step, into: &json) }
                        entry.field("timestamp") { $0.milliseconds(step.time) }
                    }
                }
            }
        }
        head.raw(",\"computedStates\":[")
        write(head.text)
        var state = base
        for index in 0...steps.count {
            if index > 0 { steps[index - 1].patch.apply(to: &state) }
            var json = JSONText()
            if index > 0 { json.raw(",") }
            json.object { entry in entry.field("state") { $0.plain(state) } }
            write(json.text)
        }
        var tail = JSONText()
        tail.raw("],")
        tail.string("committedState")
        tail.raw(":")
        tail.plain(base)
        tail.raw(",\"currentStateIndex\":\(steps.count),\"nextActionId\":\(steps.count + 1)")
        tail.raw(",\"skippedActionIds\":[],\"stagedActionIds\":")
        tail.array(0...steps.count) { $0.number($1) }
        tail.raw(",\"isLocked\":false,\"isPaused\":false}")
        write(tail.text)
    }

    private static func writeDevToolsAction(_ step: InspectorStep, into json: inout JSONText) {
        json.object { action in
            action.field("type") { $0.string(step.actionType) }
            switch step.action {
            case .structure(_, let fields) where fields.allSatisfy({ $0.label != nil && $0.label != "type" }):
                for field in fields { action.field(field.label ?? "") { $0.plain(field.value) } }
            default:
                action.field("payload") { $0.plain(step.action) }
            }
        }
    }
}
