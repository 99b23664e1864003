import Storage
import XizorLog

/// Every setting of the server, declared once: its JSON path (from which the environment variable
/// is derived), its type, its compiled-in default and its meaning. `Settings.keys` enumerates the
/// properties below in order (by reflection, so a setting cannot be declared and forgotten), and
/// `Configuration` is read only through them (`configuration[\.http.maxConnections]`): no key is
/// spelled as a string at a use site, and none can be missing, because every value starts at its
/// default. `Config/xizor.json` is the documented copy of these defaults, tested equal to them.
struct Settings: Sendable {
    let host = Setting.string("host", default: "127.0.0.1", help: "address to bind (IPv4 or IPv6)")
    let port = Setting.int("port", default: 8080, 0...65535, help: "port to bind; 0 takes a free port")
    let dataDir = Setting.string(
        "dataDir", default: "./data", help: "data directory; the database is DATA_DIR/xizor.sqlite")
    let logLevel = Setting.choice(
        "logLevel", default: .info, ["debug": LogLevel.debug, "info": .info, "warning": .warning, "error": .error],
        help: "minimum log level")
    let accessLog = Setting.bool("accessLog", default: true, help: "one JSON line per request")
    let adminToken = Setting.optional(
        "adminToken", help: "admin token (at least 32 characters); generated on first start when unset")
    let migrateOnStart = Setting.bool(
        "migrateOnStart", default: true, help: "apply pending migrations when `serve` starts")
    let publicURL = Setting.optional(
        "publicURL",
        help:
            "the https://host[:port] origin apps reach this server at: uploaded and bundled media URLs use it (unset: https://xizor.localhost, which pages load from their own origin)"
    )
    let http = HTTPSettings()
    let cors = CORSSettings()
    let renderer = RendererSettings()
    let storage = StorageSettings()
    let metrics = MetricsSettings()
    let keys = KeySettings()
    let events = EventSettings()
    let pageCache = PageCacheSettings()
    let readiness = ReadinessSettings()
    let mcp = MCPSettings()
    let rateLimits = RateLimitSettings()
    let changes = ChangeSettings()
    let publish = PublishSettings()
    let assets = AssetSettings()
    let targeting = TargetingSettings()
    let audit = AuditSettings()
    let analytics = AnalyticsSettings()
    let webhooks = WebhookSettings()
    let stores = StoreSettings()
    let console = ConsoleSettings()
    let cache = EdgeCacheSettings()
    let signing = SigningSettings()
    let auth = AuthSettings()
    let smtp = SMTPSettings()
    let oidc = OIDCSettings()

    static let all = Settings()
}

