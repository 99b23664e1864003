import Foundation
import HTTP
import Logging
import Storage
import XizorAPI

/// What the server-side commands share: the resolved configuration, a logger, and the database
/// opened (and migrated, or checked to be) the same way for `serve`, `migrate`, `apps` and `demo`.
struct CommandEnvironment {
    let configuration: Configuration
    let logger: Logger

    init(_ arguments: ParsedArguments) throws {
        configuration = try Commands.configuration(from: arguments)
        let level = LogLevel(name: configuration.string("logLevel") ?? "info") ?? .info
        logger = Logger(minimumLevel: level)
    }

    var databaseConfiguration: DatabaseConfiguration {
        DatabaseConfiguration(
            synchronous: DatabaseConfiguration.Synchronous(rawValue: configuration.string("storage.synchronous") ?? "full") ?? .full,
            busyTimeoutMs: configuration.int("storage.busyTimeoutMs"),
            readConnections: configuration.int("storage.readConnections"))
    }

    var applicationOptions: XizorApplication.Options {
        var options = XizorApplication.Options(corsAllowedOrigins: configuration.strings("cors.allowedOrigins"),
                                               version: CommandLineInterface.version,
                                               lottiePlayerURL: configuration.string("renderer.lottiePlayerURL"),
                                               mcpMaxBatchMessages: configuration.int("mcp.maxBatchMessages"))
        options.pageCacheMaxContextVariants = configuration.int("pageCache.maxContextVariants")
        options.uncachedRendersPerApp = configuration.int("pageCache.uncachedRendersPerApp")
        options.mediaOrigins = configuration.strings("renderer.mediaOrigins")
        return options
    }

    /// Metrics, rate limits and readiness settings; `httpMetrics` is the server's observer.
    func operationsOptions(httpMetrics: HTTPMetrics) -> OperationsOptions {
        var options = OperationsOptions(
            httpMetrics: httpMetrics,
            metricsToken: configuration.string("metrics.token"),
            eventsLimit: RateLimit(perSecond: configuration.int("rateLimits.eventsPerSecond"), burst: configuration.int("rateLimits.eventsBurst")),
            writesLimit: RateLimit(perSecond: configuration.int("rateLimits.writesPerSecond"), burst: configuration.int("rateLimits.writesBurst")),
            dataDirectory: configuration.dataDirectory,
            expectedMigrations: (try? Migrator(path: configuration.migrationsDirectory))?.migrations.count)
        options.minimumFreeBytes = configuration.int("storage.minFreeBytes")
        options.authFailuresLimit = RateLimit(perSecond: configuration.int("rateLimits.authFailuresPerSecond"),
                                              burst: configuration.int("rateLimits.authFailuresBurst"))
        options.readinessProbeIntervalMs = configuration.int("readiness.probeIntervalMs")
        options.logger = logger
        return options
    }

    var httpConfiguration: HTTPServer.Configuration {
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.ioQueues = configuration.int("http.ioQueues")
        http.handlerThreads = configuration.int("http.handlerThreads")
        http.maxConnections = configuration.int("http.maxConnections")
        http.headerReadTimeoutMs = configuration.int("http.headerReadTimeoutMs")
        http.bodyReadTimeoutMs = configuration.int("http.bodyReadTimeoutMs")
        http.bodyDeadlineMs = configuration.int("http.bodyDeadlineMs")
        http.idleTimeoutMs = configuration.int("http.idleTimeoutMs")
        http.writeTimeoutMs = configuration.int("http.writeTimeoutMs")
        http.maxRequestsPerConnection = configuration.int("http.maxRequestsPerConnection")
        http.maxRequestLineBytes = configuration.int("http.maxRequestLineBytes")
        http.maxHeaderBytes = configuration.int("http.maxHeaderBytes")
        http.maxHeaderFields = configuration.int("http.maxHeaderFields")
        http.maxBodyBytes = configuration.int("http.maxBodyBytes")
        http.maxBufferedBodyBytes = configuration.int("http.maxBufferedBodyBytes")
        http.drainTimeoutMs = configuration.int("http.drainTimeoutMs")
        http.gzipMinBytes = configuration.int("http.gzipMinBytes")
        http.gzipLevel = configuration.int("http.gzipLevel")
        http.accessLog = configuration.bool("accessLog")
        return http
    }

