import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Commands {
    /// `xizor healthcheck`: GET /healthz (or --path) on the configured port of this host; exit 0 on
    /// 200, 1 otherwise. The container's HEALTHCHECK runs it, so the image needs no curl.
    static let healthcheck = Subcommand(
        spec: CommandSpec(
            name: "healthcheck",
            summary: "Exit 0 when the local server answers GET /healthz with 200 (for container health checks).",
            options: [
                .init(
                    "config", value: "FILE",
                    help: "configuration file overriding the compiled-in defaults (Config/xizor.json is a copy of them)"
                ),
                .init(
                    "host", value: "H",
                    help: "address to ask (default: the configured host; 127.0.0.1 for 0.0.0.0, ::1 for ::)"),
                .init("port", value: "P", help: "port to ask (default: the configured port, XIZOR_PORT)"),
                .init("path", value: "PATH", help: "path to GET (default /healthz; /readyz for readiness)"),
                .init("timeout-ms", value: "MS", help: "give up after this long (default 2000)"),
            ])
    ) { arguments in
        let configuration = try Commands.configuration(from: arguments)
        var host = configuration.host
        if host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let path = arguments.value("path") ?? "/healthz"
        let timeout = Int(arguments.value("timeout-ms") ?? "2000") ?? 2000
        switch HealthProbe.get(host: host, port: configuration.port, path: path, timeoutMs: timeout) {
        case .success(let status) where status == 200:
            return .success
        case .success(let status):
            CommandLineInterface.writeStandardError("xizor healthcheck: \(path) answered \(status)\n")
            return .failure
        case .failure(let reason):
            CommandLineInterface.writeStandardError("xizor healthcheck: \(reason.message)\n")
            return .failure
        }
    }
}

/// A one-request HTTP/1.1 client over a plain socket: enough to read a status code.
enum HealthProbe {
    struct Failure: Error { let message: String }

    static func get(host: String, port: Int, path: String, timeoutMs: Int) -> Result<Int, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            return .failure(Failure(message: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(message: "socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(message: "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))"))
        }
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nUser-Agent: xizor-healthcheck\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else {
            return .failure(Failure(message: "cannot send the request"))
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        var received = 0
        while received < buffer.count {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + received, $0.count - received, 0) }
            if n <= 0 { break }
            received += n
            if buffer[0..<received].contains(UInt8(ascii: "\n")) { break }
        }
        // "HTTP/1.1 200 OK"
        let line = String(
            decoding: buffer[0..<received].prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") },
            as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return .failure(Failure(message: "no HTTP answer from \(host):\(port)"))
        }
        return .success(status)
    }
}
