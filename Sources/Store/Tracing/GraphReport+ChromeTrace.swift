extension GraphReport {
    /// The run's timeline as Chrome trace-event JSON: save it as a `.json` file and open it in
    /// <https://ui.perfetto.dev> or `chrome://tracing`.
    ///
    /// Promises:
    /// - the text is one valid JSON object, `{"traceEvents":[...],"displayTimeUnit":"ms"}`;
    /// - every event has `name`, `ph`, `ts`, `pid` and `tid`; times are microseconds since the run
    ///   started, to the nanosecond (`ts` `81300.125` is 81.3 ms);
    /// - each node that started is one complete event (`"ph":"X"`) with `dur`, `name` = its label,
    ///   `cat` = its kind, and `args` holding its `index`, `outcome`, `attempts`, `prerequisites` and,
    ///   when it failed, `error` (the error's description). A node still running lasts until the
    ///   latest time the report knows, with outcome `not finished`;
    /// - each node that never started (skipped, cancelled before starting, or still waiting) is an
    ///   instant event (`"ph":"i"`) at the moment it ended, on its own row named `not started`;
    /// - nodes whose run times overlap are on different rows (`tid`): rows are handed out greedily
    ///   in start order, each node taking the lowest-numbered row free at its start, so parallel
    ///   async work shows side by side and a chain stays on one row. Rows are named `lane 1`,
    ///   `lane 2`, ... by metadata events (`"ph":"M"`).
    public var chromeTrace: String { chromeTrace(describingErrors: { String(describing: $0) }) }

    /// ``chromeTrace``, with each failed node's `error` written by `describe` (the inspector's
    /// recording writes it redacted).
    func chromeTrace(describingErrors describe: (any Error) -> String) -> String {
        let entries = Array(self)
        let lanes = Self.traceLanes(entries)
        let laneCount = lanes.values.max() ?? 0
        let notStartedLane = laneCount + 1
        let latest = entries.reduce(Int64(0)) { latest, entry in
            Swift.max(latest, entry.start?.wholeNanoseconds ?? 0, entry.end?.wholeNanoseconds ?? 0)
        }

        var events: [String] = []
        events.reserveCapacity(entries.count + laneCount + 2)
        events.append(Self.metadataEvent("process_name", tid: 0, value: "OresRedux graph run"))
        for lane in stride(from: 1, through: laneCount, by: 1) {
            events.append(Self.metadataEvent("thread_name", tid: lane, value: "lane \(lane)"))
        }
        if entries.contains(where: { $0.start == nil }) {
            events.append(Self.metadataEvent("thread_name", tid: notStartedLane, value: "not started"))
        }

        for entry in entries {
            var args = "{\"index\":\(entry.index),\"outcome\":\(Self.jsonString(TraceStyle(entry.outcome).word))"
            args += ",\"attempts\":\(entry.attempts)"
            args += ",\"prerequisites\":[\(entry.prerequisites.map(String.init).joined(separator: ","))]"
            if let error = entry.error {
                args += ",\"error\":\(Self.jsonString(describe(error)))"
            }
            args += "}"
            let common = "\"name\":\(Self.jsonString(entry.label)),\"cat\":\(Self.jsonString(entry.kind.rawValue))"
            if let start = entry.start?.wholeNanoseconds {
                let end = entry.end?.wholeNanoseconds ?? latest
                events.append(
                    "{\(common),\"ph\":\"X\",\"ts\":\(Self.microseconds(start)),"
                        + "\"dur\":\(Self.microseconds(Swift.max(0, end - start))),"
                        + "\"pid\":1,\"tid\":\(lanes[entry.index] ?? 1),\"args\":\(args)}")
            } else {
                let time = entry.end?.wholeNanoseconds ?? 0
                events.append(
                    "{\(common),\"ph\":\"i\",\"s\":\"t\",\"ts\":\(Self.microseconds(time)),"
                        + "\"pid\":1,\"tid\":\(notStartedLane),\"args\":\(args)}")
            }
        }
        return "{\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n],\"displayTimeUnit\":\"ms\"}\n"
    }

    /// The row of each node that started, keyed by node index: the lowest-numbered row (from 1) whose
    /// previous node ended at or before this one's start, taking nodes in (start, index) order.
    static func traceLanes(_ entries: [Entry]) -> [Int: Int] {
        let latest = entries.reduce(Int64(0)) { latest, entry in
            Swift.max(latest, entry.start?.wholeNanoseconds ?? 0, entry.end?.wholeNanoseconds ?? 0)
        }
        let intervals = entries.compactMap { entry -> (index: Int, start: Int64, end: Int64)? in
            guard let start = entry.start?.wholeNanoseconds else { return nil }
            return (entry.index, start, entry.end?.wholeNanoseconds ?? latest)
        }.sorted { ($0.start, $0.index) < ($1.start, $1.index) }

        var lanes: [Int: Int] = [:]
        var busy = MinHeap<BusyLane>()  // lanes in use, earliest end first
        var free = MinHeap<Int>()  // lanes free again, lowest first
        var laneCount = 0
        for interval in intervals {
            while let first = busy.first, first.end <= interval.start {
                free.insert(busy.removeFirst().lane)
            }
            let lane: Int
            if free.first != nil {
                lane = free.removeFirst()
            } else {
                laneCount += 1
                lane = laneCount
            }
            lanes[interval.index] = lane
            busy.insert(BusyLane(end: interval.end, lane: lane))
        }
        return lanes
    }

    private static func metadataEvent(_ name: String, tid: Int, value: String) -> String {
        "{\"name\":\"\(name)\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":\(tid),\"args\":{\"name\":\(jsonString(value))}}"
    }

    /// Nanoseconds as a JSON number of microseconds with three decimals, exactly (no floating point).
    static func microseconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000)
        return "\(nanoseconds / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `text` as a JSON string literal, quotes included (RFC 8259 escaping).
    static func jsonString(_ text: String) -> String {
        "\"" + TextEscaping.replacing(text, TextEscaping.jsonEscape) + "\""
    }
}

/// A lane in use until `end`, ordered by end, then lane number.
private struct BusyLane: Comparable {
    let end: Int64
    let lane: Int

    static func < (lhs: BusyLane, rhs: BusyLane) -> Bool {
        (lhs.end, lhs.lane) < (rhs.end, rhs.lane)
    }
}
