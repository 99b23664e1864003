import XizorDomain
import XizorLog

/// What the operations endpoints and protections take from the configuration.
public struct OperationsOptions: Sendable {
    /// Fed by the HTTP server (pass the same object as the server's observer); exposed by `/metrics`.
    public var httpMetrics: HTTPMetrics?
    /// When set, `/metrics` needs `Authorization: Bearer TOKEN`.
    public var metricsToken: String?
    /// Per-key limit on `POST /v1/sdk/events` and `/v1/sdk/timers`.
    public var eventsLimit: RateLimit = .disabled
    /// Per-key limit on every other non-GET/HEAD/OPTIONS request (dashboard API, `/mcp`).
    public var writesLimit: RateLimit = .disabled
    /// Per-client-address limit on failed authentications.
    public var authFailuresLimit: RateLimit = .disabled
    /// The data directory, whose free space `/readyz` checks.
    public var dataDirectory: String?
    /// `/readyz` fails below this many free bytes in the data directory.
    public var minimumFreeBytes: Int = ReadinessCheck.defaultMinimumFreeBytes
    /// Migrations the database must have applied (the files present at start).
    public var expectedMigrations: Int?
    /// `/readyz` runs its write probe at most once per this many milliseconds.
    public var readinessProbeIntervalMs: Int = ReadinessCheck.defaultProbeIntervalMs
    /// Where operational failures (why `/readyz` says not ready) are logged.
    public var logger: Logger?

    public init(
        httpMetrics: HTTPMetrics? = nil, metricsToken: String? = nil, eventsLimit: RateLimit = .disabled,
        writesLimit: RateLimit = .disabled, dataDirectory: String? = nil, expectedMigrations: Int? = nil
    ) {
        self.httpMetrics = httpMetrics
        self.metricsToken = metricsToken
        self.eventsLimit = eventsLimit
        self.writesLimit = writesLimit
        self.dataDirectory = dataDirectory
        self.expectedMigrations = expectedMigrations
    }
}
