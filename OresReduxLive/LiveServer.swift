import Foundation
import OresRedux

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the server asks of the session it serves; called on the server's thread only.
protocol LiveBackend: Sendable {
    /// The live page, with the recording so far.
    func page() -> String
    /// The recording as the offline page.
    func offlinePage() -> String
    /// The next update for a page at `cursor`, at most `limit` steps, or nil when nothing changed.
    func update(_ cursor: inout InspectorLiveCursor, limit: Int) -> InspectorLiveUpdate?
    /// The newest step's number.
    func newestStep() -> Int
    /// `{"paused": ..., "unrecorded": ..., "newest": ...}`.
    func statusJSON() -> String
    /// Runs a command of the page (`pause`, `resume`, `jump`, `dispatch`); the status and a JSON body.
    func command(_ name: String, step: Int?) -> (status: Int, body: String)
}

/// What the server has done so far: for tests and for a person who wonders.
package struct LiveServerStatistics: Sendable, Equatable {
    /// Connections open now, streams included.
    package var connections = 0
    /// Pages streaming now.
    package var streams = 0
    /// The most connections ever open at once.
    package var largestConnections = 0
    /// Connections accepted since the start.
    package var accepted = 0
    /// The most bytes ever queued for one stream.
    package var largestQueuedBytes = 0
    /// Requests refused, by status.
    package var refused: [Int: Int] = [:]
    /// Streams sent "N steps dropped, reload" and closed.
    package var droppedStreams = 0
    /// Connections whose request was not complete, answered `503` and closed to make room for a
    /// newer one when every slot was taken.
    package var evicted = 0
}

/// Wakes the server's poll loop from any thread: a byte into a pipe, written only when the loop
/// has not been woken yet, so the app's threads pay a lock and at most one `write` per update.
final class LiveWaker: Sendable {
    private let read: Int32
    private let write: Int32
    /// (a change is waiting, the server was asked to stop)
    private let flags = LockedValue((pending: false, stopped: false))

    init() throws {
        (read, write) = try Socket.pipe()
    }

    deinit {
        // Only here: no thread can write any more, so no descriptor is closed under a writer.
        Socket.close(read)
        Socket.close(write)
    }

    var readDescriptor: Int32 { read }

    /// Something changed: the loop pumps the streams soon.
    func changed() {
        let first = flags.withLock { flags in
            defer { flags.pending = true }
            return !flags.pending
        }
        if first { poke() }
    }

    func stop() {
        flags.withLock { $0.stopped = true }
        poke()
    }

    var isStopped: Bool { flags.withLock { $0.stopped } }

    /// Whether a change is waiting; clears it.
    func takePending() -> Bool {
        flags.withLock { flags in
            defer { flags.pending = false }
            return flags.pending
        }
    }

    func drain() {
        var scratch: [UInt8] = []
        while let got = Socket.read(read, into: &scratch, count: 256), got > 0 {
            scratch.removeAll(keepingCapacity: true)
        }
    }

    private func poke() {
        _ = Socket.write(write, [1][...])
    }
}

