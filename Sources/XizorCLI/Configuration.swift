import Foundation

/// Every setting of the server, resolved from `Config/xizor.json`, then `XIZOR_*` environment
/// variables, then command-line flags (later sources win). Each setting is declared once in
/// `ConfigurationKey.all`; its environment variable name is derived from its JSON path, so the file,
/// the environment and the docs cannot disagree.
public struct Configuration: Sendable, Equatable {
    public var values: [String: ConfigurationValue]

    public subscript(key: String) -> ConfigurationValue? { values[key] }

    public func string(_ key: String) -> String? { if case .string(let s)? = values[key] { s } else { nil } }
    public func int(_ key: String) -> Int { if case .int(let i)? = values[key] { i } else { 0 } }
    public func bool(_ key: String) -> Bool { if case .bool(let b)? = values[key] { b } else { false } }
    public func strings(_ key: String) -> [String] { if case .strings(let s)? = values[key] { s } else { [] } }

    public var host: String { string("host") ?? "127.0.0.1" }
    public var port: Int { int("port") }
    public var dataDirectory: String { string("dataDir") ?? "./data" }
    public var databasePath: String { (dataDirectory as NSString).appendingPathComponent("xizor.sqlite") }
    public var migrationsDirectory: String { string("migrationsDir") ?? "Migrations" }
}

public enum ConfigurationValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case bool(Bool)
    case strings([String])

    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): String(b)
        case .strings(let s): s.joined(separator: ",")
        }
    }
}

/// A configuration problem, naming the key and where the bad value came from.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One setting: its JSON path in the config file, its type and its constraints.
public struct ConfigurationKey: Sendable {
    public enum Kind: Sendable { case string, int(min: Int, max: Int), bool, stringList, optionalString, choice([String]) }

    public let path: String
    public let kind: Kind
    public let help: String

    /// `http.maxConnections` → `XIZOR_HTTP_MAX_CONNECTIONS`; an acronym stays one word
    /// (`renderer.lottiePlayerURL` → `XIZOR_RENDERER_LOTTIE_PLAYER_URL`).
    public var environmentName: String {
        var name = "XIZOR_"
        let characters = Array(path)
        for (i, character) in characters.enumerated() {
            if character == "." { name += "_"; continue }
            if character.isUppercase, i > 0 {
                let previous = characters[i - 1]
                let nextIsLowercase = i + 1 < characters.count && characters[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase) { name += "_" }
            }
            name += character.uppercased()
        }
        return name
    }