    /// Opens the database, creating the data directory when missing. With `migrate`, applies
    /// pending migrations (returning their names); without, refuses a database that has any.
    func openDatabase(migrate: Bool) throws -> (pool: DatabasePool, applied: [String]) {
        let directory = configuration.dataDirectory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create data directory \(directory): \(error.localizedDescription)")
        }
        let guardian = DataDirectoryGuard(directory: directory, databasePath: configuration.databasePath)
        try guardian.checkBeforeOpening()
        let existed = FileManager.default.fileExists(atPath: configuration.databasePath)
        let pool: DatabasePool
        do { pool = try DatabasePool(path: configuration.databasePath, configuration: databaseConfiguration) } catch {
            throw CommandFailure("cannot open database \(configuration.databasePath): \(error)",
                                 exitCode: existed ? DataDirectoryGuard.exitCode : 1)
        }
        try guardian.checkOpened(pool, check: DataDirectoryGuard.Check(rawValue: configuration.string("storage.startupCheck") ?? "quick") ?? .quick)
        do {
            let migrator = try Migrator(path: configuration.migrationsDirectory)
            if migrate {
                let applied = try migrator.migrate(pool)
                try guardian.recordInitialised()
                return (pool, applied)
            }
            let pending = try migrator.pending(in: pool)
            guard pending.isEmpty else {
                throw CommandFailure("database \(configuration.databasePath) has \(pending.count) pending migration(s) (\(pending.map(\.name).joined(separator: ", "))); run 'xizor migrate' first")
            }
            try guardian.recordInitialised()
            return (pool, [])
        } catch let error as MigrationError {
            throw CommandFailure("migrations: \(error)")
        }
    }

    /// The services over a migrated database.
    func openServices() throws -> XizorServices {
        let (pool, applied) = try openDatabase(migrate: configuration.bool("migrateOnStart"))
        for name in applied { logger.info("applied migration", [("migration", .string(name))]) }
        try logEffectiveSettings(pool)
        var limits = XizorServices.Limits()
        limits.eventWindow = EventService.TimeWindow(maxAgeMs: Int64(configuration.int("events.maxAgeMs")),
                                                     maxFutureMs: Int64(configuration.int("events.maxFutureMs")))
        limits.maxKeysPerApp = configuration.int("keys.maxPerApp")
        do { return try XizorServices(pool: pool, limits: limits) } catch {
            throw CommandFailure("cannot load state from \(configuration.databasePath): \(error)")
        }
    }
}

extension CommandEnvironment {
    /// One line with the settings the writer connection really runs with (read back from SQLite),
    /// so a weakened durability setting shows in the log of every start, not only in the config.
    func logEffectiveSettings(_ pool: DatabasePool) throws {
        let settings = try pool.effectiveSettings()
        logger.info("storage opened", [
            ("path", .string(pool.path)),
            ("journalMode", .string(settings.journalMode)),
            ("synchronous", .string(settings.synchronous?.rawValue ?? "unknown")),
            ("foreignKeys", .bool(settings.foreignKeys)),
            ("busyTimeoutMs", .int(Int64(settings.busyTimeoutMs))),
        ])
    }
}

/// One JSON object on one line of standard output (the machine-readable result of a command).
func printJSONLine(_ pairs: [(String, LogValue)]) {
    var line = "{"
    JSONText.appendMembers(pairs, to: &line, leadingComma: false)
    line += "}\n"
    Logger.standardOutput(line)
}
