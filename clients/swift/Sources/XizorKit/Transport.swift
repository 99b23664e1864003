import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response with its headers under lower-cased names.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The problem+json `code` and `detail` of an error answer, when it has them.
    var problem: (code: String?, detail: String?) {
        guard let value = try? JSONValue.decode(body) else { return (nil, nil) }
        return (value["code"]?.stringValue, value["detail"]?.stringValue)
    }

    /// `Retry-After` in seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    func retryAfter(now: Date = Date()) -> TimeInterval? {
        guard let raw = header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(raw), seconds >= 0 { return TimeInterval(seconds) }
        guard let date = HTTPDateParser.shared.date(from: raw) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// One `DateFormatter` for HTTP dates (IMF-fixdate, RFC 9110 §5.6.7), built once: a formatter is
/// costly to make, and not thread-safe, so it is used under a lock.
final class HTTPDateParser: @unchecked Sendable {
    static let shared = HTTPDateParser()
    private let lock = NSLock()
    private let formatter: DateFormatter

    private init() {
        formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    }

    func date(from text: String) -> Date? {
        lock.lock()
        defer { lock.unlock() }
        return formatter.date(from: text)
    }
}

/// The request failed before an HTTP answer arrived (refused, reset, DNS, timed out).
struct NetworkFailure: Error, Sendable {
    var description: String
}

/// HTTP through URLSession, with the key, the schema version and no URL cache: XizorKit keeps
/// its own cache and revalidates it itself, and a 304 must reach it as a 304.
struct Transport: Sendable {
    let session: URLSession
    let baseURL: URL
    let publicKey: String
    let schemaVersion: Int
    let requestTimeout: TimeInterval
    /// Sent with every request: the server's rules read them as `device.*`.
    let device: DeviceAttributes

    init(configuration: XizorConfiguration) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.requestTimeout
        session = URLSession(configuration: sessionConfiguration)
        baseURL = configuration.baseURL
        publicKey = configuration.publicKey
        schemaVersion = configuration.schemaVersion
        requestTimeout = configuration.requestTimeout
        device = DeviceAttributes.current(appVersion: configuration.appVersion)
    }

    func url(_ path: String) -> URL { baseURL.appendingPathComponent(path) }

    /// `authorized: false` leaves out `Authorization`: the paywall's path form carries the key in its
    /// URL, and a request with credentials is one a shared cache must not answer from its copy
    /// (RFC 9111 §3.5).
    func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil, authorized: Bool = true
    ) async throws -> HTTPResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: requestTimeout)
        request.httpMethod = method
        if authorized { request.setValue("Bearer \(publicKey)", forHTTPHeaderField: "Authorization") }
        request.setValue(String(schemaVersion), forHTTPHeaderField: "X-Xizor-Schema-Version")
        request.setValue("XizorKit/\(XizorKitVersion.current)", forHTTPHeaderField: "User-Agent")
        for (name, value) in device.headers { request.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let session = self.session
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: NetworkFailure(description: error.localizedDescription))
                } else if let http = response as? HTTPURLResponse {
                    var headers: [String: String] = [:]
                    for (name, value) in http.allHeaderFields {
                        if let name = name as? String, let value = value as? String {
                            headers[name.lowercased()] = value
                        }
                    }
                    continuation.resume(
                        returning: HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
                } else {
                    continuation.resume(throwing: NetworkFailure(description: "no HTTP response"))
                }
            }.resume()
        }
    }
}

public enum XizorKitVersion {
    public static let current = "0.1.0"
}