    public static let all: [ConfigurationKey] = [
        .init(path: "host", kind: .string, help: "address to bind (IPv4 or IPv6)"),
        .init(path: "port", kind: .int(min: 0, max: 65535), help: "port to bind; 0 takes a free port"),
        .init(path: "dataDir", kind: .string, help: "data directory; the database is DATA_DIR/xizor.sqlite"),
        .init(path: "logLevel", kind: .choice(["debug", "info", "warning", "error"]), help: "minimum log level"),
        .init(path: "accessLog", kind: .bool, help: "one JSON line per request"),
        .init(path: "adminToken", kind: .optionalString, help: "admin token (at least 32 characters); generated on first start when unset"),
        .init(path: "migrateOnStart", kind: .bool, help: "apply pending migrations when `serve` starts"),
        .init(path: "migrationsDir", kind: .string, help: "folder of the NNNN_description.sql migrations"),
        .init(path: "http.ioQueues", kind: .int(min: 0, max: 64), help: "serial I/O queues (event loops) connections are spread over; 0: one per CPU the process may use"),
        .init(path: "http.handlerThreads", kind: .int(min: 1, max: 4096), help: "threads that run offloaded handlers (started on demand)"),
        .init(path: "http.maxConnections", kind: .int(min: 1, max: 1_000_000), help: "open connections beyond which new ones are refused"),
        .init(path: "http.headerReadTimeoutMs", kind: .int(min: 1, max: 3_600_000), help: "time to receive a request's header section (408 after)"),
        .init(path: "http.bodyReadTimeoutMs", kind: .int(min: 1, max: 3_600_000), help: "time between two reads of a request body (408 after)"),
        .init(path: "http.bodyDeadlineMs", kind: .int(min: 1, max: 3_600_000), help: "time to receive a whole request body, from the end of its head (408 after)"),
        .init(path: "http.idleTimeoutMs", kind: .int(min: 1, max: 3_600_000), help: "idle keep-alive connections are closed after this"),
        .init(path: "http.writeTimeoutMs", kind: .int(min: 1, max: 3_600_000), help: "time a response write may make no progress"),
        .init(path: "http.maxRequestsPerConnection", kind: .int(min: 1, max: 10_000_000), help: "requests served on one keep-alive connection"),
        .init(path: "http.maxRequestLineBytes", kind: .int(min: 64, max: 1_048_576), help: "longest request line (414 beyond)"),
        .init(path: "http.maxHeaderBytes", kind: .int(min: 256, max: 16_777_216), help: "largest header section (431 beyond)"),
        .init(path: "http.maxHeaderFields", kind: .int(min: 1, max: 10_000), help: "most header fields (431 beyond)"),
        .init(path: "http.maxBodyBytes", kind: .int(min: 0, max: 1_073_741_824), help: "largest request body (413 beyond)"),
        .init(path: "http.maxBufferedBodyBytes", kind: .int(min: 0, max: 68_719_476_736), help: "request-body bytes all connections together may hold in memory (503 with Retry-After beyond)"),
        .init(path: "http.drainTimeoutMs", kind: .int(min: 0, max: 3_600_000), help: "how long SIGTERM waits for in-flight requests"),
        .init(path: "http.gzipMinBytes", kind: .int(min: 0, max: 1_073_741_824), help: "smallest body worth compressing"),
        .init(path: "http.gzipLevel", kind: .int(min: 1, max: 9), help: "zlib compression level"),
        .init(path: "cors.allowedOrigins", kind: .stringList, help: "browser origins (the dashboard) allowed by CORS; comma-separated in the environment"),
        .init(path: "renderer.mediaOrigins", kind: .stringList, help: "where pages may load images, video and Lottie animations from: `https:` (any https origin) or `https://host[:port]` entries, comma-separated in the environment (the page's Content-Security-Policy)"),
        .init(path: "renderer.lottiePlayerURL", kind: .optionalString, help: "https URL of the Lottie player script pages load (lottie-web or compatible); unset shows each Lottie's fallback"),
        .init(path: "storage.synchronous", kind: .choice(["full", "normal", "extra"]), help: "SQLite synchronous mode; full makes every 2xx write survive power loss"),
        .init(path: "storage.busyTimeoutMs", kind: .int(min: 0, max: 600_000), help: "SQLite busy timeout"),
        .init(path: "storage.readConnections", kind: .int(min: 1, max: 64), help: "read-only connections in the pool"),
        .init(path: "storage.startupCheck", kind: .choice(["quick", "full", "none"]), help: "check run on the database before serving: quick (PRAGMA quick_check), full (PRAGMA integrity_check) or none; a damaged database refuses to start"),
        .init(path: "storage.minFreeBytes", kind: .int(min: 0, max: 1 << 50), help: "free bytes the data directory's file system must keep for /readyz to answer 200"),
        .init(path: "metrics.token", kind: .optionalString, help: "when set, GET /metrics needs 'Authorization: Bearer TOKEN'; when unset /metrics is open (keep it off the public network)"),
        .init(path: "keys.maxPerApp", kind: .int(min: 2, max: 10_000), help: "the most live (unrevoked) secret and public keys one app may have; creating another answers 409 key_limit_reached"),
        .init(path: "events.maxAgeMs", kind: .int(min: 60_000, max: 3_153_600_000_000), help: "SDK events with a timestamp older than this (ms before the server's clock) are rejected (timestamp_too_old); SDKs queue events offline, so allow for that"),
        .init(path: "events.maxFutureMs", kind: .int(min: 0, max: 31_536_000_000), help: "SDK events with a timestamp more than this many ms ahead of the server's clock are rejected (timestamp_in_future)"),
        .init(path: "pageCache.maxContextVariants", kind: .int(min: 0, max: 1_000_000), help: "pages cached per published version for distinct {{context.KEY}} values; past it, pages render per request without being stored"),
        .init(path: "pageCache.uncachedRendersPerApp", kind: .int(min: 1, max: 1_000), help: "pages rendered past the variant cap at once per app (503 render_busy with Retry-After beyond)"),
        .init(path: "readiness.probeIntervalMs", kind: .int(min: 0, max: 60_000), help: "/readyz runs its durable write probe at most once per this many milliseconds, however many callers ask (they share its outcome)"),
        .init(path: "mcp.maxBatchMessages", kind: .int(min: 1, max: 1000), help: "the most JSON-RPC messages one MCP batch (protocol 2025-03-26) may hold; each message beyond the first pays its own write token"),
        .init(path: "rateLimits.eventsPerSecond", kind: .int(min: 0, max: 1_000_000), help: "per-key refill rate for POST /v1/sdk/events and /v1/sdk/timers (requests per second); 0 turns the limit off"),
        .init(path: "rateLimits.eventsBurst", kind: .int(min: 1, max: 10_000_000), help: "per-key bucket size for SDK event and timer requests"),
        .init(path: "rateLimits.writesPerSecond", kind: .int(min: 0, max: 1_000_000), help: "per-key refill rate for dashboard and /mcp requests other than GET/HEAD/OPTIONS; 0 turns the limit off"),
        .init(path: "rateLimits.writesBurst", kind: .int(min: 1, max: 10_000_000), help: "per-key bucket size for dashboard and /mcp writes"),
        .init(path: "rateLimits.authFailuresPerSecond", kind: .int(min: 0, max: 1_000_000), help: "per-client-address refill rate for failed authentications (missing, malformed, unknown or revoked keys); once used up, unknown keys from that address answer 429 unchecked; 0 turns the limit off"),
        .init(path: "rateLimits.authFailuresBurst", kind: .int(min: 1, max: 10_000_000), help: "per-client-address bucket size for failed authentications"),
    ]