struct HTTPSettings: Sendable {
    let ioQueues = Setting.int(
        "http.ioQueues", default: 0, 0...64,
        help: "I/O event loops (a thread each) connections are spread over; 0: one per CPU the process may use")
    let handlerThreads = Setting.int(
        "http.handlerThreads", default: 64, 1...4096, help: "threads that run offloaded handlers (started on demand)")
    let handlerThreadsPerApp = Setting.int(
        "http.handlerThreadsPerApp", default: 8, 1...4096,
        help: "of those, how many one app's requests may hold at once (the rest of its requests wait for its own)")
    let maxConnections = Setting.int(
        "http.maxConnections", default: 10_000, 1...1_000_000,
        help: "open connections beyond which new ones are refused")
    let headerReadTimeoutMs = Setting.int(
        "http.headerReadTimeoutMs", default: 60_000, 1...3_600_000,
        help: "time to receive a request's header section (408 after)")
    let bodyReadTimeoutMs = Setting.int(
        "http.bodyReadTimeoutMs", default: 60_000, 1...3_600_000,
        help: "time between two reads of a request body (408 after)")
    let bodyDeadlineMs = Setting.int(
        "http.bodyDeadlineMs", default: 60_000, 1...3_600_000,
        help: "time to receive a whole request body, from the end of its head (408 after)")
    let idleTimeoutMs = Setting.int(
        "http.idleTimeoutMs", default: 75_000, 1...3_600_000, help: "idle keep-alive connections are closed after this")
    let writeTimeoutMs = Setting.int(
        "http.writeTimeoutMs", default: 60_000, 1...3_600_000, help: "time a response write may make no progress")
    let maxRequestsPerConnection = Setting.int(
        "http.maxRequestsPerConnection", default: 1000, 1...10_000_000,
        help: "requests served on one keep-alive connection")
    let maxRequestLineBytes = Setting.int(
        "http.maxRequestLineBytes", default: 8192, 64...1_048_576, help: "longest request line (414 beyond)")
    let maxHeaderBytes = Setting.int(
        "http.maxHeaderBytes", default: 32_768, 256...16_777_216, help: "largest header section (431 beyond)")
    let maxHeaderFields = Setting.int(
        "http.maxHeaderFields", default: 100, 1...10_000, help: "most header fields (431 beyond)")
    let maxBodyBytes = Setting.int(
        "http.maxBodyBytes", default: 1_048_576, 0...1_073_741_824, help: "largest request body (413 beyond)")
    let maxBufferedBodyBytes = Setting.int(
        "http.maxBufferedBodyBytes", default: 16_777_216, 0...68_719_476_736,
        help: "request-body bytes all connections together may hold in memory (503 with Retry-After beyond)")
    let drainTimeoutMs = Setting.int(
        "http.drainTimeoutMs", default: 10_000, 0...3_600_000, help: "how long SIGTERM waits for in-flight requests")
    let reusePort = Setting.bool(
        "http.reusePort", default: false,
        help:
            "set SO_REUSEPORT, so a new server can bind the same port while this one drains (zero-downtime restart: both need it); off, a second server on the port fails to start"
    )
    let gzipMinBytes = Setting.int(
        "http.gzipMinBytes", default: 860, 0...1_073_741_824, help: "smallest body worth compressing")
    let gzipLevel = Setting.int("http.gzipLevel", default: 6, 1...9, help: "zlib compression level")
    let accessLogMaxPendingBytes = Setting.int(
        "http.accessLogMaxPendingBytes", default: 8 << 20, 0...1_073_741_824,
        help:
            "access log bytes queued for the log's writer thread beyond which lines are dropped and counted (xizor_http_access_log_lines_dropped_total), so a slow disk never stalls requests"
    )
    let accessLogDropWhenBehind = Setting.bool(
        "http.accessLogDropWhenBehind", default: true,
        help:
            "false: when the access log's writer is that far behind, the I/O loop waits for it instead of dropping lines"
    )
    let accessLogFlushMs = Setting.int(
        "http.accessLogFlushMs", default: 100, 1...60_000,
        help: "the access log's writer takes every loop's buffered lines at least this often")
}

struct CORSSettings: Sendable {
    let allowedOrigins = Setting.list(
        "cors.allowedOrigins", default: [],
        help: "browser origins (the dashboard) allowed by CORS; comma-separated in the environment")
}

struct RendererSettings: Sendable {
    let mediaOrigins = Setting.list(
        "renderer.mediaOrigins", default: ["https:"],
        help:
            "where pages may load images, video and Lottie animations from: `https:` (any https origin) or `https://host[:port]` entries, comma-separated in the environment (the page's Content-Security-Policy)"
    )
    let lottiePlayerURL = Setting.optional(
        "renderer.lottiePlayerURL",
        help:
            "https URL of the Lottie player script pages load (lottie-web or compatible); unset shows each Lottie's fallback"
    )
}

/// Where the data lives.
enum StorageDriver: String, Sendable {
    /// One file in the data directory (the embedded default).
    case sqlite
    /// A PostgreSQL database shared by any number of `serve` replicas.
    case postgres
}