/// A small HTTP/1.1 server on POSIX sockets, for one live inspector: one thread, one `poll` loop,
/// non-blocking sockets, one request per connection (Server-Sent Events keep theirs open).
///
/// Every request must carry the token (`?token=`, compared in constant time), name this server in
/// `Host` (DNS rebinding), and, when it has an `Origin`, come from this server's own. No CORS header
/// is ever sent. Limits on connections, streams, head size, header count, body size, time to send
/// a request and time to take a response bound what any client can cost.
// Why this is safe to share: the mutable state (`connections`, `lastPump`, `lastTick`) is read and
// written only by the loop thread that `start()` creates; other threads reach the server only
// through `waker` and `statisticsStore` (both locked) and its `let` properties.
final class LiveServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let options: LiveInspectorOptions
    private let token: String
    private let backend: any LiveBackend
    let waker: LiveWaker
    private let statisticsStore = LockedValue(LiveServerStatistics())
    private let boundAddress: String
    private let limits: HTTPLimits

    private var connections: [Int32: Connection] = [:]
    private var statistics = LiveServerStatistics()
    private var lastPump = ContinuousClock.now
    private var lastTick = ContinuousClock.now
    private var streamCount: Int { connections.values.filter { $0.stream != nil }.count }

    /// Pumps at most this often, so a burst of steps makes one update, not one per step.
    private static let pumpInterval = Duration.milliseconds(50)
    /// Streams are pumped this often even without a wake-up (a change the waker missed shows up).
    private static let tickInterval = Duration.milliseconds(250)
    /// The kernel's send buffer for a stream, at most: no larger than the queue this server
    /// bounds, so how far a page that stops reading falls behind is the options' to say.
    private static let streamSendBuffer = 64 * 1_024
    /// Steps in one update event.
    private static let stepsPerUpdate = 500

    init(options: LiveInspectorOptions, token: String, backend: any LiveBackend, waker: LiveWaker) throws {
        let bound = try Socket.listen(address: options.address, port: options.port, backlog: 128)
        self.waker = waker
        listener = bound.fd
        port = bound.port
        self.options = options
        self.token = token
        self.backend = backend
        boundAddress = options.address
        limits = HTTPLimits(maximumHeadBytes: options.maximumHeadBytes, maximumHeaderCount: options.maximumHeaderCount)
    }

    /// Starts the loop on a thread of its own; it runs until ``stop()``.
    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "OresReduxLive server"
        thread.start()
    }

    /// Asks the loop to close every connection and the listener, and end.
    func stop() {
        waker.stop()
    }

    var currentStatistics: LiveServerStatistics { statisticsStore.withLock { $0 } }

    // MARK: The loop

    private func loop() {
        defer {
            for fd in connections.keys { Socket.close(fd) }
            connections.removeAll()
            Socket.close(listener)
            statistics.connections = 0
            statistics.streams = 0
            publish()
        }
        while !waker.isStopped {
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: waker.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            for (fd, connection) in connections {
                var events = Int16(POLLIN)
                if !connection.output.isEmpty { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            _ = poll(&fds, nfds_t(fds.count), timeout())
            if waker.isStopped { return }
            let now = ContinuousClock.now
            if fds[1].revents != 0 { waker.drain() }
            // The connections first, then the new ones: no descriptor closed here is reused in
            // this pass.
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                service(entry.fd, revents: entry.revents, now: now)
            }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptAll(now: now) }
            expire(now: now)
            pumpIfDue(now: now)
            publish()
        }
    }

    /// Until the next deadline, the next pump, or a quarter second.
    private func timeout() -> Int32 {
        let now = ContinuousClock.now
        var next = now + Self.tickInterval
        for connection in connections.values {
            if connection.isReading { next = min(next, connection.deadline) }
            if !connection.output.isEmpty { next = min(next, connection.lastProgress + options.writeTimeout) }
        }
        let wait = max(.zero, now.duration(to: next))
        let (seconds, attoseconds) = wait.components
        return Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Accepts what is pending. When every slot is taken, a newcomer takes the place of the
    /// slowest incomplete request; each newcomer is read at once, so one that sent its whole
    /// request with its connection (the page, a script with the token) is answered in this pass.
    private func acceptAll(now: ContinuousClock.Instant) {
        for _ in 0..<64 {
            guard let fd = Socket.accept(listener) else { return }
            statistics.accepted += 1
            if connections.count >= options.maximumConnections, let slowest = slowestRequest() {
                connections[slowest] = nil
                refuseAtOnce(
                    slowest,
                    "no connection is free (at most \(options.maximumConnections)) and this request was the slowest to arrive; try again"
                )
                statistics.evicted += 1
            }
            if connections.count >= options.maximumConnections {
                refuseAtOnce(
                    fd, "too many connections to this inspector (at most \(options.maximumConnections)); try again")
                continue
            }
            connections[fd] = Connection(fd: fd, deadline: now + options.requestTimeout, lastProgress: now)
            statistics.largestConnections = max(statistics.largestConnections, connections.count)
            service(fd, revents: Int16(POLLIN), now: now)
        }
    }

    /// The connection that has been sending its request for longest: the one a newcomer replaces
    /// when every slot is taken. Clients that send a byte now and then (and reconnect when closed)
    /// would otherwise hold every slot; a page or a script sends its whole request at once and is
    /// answered when it is read, before it could be the slowest. Streams and responses being
    /// written are never replaced.
    private func slowestRequest() -> Int32? {
        connections.filter(\.value.isReading).min { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }?.key
    }

    /// Answers `503` and closes, keeping nothing: what the client sent is read and dropped first,
    /// so the close does not reset the connection before the client reads the answer.
    private func refuseAtOnce(_ fd: Int32, _ reason: String) {
        var discard: [UInt8] = []
        _ = Socket.read(fd, into: &discard, count: 4_096)
        let response = Self.response(
            503, "text/plain; charset=utf-8", Array("503 Service Unavailable: \(reason)\n".utf8))
        _ = Socket.write(fd, response[...])
        Socket.close(fd)
        statistics.refused[503, default: 0] += 1
    }

    private func service(_ fd: Int32, revents: Int16, now: ContinuousClock.Instant) {
        guard var connection = connections[fd] else { return }
        defer {
            if connection.isClosed {
                Socket.close(fd)
                connections[fd] = nil
            } else {
                connections[fd] = connection
            }
        }
        if revents & Int16(POLLOUT) != 0 { flush(&connection, now: now) }
        if revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
            if connection.isReading {
                let room = options.maximumHeadBytes + options.maximumBodyBytes + 1 - connection.input.count
                switch Socket.read(fd, into: &connection.input, count: max(1, min(16_384, room))) {
                case 0: connection.isClosed = true
                case nil: break
                default: process(&connection, now: now)
                }
            } else {
                // A stream or a response being written: what the client sends is read and dropped,
                // and its end ends the connection.
                var discard: [UInt8] = []
                if Socket.read(fd, into: &discard, count: 4_096) == 0 { connection.isClosed = true }
            }
        }
        if !connection.isClosed && !connection.output.isEmpty { flush(&connection, now: now) }
    }

    private func flush(_ connection: inout Connection, now: ContinuousClock.Instant) {
        while let first = connection.output.first {
            guard let wrote = Socket.write(connection.fd, first[connection.offset...]) else {
                connection.isClosed = true
                return
            }
            if wrote == 0 { return }
            connection.lastProgress = now
            connection.offset += wrote
            connection.queued -= wrote
            if connection.offset == first.count {
                connection.output.removeFirst()
                connection.offset = 0
            }
        }
        if connection.closesWhenFlushed { connection.isClosed = true }
    }

    private func expire(now: ContinuousClock.Instant) {
        for (fd, var connection) in connections {
            if connection.isReading && now >= connection.deadline {
                refuse(&connection, 408, "the request was not complete within \(options.requestTimeout)")
                flush(&connection, now: now)
            } else if !connection.output.isEmpty && now - connection.lastProgress >= options.writeTimeout {
                connection.isClosed = true
            }
            if connection.isClosed {
                Socket.close(fd)
                connections[fd] = nil
            } else {
                connections[fd] = connection
            }
        }
    }

    private func publish() {
        statistics.connections = connections.count
        statistics.streams = streamCount
        for connection in connections.values where connection.stream != nil {
            statistics.largestQueuedBytes = max(statistics.largestQueuedBytes, connection.queued)
        }
        let snapshot = statistics
        statisticsStore.withLock { $0 = snapshot }
    }

    // MARK: Requests

    private func process(_ connection: inout Connection, now: ContinuousClock.Instant) {
        switch HTTPRequest.parse(connection.input, limits: limits) {
        case .incomplete:
            return
        case .refused(let status, let reason):
            refuse(&connection, status, reason)
        case .complete(let request):
            if request.header("transfer-encoding") != nil {
                return refuse(&connection, 501, "Transfer-Encoding is not supported; send Content-Length")
            }
            var length = 0
            if let value = request.header("content-length") {
                guard request.count(of: "content-length") == 1, !value.isEmpty, value.utf8.count <= 9,
                    value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int(value)
                else { return refuse(&connection, 400, "Content-Length must be one decimal number") }
                length = parsed
            }
            if length > options.maximumBodyBytes {
                return refuse(&connection, 413, "the body is longer than \(options.maximumBodyBytes) bytes")
            }
            guard connection.input.count >= request.headLength + length else { return }
            let body = Array(connection.input[request.headLength..<(request.headLength + length)])
            connection.isReading = false
            connection.request = request
            connection.input = []
            respond(to: request, body: body, on: &connection, now: now)
        }
    }

    private func refuse(_ connection: inout Connection, _ status: Int, _ reason: String) {
        statistics.refused[status, default: 0] += 1
        connection.isReading = false
        connection.input = []
        send(
            &connection,
            Self.response(
                status, "text/plain; charset=utf-8", Array("\(status) \(Self.reason(status)): \(reason)\n".utf8)))
        connection.closesWhenFlushed = true
    }

    private func send(_ connection: inout Connection, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        // The write timeout counts from when there is something to write.
        if connection.output.isEmpty { connection.lastProgress = .now }
        connection.output.append(bytes)
        connection.queued += bytes.count
    }

    private func respond(
        to request: HTTPRequest, body: [UInt8], on connection: inout Connection, now: ContinuousClock.Instant
    ) {
        guard request.count(of: "host") == 1, let host = request.header("host") else {
            return refuse(&connection, 400, "a request needs exactly one Host header")
        }
        guard isAllowedHost(host) else {
            return refuse(
                &connection, 403,
                "Host \"\(Self.printable(host))\" is not this inspector's address; open the URL the app printed")
        }
        if let origin = request.header("origin") {
            guard request.count(of: "origin") == 1, origin == "http://" + host else {
                return refuse(&connection, 403, "requests from another origin are refused")
            }
        }
        guard let given = request.query["token"], Self.constantTimeEqual(given, token) else {
            return refuse(
                &connection, 401, "this inspector needs the token the app printed with its URL (…/?token=…)")
        }
        connection.closesWhenFlushed = true
        switch (request.method, request.path) {
        case ("GET", "/"):
            send(&connection, Self.response(200, "text/html; charset=utf-8", Array(backend.page().utf8)))
        case ("GET", "/export"):
            send(
                &connection,
                Self.response(
                    200, "text/html; charset=utf-8", Array(backend.offlinePage().utf8),
                    extra: "Content-Disposition: attachment; filename=\"oresredux-recording.html\"\r\n"))
        case ("GET", "/status"):
            let statistics = self.statistics
            let json =
                "{\"session\":\(backend.statusJSON()),\"connections\":\(connections.count),"
                + "\"streams\":\(streamCount),\"largestQueuedBytes\":\(statistics.largestQueuedBytes),"
                + "\"droppedStreams\":\(statistics.droppedStreams),\"evicted\":\(statistics.evicted),"
                + "\"newest\":\(backend.newestStep()),"
                + "\"largestConnections\":\(statistics.largestConnections)}"
            send(&connection, Self.response(200, "application/json", Array(json.utf8)))
        case ("GET", "/events"):
            guard streamCount < options.maximumStreams else {
                return refuse(&connection, 503, "too many pages are streaming (at most \(options.maximumStreams))")
            }
            let after = request.query["after"].flatMap { Int($0) } ?? backend.newestStep()
            connection.closesWhenFlushed = false
            // A small kernel buffer: what a page does not take stays in the queue this server bounds.
            Socket.setSendBuffer(
                connection.fd, bytes: Int32(min(Self.streamSendBuffer, max(4_096, options.maximumStreamQueueBytes))))
            _ = waker.takePending()
            connection.stream = StreamState(cursor: InspectorLiveCursor(after: after))
            send(
                &connection,
                Array(
                    ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + Self.commonHeaders
                        + "Connection: close\r\n\r\nretry: 3000\n\n").utf8))
            pump(&connection)
        case ("POST", "/pause"), ("POST", "/resume"), ("POST", "/jump"), ("POST", "/dispatch"):
            guard request.hasJSONBody else {
                return refuse(&connection, 415, "commands are JSON: Content-Type: application/json")
            }
            var step: Int?
            if !body.isEmpty {
                guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                    return refuse(&connection, 400, "the body is not a JSON object")
                }
                step = object["step"] as? Int
            }
            let (status, json) = backend.command(String(request.path.dropFirst()), step: step)
            if status >= 400 { statistics.refused[status, default: 0] += 1 }
            send(
                &connection,
                Self.response(
                    status, "application/json", Array(json.utf8), extra: status == 429 ? "Retry-After: 1\r\n" : ""))
        case (_, "/"), (_, "/export"), (_, "/status"), (_, "/events"), (_, "/pause"), (_, "/resume"), (_, "/jump"),
            (_, "/dispatch"):
            refuse(&connection, 405, "\(request.method) is not allowed here")
        default:
            refuse(&connection, 404, "no such page")
        }
        flush(&connection, now: now)
    }

    /// `Host` must be this server's port on `localhost` or an IP literal (a name could be an
    /// attacker's domain rebound to this address), and the bound address itself when one was named.
    private func isAllowedHost(_ host: String) -> Bool {
        let name: Substring
        let port: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            let rest = host[host.index(after: close)...]
            guard rest.hasPrefix(":") else { return false }
            port = rest.dropFirst()
        } else {
            guard let colon = host.lastIndex(of: ":") else { return false }
            name = host[..<colon]
            port = host[host.index(after: colon)...]
        }
        guard port == String(self.port) else { return false }
        let lower = name.lowercased()
        var v4 = in_addr()
        var v6 = in6_addr()
        let isLiteral = inet_pton(AF_INET, lower, &v4) == 1 || inet_pton(AF_INET6, lower, &v6) == 1
        guard lower == "localhost" || isLiteral else { return false }
        let loopback = ["127.0.0.1", "::1", "localhost"]
        if boundAddress == "0.0.0.0" || boundAddress == "::" { return true }
        if loopback.contains(boundAddress) { return loopback.contains(lower) }
        return lower == boundAddress.lowercased()
    }

    // MARK: Streams

    private func pumpIfDue(now: ContinuousClock.Instant) {
        // Without a stream, a change stays pending: the app's threads then write nothing at all.
        guard streamCount > 0 else { return }
        let due = now - lastPump >= Self.pumpInterval
        let tick = now - lastTick >= Self.tickInterval
        guard due || tick else { return }
        let pending = waker.takePending()
        guard pending || tick else { return }
        lastPump = now
        if tick { lastTick = now }
        for (fd, var connection) in connections where connection.stream != nil && !connection.closesWhenFlushed {
            pump(&connection)
            flush(&connection, now: now)
            if connection.isClosed {
                Socket.close(fd)
                connections[fd] = nil
            } else {
                connections[fd] = connection
            }
        }
    }

    /// Queues what the page has not seen, while its queue has room; a page too far behind is told
    /// how many steps it missed and let go.
    private func pump(_ connection: inout Connection) {
        guard var stream = connection.stream, !connection.closesWhenFlushed else { return }
        defer { connection.stream = stream }
        let status = backend.statusJSON()
        if status != stream.lastStatus {
            stream.lastStatus = status
            send(&connection, Array("event: status\ndata: \(status)\n\n".utf8))
        }
        while connection.queued < options.maximumStreamQueueBytes,
            let update = backend.update(&stream.cursor, limit: Self.stepsPerUpdate)
        {
            send(&connection, Array("event: update\ndata: \(update.json)\n\n".utf8))
            statistics.largestQueuedBytes = max(statistics.largestQueuedBytes, connection.queued)
        }
        let lag = backend.newestStep() - stream.cursor.lastStep
        if lag > options.maximumStreamLag {
            // Keep only the event being written (its start is on the wire), then say goodbye.
            if connection.offset > 0, let first = connection.output.first {
                connection.output = [first]
                connection.queued = first.count - connection.offset
            } else {
                connection.output = []
                connection.offset = 0
                connection.queued = 0
            }
            send(&connection, Array("event: dropped\ndata: {\"steps\":\(lag)}\n\n".utf8))
            connection.closesWhenFlushed = true
            statistics.droppedStreams += 1
        }
    }

    // MARK: Responses

    static let commonHeaders =
        "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        + "X-Frame-Options: DENY\r\nContent-Security-Policy: frame-ancestors 'none'\r\n"

    static func response(_ status: Int, _ type: String, _ body: [UInt8], extra: String = "") -> [UInt8] {
        let head =
            "HTTP/1.1 \(status) \(reason(status))\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + commonHeaders + extra + "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// `text` with anything but printable ASCII replaced, for echoing a header in a refusal.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(200).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }

    /// Compares in time that depends only on the expected token's length, never on where a guess
    /// first differs.
    static func constantTimeEqual(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        let expected = Array(expected.utf8)
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= (index < given.count ? given[index] : 0) ^ expected[index]
        }
        return difference == 0
    }
}

/// One client connection, owned by the loop.
struct Connection {
    let fd: Int32
    var input: [UInt8] = []
    var request: HTTPRequest?
    var isReading = true
    /// When the request must be complete.
    var deadline: ContinuousClock.Instant
    /// When a byte was last written.
    var lastProgress: ContinuousClock.Instant
    var output: [[UInt8]] = []
    /// Bytes of `output[0]` already written.
    var offset = 0
    /// Bytes queued and not yet written.
    var queued = 0
    var closesWhenFlushed = false
    var isClosed = false
    var stream: StreamState?

    init(fd: Int32, deadline: ContinuousClock.Instant, lastProgress: ContinuousClock.Instant) {
        self.fd = fd
        self.deadline = deadline
        self.lastProgress = lastProgress
    }
}

/// A page streaming updates.
struct StreamState {
    var cursor: InspectorLiveCursor
    var lastStatus = ""
}