    public static func named(_ path: String) -> ConfigurationKey? { all.first { $0.path == path } }
}

public enum ConfigurationLoader {
    /// The default file, relative to the working directory.
    public static let defaultPath = "Config/xizor.json"

    /// Loads `file` (every key must be known), overlays `environment`, then `overrides` (flag values
    /// keyed by JSON path). Every key of `ConfigurationKey.all` except optional ones must end up set.
    public static func load(file: String?, environment: [String: String], overrides: [String: String]) throws(ConfigurationError) -> Configuration {
        var values: [String: ConfigurationValue] = [:]
        let path = file ?? defaultPath
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("cannot read configuration file \(path)")
            }
            let object: Any
            do { object = try JSONSerialization.jsonObject(with: data) } catch {
                throw ConfigurationError("configuration file \(path) is not valid JSON: \(error.localizedDescription)")
            }
            guard let root = object as? [String: Any] else { throw ConfigurationError("configuration file \(path) must hold a JSON object") }
            try flatten(root, prefix: "", into: &values, file: path)
        } else if file != nil {
            throw ConfigurationError("configuration file \(path) does not exist")
        }
        for key in ConfigurationKey.all {
            if let raw = environment[key.environmentName] {
                values[key.path] = try parse(raw, as: key, source: "environment variable \(key.environmentName)")
            }
        }
        for (path, raw) in overrides {
            guard let key = ConfigurationKey.named(path) else { throw ConfigurationError("unknown setting \(path)") }
            values[path] = try parse(raw, as: key, source: "flag for \(path)")
        }
        for key in ConfigurationKey.all where values[key.path] == nil {
            if case .optionalString = key.kind { continue }
            throw ConfigurationError("setting \(key.path) is missing (set it in \(path) or \(key.environmentName))")
        }
        return Configuration(values: values)
    }

    private static func flatten(_ object: [String: Any], prefix: String, into values: inout [String: ConfigurationValue], file: String) throws(ConfigurationError) {
        for (name, value) in object {
            let path = prefix.isEmpty ? name : "\(prefix).\(name)"
            if let nested = value as? [String: Any] {
                try flatten(nested, prefix: path, into: &values, file: file)
                continue
            }
            guard let key = ConfigurationKey.named(path) else {
                throw ConfigurationError("unknown setting \(path) in \(file)")
            }
            if value is NSNull {
                if case .optionalString = key.kind { continue }
                throw ConfigurationError("setting \(path) in \(file) may not be null")
            }
            values[path] = try convert(value, as: key, source: file)
        }
    }

    private static func convert(_ value: Any, as key: ConfigurationKey, source: String) throws(ConfigurationError) -> ConfigurationValue {
        switch key.kind {
        case .string, .optionalString, .choice:
            guard let s = value as? String else { throw ConfigurationError("setting \(key.path) in \(source) must be a string") }
            return try parse(s, as: key, source: source)
        case .int:
            guard let n = value as? NSNumber, !isBoolean(n), n.doubleValue == n.doubleValue.rounded() else {
                throw ConfigurationError("setting \(key.path) in \(source) must be an integer")
            }
            return try parse(String(n.intValue), as: key, source: source)
        case .bool:
            guard let n = value as? NSNumber, isBoolean(n) else {
                throw ConfigurationError("setting \(key.path) in \(source) must be true or false")
            }
            return .bool(n.boolValue)
        case .stringList:
            guard let list = value as? [String] else { throw ConfigurationError("setting \(key.path) in \(source) must be an array of strings") }
            return .strings(list)
        }
    }

    /// JSONSerialization hands booleans back as NSNumber; their Objective-C type code is "c".
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// Parses a textual value (environment variable or flag).
    static func parse(_ raw: String, as key: ConfigurationKey, source: String) throws(ConfigurationError) -> ConfigurationValue {
        switch key.kind {
        case .string, .optionalString:
            guard !raw.isEmpty else { throw ConfigurationError("\(source): \(key.path) may not be empty") }
            return .string(raw)
        case .choice(let options):
            guard options.contains(raw.lowercased()) else {
                throw ConfigurationError("\(source): \(key.path) must be one of \(options.joined(separator: ", ")), not '\(raw)'")
            }
            return .string(raw.lowercased())
        case .int(let min, let max):
            guard let n = Int(raw), n >= min, n <= max else {
                throw ConfigurationError("\(source): \(key.path) must be an integer from \(min) to \(max), not '\(raw)'")
            }
            return .int(n)
        case .bool:
            switch raw.lowercased() {
            case "true", "1", "yes", "on": return .bool(true)
            case "false", "0", "no", "off": return .bool(false)
            default: throw ConfigurationError("\(source): \(key.path) must be true or false, not '\(raw)'")
            }
        case .stringList:
            return .strings(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
    }
}