struct StorageSettings: Sendable {
    let driver = Setting.choice(
        "storage.driver", default: .sqlite, ["sqlite": StorageDriver.sqlite, "postgres": .postgres],
        help:
            "where data lives: sqlite (xizor.sqlite in the data directory) or postgres (storage.postgresURL; many replicas on one database)"
    )
    let postgresURL = Setting.optional(
        "storage.postgresURL",
        help:
            "libpq connection string or URI for storage.driver postgres, e.g. postgresql://xizor@db:5432/xizor (a password is better kept in PGPASSWORD or ~/.pgpass)"
    )
    let postgresPoolSize = Setting.int(
        "storage.postgresPoolSize", default: 8, 1...256, help: "connections one process opens to PostgreSQL at most")
    let synchronous = Setting.choice(
        "storage.synchronous", default: .full,
        ["full": DatabaseConfiguration.Synchronous.full, "normal": .normal, "extra": .extra],
        help: "SQLite synchronous mode; full makes every 2xx write survive power loss")
    let busyTimeoutMs = Setting.int("storage.busyTimeoutMs", default: 5000, 0...600_000, help: "SQLite busy timeout")
    let readConnections = Setting.int(
        "storage.readConnections", default: 4, 1...64, help: "read-only connections in the pool")
    let writerCacheBytes = Setting.int(
        "storage.writerCacheBytes", default: DatabaseConfiguration.defaultWriterCacheBytes, 1_048_576...4_294_967_296,
        help:
            "bytes of SQLite page cache on the writer connection (taken as pages are used): indexes written all over keep their pages in memory between commits"
    )
    let walAutocheckpointPages = Setting.int(
        "storage.walAutocheckpointPages", default: DatabaseConfiguration.defaultWALAutocheckpointPages, 100...1_000_000,
        help:
            "WAL pages after which a commit copies them back into the database file (SQLite wal_autocheckpoint); the WAL file keeps about this many 4 KiB pages on disk"
    )
    let startupCheck = Setting.choice(
        "storage.startupCheck", default: .quick,
        ["quick": DataDirectoryGuard.Check.quick, "file": .file, "full": .full, "none": .none],
        help:
            "check run on the database before serving: quick (PRAGMA quick_check of every table but the events and their rollups, so a start does not grow with the apps' history), file (PRAGMA quick_check of the whole file), full (PRAGMA integrity_check) or none; a damaged database refuses to start"
    )
    let minFreeBytes = Setting.int(
        "storage.minFreeBytes", default: 1_048_576, 0...(1 << 50),
        help: "free bytes the data directory's file system must keep for /readyz to answer 200")
}

struct MetricsSettings: Sendable {
    let token = Setting.optional(
        "metrics.token",
        help:
            "when set, GET /metrics needs 'Authorization: Bearer TOKEN'; when unset /metrics is open (keep it off the public network)"
    )
}

struct PublishSettings: Sendable {
    let requireCompleteLocales = Setting.bool(
        "publish.requireCompleteLocales", default: false,
        help:
            "refuse to publish (422 incomplete_locales) a draft with a locale that lacks texts or has stale translations, instead of publishing with `warnings`"
    )
}

struct AssetSettings: Sendable {
    let maxImageBytes = Setting.int(
        "assets.maxImageBytes", default: 5 << 20, 1...1_073_741_824,
        help:
            "largest image upload (PNG, JPEG, GIF, WebP); 413 asset_too_large beyond. Bodies are also capped by http.maxBodyBytes"
    )
    let maxVideoBytes = Setting.int(
        "assets.maxVideoBytes", default: 20 << 20, 1...1_073_741_824, help: "largest video upload (MP4, WebM)")
    let maxLottieBytes = Setting.int(
        "assets.maxLottieBytes", default: 2 << 20, 1...1_073_741_824, help: "largest Lottie JSON upload")
    let cacheBytes = Setting.int(
        "assets.cacheBytes", default: 64 << 20, 0...1_073_741_824,
        help:
            "bytes of served asset files kept in memory (least recently used evicted), so repeated downloads do not read the database"
    )
    let maxBytesPerApp = Setting.int(
        "assets.maxBytesPerApp", default: 256 << 20, 1...Int(Int32.max) * 64,
        help: "bytes one app's assets may take in all; 413 asset_quota_exceeded beyond")
}

