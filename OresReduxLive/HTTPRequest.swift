import Foundation

/// One HTTP/1.x request head, parsed strictly: what the live server accepts and nothing more.
struct HTTPRequest: Sendable, Equatable {
    var method: String
    /// The path, without the query.
    var path: String
    /// The query's `name=value` pairs, percent-decoded; the first of a name wins.
    var query: [String: String]
    var version: String
    /// Header names lowercased, in order.
    var headers: [(name: String, value: String)]
    /// The bytes of the head, up to and including the empty line.
    var headLength: Int

    static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.version == b.version
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
            && a.headLength == b.headLength
    }

    /// The value of the header `name` (lowercase), if it appears once; nil if absent.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    func count(of name: String) -> Int {
        headers.filter { $0.name == name }.count
    }

    /// Whether `Content-Type` appears once and names JSON: the media type's type and subtype are
    /// exactly `application/json` (in any case), and parameters such as `charset` may follow a `;`.
    /// `application/jsonx` and `application/json-patch+json` are other media types.
    var hasJSONBody: Bool {
        guard count(of: "content-type") == 1, let value = header("content-type") else { return false }
        let mediaType = value.prefix { $0 != ";" }.trimmingCharacters(in: [" ", "\t"])
        return mediaType.lowercased() == "application/json"
    }
}

/// What parsing the bytes received so far gives.
enum HTTPParse: Sendable, Equatable {
    /// The head is not complete yet, and within the limits so far.
    case incomplete
    case complete(HTTPRequest)
    /// Refused: the status to answer and a sentence for the client.
    case refused(status: Int, reason: String)
}

/// The limits a request head must keep.
struct HTTPLimits: Sendable {
    var maximumHeadBytes = 16_384
    var maximumHeaderCount = 64
}

extension HTTPRequest {
    /// Parses `bytes`, the start of a connection's input: a request line, header lines and an empty
    /// line, each ending in CRLF. Refuses with 431 a head longer than the limit or with more
    /// headers, and with 400 anything malformed (no bare LF, no obsolete line folding, no control
    /// characters, one space between the request line's three parts).
    static func parse(_ bytes: [UInt8], limits: HTTPLimits) -> HTTPParse {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        let scan = min(bytes.count, limits.maximumHeadBytes)
        var complete = false
        while index < scan {
            let byte = bytes[index]
            if byte == 0x0A {
                guard index > start, bytes[index - 1] == 0x0D else {
                    return .refused(status: 400, reason: "a line ends in a bare LF; HTTP lines end in CRLF")
                }
                let line = bytes[start..<(index - 1)]
                if line.isEmpty {
                    if lines.isEmpty {
                        return .refused(status: 400, reason: "the request starts with an empty line")
                    }
                    complete = true
                    index += 1
                    break
                }
                lines.append(line)
                if lines.count > limits.maximumHeaderCount + 1 {
                    return .refused(
                        status: 431, reason: "more than \(limits.maximumHeaderCount) header lines")
                }
                start = index + 1
            }
            index += 1
        }
        guard complete else {
            if bytes.count >= limits.maximumHeadBytes {
                return .refused(status: 431, reason: "the request head is longer than \(limits.maximumHeadBytes) bytes")
            }
            // A request line that is already wrong need not wait for the rest.
            if let first = lines.first, case .refused(let status, let reason) = requestLine(first) {
                return .refused(status: status, reason: reason)
            }
            return .incomplete
        }
        guard case .complete(var request) = requestLine(lines[0]) else {
            if case .refused(let status, let reason) = requestLine(lines[0]) {
                return .refused(status: status, reason: reason)
            }
            return .refused(status: 400, reason: "malformed request line")
        }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                return .refused(status: 400, reason: "a header line has no name")
            }
            let name = line[line.startIndex..<colon]
            guard name.allSatisfy(isTokenByte) else {
                return .refused(status: 400, reason: "a header name has a character HTTP does not allow")
            }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .refused(status: 400, reason: "a header value has a control character")
            }
            request.headers.append(
                (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self)))
        }
        request.headLength = index
        return .complete(request)
    }

    /// `METHOD SP target SP HTTP/1.x`, or why not.
    private static func requestLine(_ line: ArraySlice<UInt8>) -> HTTPParse {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            return .refused(status: 400, reason: "malformed request line")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .refused(status: 400, reason: "only HTTP/1.0 and HTTP/1.1 are spoken here")
        }
        let target = parts[1]
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .refused(status: 400, reason: "the request target must be a path starting with /")
        }
        let text = String(decoding: target, as: UTF8.self)
        let pieces = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(nameValue[0]).removingPercentEncoding ?? ""
                let value = nameValue.count == 2 ? (String(nameValue[1]).removingPercentEncoding ?? "") : ""
                if query[name] == nil { query[name] = value }
            }
        }
        return .complete(
            HTTPRequest(
                method: String(decoding: parts[0], as: UTF8.self), path: String(pieces[0]), query: query,
                version: version, headers: [], headLength: 0))
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
