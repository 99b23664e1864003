import Foundation

@testable import XizorKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A real `xizor serve` on a loopback port with its own data directory: `XIZOR_BIN`, else the
/// server package's debug build (`make test` builds it first).
final class LiveServer: @unchecked Sendable {
    static let adminToken = "xa_test_admin_token_0123456789abcdef"
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["XIZOR_BIN"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/xizor").path
    }

    let directory: URL
    let environment: [String: String]
    private(set) var port: Int = 0
    private var process: Process?

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "xizorkit-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.environment = environment
        try start(port: 0)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the server (again, on the same data directory): port 0 picks a free one.
    /// The server's environment: the same for `serve` and for commands run on its data (`run`).
    private var processEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XIZOR_ADMIN_TOKEN"] = Self.adminToken
        env["XIZOR_LOG_LEVEL"] = "warning"
        env["XIZOR_ACCESS_LOG"] = "false"
        env["XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND"] = "0"
        env["XIZOR_STORAGE_DRIVER"] = "sqlite"
        for (name, value) in environment { env[name] = value }
        return env
    }

    var dataDirectory: URL { directory.appendingPathComponent("data") }

    func start(port requested: Int) throws {
        precondition(process == nil, "the server is running")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--port", String(requested), "--data-dir", dataDirectory.path]
        process.environment = processEnvironment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // The first stdout line is {"event":"listening","port":N,…}.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw LiveServerError.didNotStart(String(decoding: line, as: UTF8.self)) }
            line.append(chunk)
        }
        guard let event = try? JSONValue.decode(Data(line.prefix { $0 != UInt8(ascii: "\n") })),
            event["event"]?.stringValue == "listening", let port = event["port"]?.intValue
        else {
            throw LiveServerError.didNotStart(String(decoding: line, as: UTF8.self))
        }
        self.port = port
        self.process = process
    }

    /// SIGTERM and wait: the port then refuses connections (a server that is down).
    func stop() {
        guard let process else { return }
        if process.isRunning { process.terminate() }
        Self.waitForExit(process)
        self.process = nil
    }

    /// `waitUntilExit()` without its hang: on Linux, Foundation can miss a child's exit (seen here
    /// after a test's few hundred requests: the child reaped, `isRunning` still true, the wait
    /// spinning forever). Polls `isRunning`, and trusts the kernel once the pid is gone; at most
    /// 20 s, after which a child that ignored SIGTERM is killed.
    static func waitForExit(_ process: Process) {
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && kill(pid, 0) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                break
            }
            usleep(10_000)
        }
    }

    /// Runs a `xizor` command on this server's data directory (`xizor signing-keys rotate`, say):
    /// its exit status and what it printed.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--data-dir", dataDirectory.path]
        process.environment = processEnvironment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        Self.waitForExit(process)
        // The exit status, once Foundation has it (see `waitForExit`); a command whose exit it missed
        // counts as failed.
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return (process.isRunning ? -1 : process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The published signing keys (`GET /v1/sdk/signing-keys`): status → standard base64 public key,
    /// and status → kid.
    func signingKeys() async throws -> (keys: [String: String], kids: [String: String]) {
        let answer = try await request("GET", "/v1/sdk/signing-keys", key: "")
        guard answer.status == 200, case .array(let rows)? = answer.json["keys"] else {
            throw LiveServerError.setup(
                "signing keys: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        var keys: [String: String] = [:]
        var kids: [String: String] = [:]
        for row in rows {
            guard let status = row["status"]?.stringValue else { continue }
            keys[status] = row["publicKey"]?.stringValue
            kids[status] = row["kid"]?.stringValue
        }
        return (keys, kids)
    }

    func restart() throws {
        stop()
        try start(port: port)
    }

    /// SIGSTOP: connections are accepted by the kernel but nothing answers (a slow server).
    /// SIGSTOP, then wait (up to 5 s) until the kernel shows every thread of the server stopped:
    /// `kill` returns once the signal is queued, so a request sent at once could still be answered.
    func pause() {
        guard let pid = process?.processIdentifier else { return }
        kill(pid, SIGSTOP)
        let deadline = Date().addingTimeInterval(5)
        while !Self.stopped(pid), Date() < deadline { usleep(1_000) }
    }

    /// Whether every thread of `pid` is stopped (`T`) or gone (`Z`, `X`), by `/proc/PID/task/*/stat`:
    /// the state is the field after the parenthesised command name. True where there is no `/proc`.
    static func stopped(_ pid: Int32) -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
            return true
        }
        return threads.allSatisfy { thread in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let state = stat[close...].dropFirst(2).first
            else { return true }
            return "TZX".contains(state)
        }
    }

    func resume() { if let pid = process?.processIdentifier { kill(pid, SIGCONT) } }

    // MARK: - The dashboard API, for setting up what the client reads

    struct Answer {
        var status: Int
        var json: JSONValue
        var headers: [String: String]
        var body: Data
    }

    func request(
        _ method: String, _ path: String, key: String, body: JSONValue? = nil,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        if !key.isEmpty { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try body.jsonData()
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let session = URLSession(configuration: .ephemeral)
        let (data, response): (Data, HTTPURLResponse) = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (data ?? Data(), response as! HTTPURLResponse))
                }
            }.resume()
        }
        var lowered: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
        }
        return Answer(
            status: response.statusCode, json: (try? JSONValue.decode(data)) ?? .null, headers: lowered, body: data)
    }

    /// An app with a published paywall from `template` behind `placement`.
    func app(placement: String = "onboarding", template: String = "clean") async throws -> TestApp {
        let created = try await request("POST", "/v1/apps", key: Self.adminToken, body: ["name": "XizorKit tests"])
        guard created.status == 201, let secret = created.json["secretKey"]?.stringValue,
            let publicKey = created.json["publicKey"]?.stringValue
        else { throw LiveServerError.setup("create app: \(created.json)") }
        let app = TestApp(server: self, secretKey: secret, publicKey: publicKey)
        let paywall = try await app.createPaywall(template: template)
        _ = try await app.publish(paywall)
        try await app.assign(placement, paywallId: paywall)
        app.paywallId = paywall
        return app
    }
}