struct KeySettings: Sendable {
    let maxPerApp = Setting.int(
        "keys.maxPerApp", default: 50, 2...10_000,
        help:
            "the most live (unrevoked) secret and public keys one app may have; creating another answers 409 key_limit_reached"
    )
}

struct PageCacheSettings: Sendable {
    let maxContextVariants = Setting.int(
        "pageCache.maxContextVariants", default: 64, 0...1_000_000,
        help:
            "pages cached per published version for distinct {{context.KEY}} values; past it, pages render per request without being stored"
    )
    let uncachedRendersPerApp = Setting.int(
        "pageCache.uncachedRendersPerApp", default: 2, 1...1_000,
        help: "pages rendered past the variant cap at once per app (503 render_busy with Retry-After beyond)")
}

struct ReadinessSettings: Sendable {
    let probeIntervalMs = Setting.int(
        "readiness.probeIntervalMs", default: 1000, 0...60_000,
        help:
            "/readyz runs its durable write probe at most once per this many milliseconds, however many callers ask (they share its outcome)"
    )
}

struct TargetingSettings: Sendable {
    let countryHeader = Setting.optional(
        "targeting.countryHeader",
        help:
            "the request header a CDN or load balancer in front of the server sets to the client's country (CF-IPCountry, CloudFront-Viewer-Country, X-Country-Code): rules read it as device.country, trusted over the client's country query parameter. Set it only when that proxy overwrites the header on every request"
    )
}

struct AuditSettings: Sendable {
    let retentionDays = Setting.int(
        "audit.retentionDays", default: 365, 1...36_500,
        help: "days audit log entries are kept (GET /v1/audit-log); older ones are deleted hourly")
}

struct WebhookSettings: Sendable {
    let enabled = Setting.bool(
        "webhooks.enabled", default: true,
        help:
            "send webhook deliveries from this process (false: events still enter the outbox, for another replica to send)"
    )
    let workers = Setting.int(
        "webhooks.workers", default: 4, 1...64,
        help:
            "delivery threads: endpoints are sent to in parallel up to this many, each endpoint's deliveries one at a time in order"
    )
    let timeoutMs = Setting.int(
        "webhooks.timeoutMs", default: 10_000, 100...120_000,
        help: "time an endpoint has to connect and answer a delivery before it counts as failed and is retried")
    let retryBaseMs = Setting.int(
        "webhooks.retryBaseMs", default: 10_000, 1...3_600_000,
        help: "wait before the first retry; each later retry waits twice as long, at most an hour")
    let retryForMs = Setting.int(
        "webhooks.retryForMs", default: 86_400_000, 0...2_592_000_000,
        help: "how long after its event a delivery is retried before it is marked failed")
    let pollMs = Setting.int(
        "webhooks.pollMs", default: 1_000, 10...60_000,
        help: "longest a sender waits before looking at the outbox again (writes in this process wake it at once)")
    let allowPrivateTargets = Setting.bool(
        "webhooks.allowPrivateTargets", default: false,
        help:
            "allow webhook URLs on loopback, private, link-local and other internal addresses (off: refused when written, and checked again on every connection)"
    )
    let caFile = Setting.optional(
        "webhooks.caFile",
        help: "PEM bundle of the CAs HTTPS webhook endpoints are verified against, instead of the system's")
    let maxEndpointsPerApp = Setting.int(
        "webhooks.maxEndpointsPerApp", default: 20, 1...1000, help: "most webhook endpoints one app may have")
    let maxInFlightPerApp = Setting.int(
        "webhooks.maxInFlightPerApp", default: 2, 1...64,
        help:
            "most deliveries of one app being sent at once, across every process (at most webhooks.workers − 1 in a process): the app with the fewest in flight is sent to first, so one app's slow endpoints cannot hold every sender"
    )
    let disableAfterMs = Setting.int(
        "webhooks.disableAfterMs", default: 259_200_000, 1_000...2_592_000_000,
        help:
            "an endpoint whose every attempt failed for this long is disabled (webhook.disabled event and audit entry) until enabled by hand"
    )
    let logRetentionDays = Setting.int(
        "webhooks.logRetentionDays", default: 30, 1...3650, help: "days finished deliveries stay in the delivery log")
}

