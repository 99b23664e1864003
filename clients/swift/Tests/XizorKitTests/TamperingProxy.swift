import Foundation

@testable import XizorKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A reverse proxy on a loopback port in front of a `LiveServer`, standing for whatever sits between
/// an app and the server (a CDN, a corporate proxy, an attacker): it forwards every request, records
/// what passed, and can change answers on the way back — a product id in the body, or the signature
/// header dropped. One connection per request (`Connection: close`), one thread per connection.
final class TamperingProxy: @unchecked Sendable {
    enum Tamper: Sendable {
        case none
        /// The first `storeProductId` of a 200's body gets another value (still valid JSON).
        case flipProductId
        /// `X-Xizor-Signature` is removed from every answer.
        case stripSignature
    }

    /// One request as the proxy saw it, with the server's answer before any tampering.
    struct Exchange: Sendable {
        var method: String
        var target: String
        var requestHeaders: [String: String]
        var status: Int
        var responseHeaders: [String: String]
    }

    let upstream: URL
    private(set) var port = 0
    private let listener: Int32
    private let lock = NSLock()
    private var currentTamper = Tamper.none
    private var exchanges: [Exchange] = []
    private let session: URLSession

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var tamper: Tamper {
        get { lock.withLock { currentTamper } }
        set { lock.withLock { currentTamper = newValue } }
    }

    var log: [Exchange] { lock.withLock { exchanges } }

    func clearLog() { lock.withLock { exchanges = [] } }

    init(upstream: URL) throws {
        self.upstream = upstream
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
        #if canImport(Glibc)
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw LiveServerError.setup("proxy: socket failed") }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw LiveServerError.setup("proxy: bind or listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Closing the listener ends the accept loop.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        session.finishTasksAndInvalidate()
    }

    deinit { stop() }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in
                handle(connection)
                close(connection)
            }
            thread.start()
        }
    }

    private func handle(_ connection: Int32) {
        // The request: headers up to the blank line, then Content-Length bytes of body.
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received += buffer[0..<count]
            headerEnd = Self.find([13, 10, 13, 10], in: received)
        }
        guard let headerEnd else { return }
        let head = String(decoding: received[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(received[(headerEnd + 4)...])
        let expected = headers["content-length"].flatMap(Int.init) ?? 0
        while body.count < expected {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            body += buffer[0..<count]
        }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        guard var response = forward(method: method, target: target, headers: headers, body: Data(body)) else {
            write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", [], to: connection)
            return
        }
        lock.withLock {
            exchanges.append(
                Exchange(
                    method: method, target: target, requestHeaders: headers, status: response.status,
                    responseHeaders: response.headers))
        }
        switch tamper {
        case .none: break
        case .stripSignature: response.headers["x-xizor-signature"] = nil
        case .flipProductId: if response.status == 200 { response.body = Self.flipProductId(response.body) }
        }
        var text = "HTTP/1.1 \(response.status) Proxied\r\n"
        for (name, value) in response.headers
        where !["content-length", "content-encoding", "transfer-encoding", "connection"].contains(name) {
            text += "\(name): \(value)\r\n"
        }
        if response.status != 204 && response.status != 304 { text += "content-length: \(response.body.count)\r\n" }
        text += "connection: close\r\n\r\n"
        write(text, [UInt8](response.body), to: connection)
    }

    /// The server's answer through URLSession (which undoes any gzip: the body passed on is identity).
    private func forward(method: String, target: String, headers: [String: String], body: Data) -> HTTPResponse? {
        guard let url = URL(string: upstream.absoluteString + target) else { return nil }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
        request.httpMethod = method
        let hopByHop: Set<String> = [
            "host", "connection", "content-length", "accept-encoding", "keep-alive", "transfer-encoding", "expect",
        ]
        for (name, value) in headers where !hopByHop.contains(name) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if !body.isEmpty { request.httpBody = body }
        let done = DispatchSemaphore(value: 0)
        let result = Box()
        session.dataTask(with: request) { data, response, _ in
            if let http = response as? HTTPURLResponse {
                var lowered: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
                }
                result.value = HTTPResponse(status: http.statusCode, headers: lowered, body: data ?? Data())
            }
            done.signal()
        }.resume()
        done.wait()
        return result.value
    }

    private final class Box: @unchecked Sendable {
        var value: HTTPResponse?
    }

    private func write(_ head: String, _ body: [UInt8], to connection: Int32) {
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
                let sent = bytes.withUnsafeBytes {
                    send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
            #else
                let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, 0) }
            #endif
            guard sent > 0 else { return }
            offset += sent
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle
        {
            return start
        }
        return nil
    }

    /// `"storeProductId":"X"` → `"storeProductId":"com.attacker.X"`: the body stays valid JSON, so only
    /// the signature can tell.
    static func flipProductId(_ body: Data) -> Data {
        let text = String(decoding: body, as: UTF8.self)
        guard let key = text.range(of: #""storeProductId""#),
            let quote = text[key.upperBound...].firstIndex(of: "\"")
        else { return body }
        var changed = text
        changed.insert(contentsOf: "com.attacker.", at: changed.index(after: quote))
        return Data(changed.utf8)
    }
}
