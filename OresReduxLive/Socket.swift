// The few POSIX socket calls the live server makes, the same on Linux and Darwin.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    #error("OresReduxLive: the live server needs POSIX sockets (Darwin, Glibc or Musl)")
#endif

/// Thin wrappers over the C library's sockets: every descriptor the server opens is non-blocking
/// and close-on-exec, and writing to a closed peer never raises SIGPIPE.
enum Socket {
    /// An error of a socket call, with the call's name and `errno`'s text.
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// A listening socket bound to `address:port` (port 0: any free port), and the port it got.
    static func listen(address: String, port: UInt16, backlog: Int32) throws -> (fd: Int32, port: UInt16, ipv6: Bool) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let ipv6: Bool
        let host = address == "localhost" ? "127.0.0.1" : address
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            ipv6 = false
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            ipv6 = true
        } else {
            throw Failure(call: "inet_pton(\(address)): not an IPv4 or IPv6 address", code: EINVAL)
        }
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if ipv6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            bound = systemBind(fd, v6)
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            bound = systemBind(fd, v4)
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "bind(\(address):\(port))", code: code)
        }
        guard systemListen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "listen", code: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actual: UInt16 =
            ipv6
            ? withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            }
            : withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
            }
        configure(fd)
        return (fd, UInt16(bigEndian: actual), ipv6)
    }

    /// Accepts one pending connection, or returns nil when none is pending.
    static func accept(_ listener: Int32) -> Int32? {
        let fd = systemAccept(listener)
        guard fd >= 0 else { return nil }
        configure(fd)
        return fd
    }

    /// Non-blocking, close-on-exec, and no SIGPIPE on Darwin (Linux passes MSG_NOSIGNAL per send).
    private static func configure(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Sets the kernel's send buffer of `fd`.
    static func setSendBuffer(_ fd: Int32, bytes: Int32) {
        var value = bytes
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A non-blocking pipe: a thread writes a byte to wake the poll loop.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard systemPipe(&fds) == 0 else { throw Failure(call: "pipe", code: errno) }
        for fd in fds { configure(fd) }
        return (fds[0], fds[1])
    }

    /// Reads what is there, up to `count` bytes: the bytes (empty at end of stream), or nil when
    /// nothing is there yet; an error reads as the end.
    static func read(_ fd: Int32, into buffer: inout [UInt8], count: Int) -> Int? {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + start, count, 0) }
        buffer.removeLast(count - max(0, got))
        if got < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? nil : 0 }
        return got
    }

    /// Writes what the socket takes now: the number of bytes written (0 when it takes none now),
    /// or nil when the peer is gone.
    static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int? {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
        if sent < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil }
        return sent
    }

    static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    #if canImport(Darwin)
        private static let streamType = SOCK_STREAM
        private static let noSignal: Int32 = 0
    #else
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif
}

// The C functions whose names the wrappers above reuse.
/// `bind` with an IPv4 or IPv6 address, passed as the `sockaddr` the C call takes (whose length
/// Darwin also wants in the address itself).
private func systemBind<Address>(_ fd: Int32, _ address: Address) -> Int32 {
    var address = address
    let length = socklen_t(MemoryLayout<Address>.size)
    return withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            #if canImport(Darwin)
                $0.pointee.sa_len = UInt8(MemoryLayout<Address>.size)
            #endif
            return bind(fd, $0, length)
        }
    }
}
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func systemAccept(_ fd: Int32) -> Int32 { accept(fd, nil, nil) }
private func systemPipe(_ fds: inout [Int32]) -> Int32 { fds.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