/// The app stores' notifications (docs/revenue.md).
struct StoreSettings: Sendable {
    let apple = AppleStoreSettings()
}

struct AppleStoreSettings: Sendable {
    let rootCertificates = Setting.list(
        "stores.apple.rootCertificates", default: [],
        help:
            "paths of DER or PEM root certificates App Store signatures may also chain to, besides the compiled-in Apple Root CA - G3 (a test root; comma-separated in XIZOR_STORES_APPLE_ROOT_CERTIFICATES)"
    )
}

struct ConsoleSettings: Sendable {
    let enabled = Setting.bool(
        "console.enabled", default: true, help: "serve the console (the dashboard in the browser) and redirect / to it")
    let path = Setting.string(
        "console.path", default: "/console",
        help: "where the console is served: one or more path segments of a-z, 0-9, - and _, not under /v1")
}

struct MCPSettings: Sendable {
    let maxBatchMessages = Setting.int(
        "mcp.maxBatchMessages", default: 32, 1...1000,
        help:
            "the most JSON-RPC messages one MCP batch (protocol 2025-03-26) may hold; each message beyond the first pays its own write token"
    )
}

struct RateLimitSettings: Sendable {
    let eventsPerSecond = Setting.int(
        "rateLimits.eventsPerSecond", default: 500, 0...1_000_000,
        help:
            "per-key refill rate for POST /v1/sdk/events and /v1/sdk/timers (requests per second); 0 turns the limit off"
    )
    let eventsBurst = Setting.int(
        "rateLimits.eventsBurst", default: 5000, 1...10_000_000,
        help: "per-key bucket size for SDK event and timer requests")
    let eventsPerSubscriberPerMinute = Setting.int(
        "rateLimits.eventsPerSubscriberPerMinute", default: 600, 0...1_000_000,
        help:
            "events one subscriber may send per minute, whatever key sends them (a batch past it answers 429 subscriber_rate_limited); 0 turns the limit off"
    )
    let writesPerSecond = Setting.int(
        "rateLimits.writesPerSecond", default: 100, 0...1_000_000,
        help: "per-key refill rate for dashboard and /mcp requests other than GET/HEAD/OPTIONS; 0 turns the limit off")
    let writesBurst = Setting.int(
        "rateLimits.writesBurst", default: 1000, 1...10_000_000,
        help: "per-key bucket size for dashboard and /mcp writes")
    let authFailuresPerSecond = Setting.int(
        "rateLimits.authFailuresPerSecond", default: 5, 0...1_000_000,
        help:
            "per-client-address refill rate for failed authentications (missing, malformed, unknown or revoked keys); once used up, unknown keys from that address answer 429 unchecked; 0 turns the limit off"
    )
    let authFailuresBurst = Setting.int(
        "rateLimits.authFailuresBurst", default: 100, 1...10_000_000,
        help: "per-client-address bucket size for failed authentications")
}

struct ChangeSettings: Sendable {
    let pollIntervalMs = Setting.int(
        "changes.pollIntervalMs", default: 50, 1...60_000,
        help:
            "how often `serve` checks the database for changes committed by other processes (a CLI command, a second server); they are live here within this many milliseconds"
    )
    let retentionMs = Setting.int(
        "changes.retentionMs", default: 3_600_000, 60_000...31_536_000_000,
        help:
            "changes older than this are pruned from the change feed (a process that was paused longer reloads everything)"
    )
    let maxRows = Setting.int(
        "changes.maxRows", default: 10_000, 100...10_000_000,
        help: "the change feed keeps at most this many newest changes")
}