final class TestApp: @unchecked Sendable {
    let server: LiveServer
    let secretKey: String
    let publicKey: String
    var paywallId = ""

    init(server: LiveServer, secretKey: String, publicKey: String) {
        self.server = server
        self.secretKey = secretKey
        self.publicKey = publicKey
    }

    func dashboard(_ method: String, _ path: String, _ body: JSONValue? = nil, expect: Int) async throws -> JSONValue {
        let answer = try await server.request(method, path, key: secretKey, body: body)
        guard answer.status == expect else {
            throw LiveServerError.setup(
                "\(method) \(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return answer.json
    }

    func createPaywall(template: String) async throws -> String {
        let created = try await dashboard("POST", "/v1/paywalls", ["template": .string(template)], expect: 201)
        guard let id = created["id"]?.stringValue else { throw LiveServerError.setup("no paywall id") }
        return id
    }

    /// Publishes the draft, first changing a text so the version differs from the last.
    @discardableResult
    func publish(_ paywallId: String, marker: String? = nil) async throws -> Int {
        if let marker {
            let draft = try await server.request("GET", "/v1/paywalls/\(paywallId)/draft", key: secretKey)
            guard case .object(var document)? = draft.json["document"], let etag = draft.headers["etag"] else {
                throw LiveServerError.setup("no draft document")
            }
            document["name"] = .string(marker)
            let saved = try await server.request(
                "PUT", "/v1/paywalls/\(paywallId)/draft", key: secretKey, body: .object(document),
                headers: ["If-Match": etag])
            guard saved.status == 200 else { throw LiveServerError.setup("save draft: \(saved.status) \(saved.json)") }
        }
        let published = try await dashboard("POST", "/v1/paywalls/\(paywallId)/publish", expect: 201)
        guard let version = published["version"]?.intValue else { throw LiveServerError.setup("no version") }
        return version
    }

    func assign(_ placement: String, paywallId: String) async throws {
        _ = try await dashboard("PUT", "/v1/placements/\(placement)", ["paywallId": .string(paywallId)], expect: 200)
    }

    func impressions(of paywallId: String) async throws -> Int {
        let analytics = try await dashboard("GET", "/v1/paywalls/\(paywallId)/analytics", expect: 200)
        guard case .array(let versions)? = analytics["versions"] else { return 0 }
        return versions.compactMap { $0["impressions"]?.intValue }.reduce(0, +)
    }

    /// A cache timeout long enough that a loaded machine (the suites run in parallel beside
    /// debug builds) never turns an expected network answer into a cached one; the tests of
    /// the timeout itself shorten it.
    func configuration(cache: URL, _ change: (inout XizorConfiguration) -> Void = { _ in }) -> XizorConfiguration {
        var configuration = XizorConfiguration(
            publicKey: publicKey, baseURL: server.base, cacheDirectory: cache,
            cacheTimeout: 5, requestTimeout: 10)
        change(&configuration)
        return configuration
    }
}

enum LiveServerError: Error {
    case didNotStart(String)
    case setup(String)
}

/// A fresh cache directory under the server's temporary directory.
func freshCache(_ server: LiveServer) -> URL {
    server.directory.appendingPathComponent("cache-\(UUID().uuidString)", isDirectory: true)
}

/// Waits (polling) until `condition` holds, or fails after `seconds`.
func eventually(_ seconds: TimeInterval = 10, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
    return try await condition()
}

/// Collects the event queue's reports (called on arbitrary threads).
final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [EventReport] = []

    var handler: @Sendable (EventReport) -> Void {
        { report in
            self.lock.lock()
            self.items.append(report)
            self.lock.unlock()
        }
    }
    var all: [EventReport] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
