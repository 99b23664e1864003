import Digest
import Foundation
import HTTP
import PostgresStorage
import Storage
import XizorAPI
import XizorDomain
import XizorLog
import XizorStores

/// What the server-side commands share: the resolved configuration, a logger, and the database
/// opened (and migrated, or checked to be) the same way for `serve`, `migrate`, `apps` and `demo`.
struct CommandEnvironment {
    let configuration: Configuration
    let logger: Logger

    init(_ arguments: ParsedArguments) throws {
        configuration = try Commands.configuration(from: arguments)
        logger = Logger(minimumLevel: configuration[\.logLevel])
    }

    var databaseConfiguration: DatabaseConfiguration {
        DatabaseConfiguration(
            synchronous: configuration[\.storage.synchronous],
            busyTimeoutMs: configuration[\.storage.busyTimeoutMs],
            readConnections: configuration[\.storage.readConnections],
            writerCacheBytes: configuration[\.storage.writerCacheBytes],
            walAutocheckpointPages: configuration[\.storage.walAutocheckpointPages])
    }

    var applicationOptions: XizorApplication.Options {
        var options = XizorApplication.Options(
            corsAllowedOrigins: configuration[\.cors.allowedOrigins],
            version: CommandLineInterface.version,
            lottiePlayerURL: configuration[\.renderer.lottiePlayerURL],
            mcpMaxBatchMessages: configuration[\.mcp.maxBatchMessages])
        options.pageCacheMaxContextVariants = configuration[\.pageCache.maxContextVariants]
        options.uncachedRendersPerApp = configuration[\.pageCache.uncachedRendersPerApp]
        options.mediaOrigins = configuration[\.renderer.mediaOrigins]
        options.countryHeader = configuration[\.targeting.countryHeader]
        options.consolePath = configuration[\.console.enabled] ? configuration[\.console.path] : nil
        options.edge.sharedMaxAgeSeconds = configuration[\.cache.sharedMaxAgeSeconds]
        options.edge.staleWhileRevalidateSeconds = configuration[\.cache.staleWhileRevalidateSeconds]
        options.edge.staleIfErrorSeconds = configuration[\.cache.staleIfErrorSeconds]
        return options
    }

    /// Metrics, rate limits and readiness settings; `httpMetrics` is the server's observer.
    func operationsOptions(httpMetrics: HTTPMetrics) throws -> OperationsOptions {
        var options = OperationsOptions(
            httpMetrics: httpMetrics,
            metricsToken: configuration[\.metrics.token],
            eventsLimit: RateLimit(
                perSecond: configuration[\.rateLimits.eventsPerSecond], burst: configuration[\.rateLimits.eventsBurst]),
            writesLimit: RateLimit(
                perSecond: configuration[\.rateLimits.writesPerSecond], burst: configuration[\.rateLimits.writesBurst]),
            dataDirectory: configuration[\.storage.driver] == .sqlite ? configuration.dataDirectory : nil,
            expectedMigrations: try migrator.migrations.count)
        options.minimumFreeBytes = configuration[\.storage.minFreeBytes]
        options.authFailuresLimit = RateLimit(
            perSecond: configuration[\.rateLimits.authFailuresPerSecond],
            burst: configuration[\.rateLimits.authFailuresBurst])
        options.readinessProbeIntervalMs = configuration[\.readiness.probeIntervalMs]
        options.logger = logger
        return options
    }

    var httpConfiguration: HTTPServer.Configuration {
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.ioQueues = configuration[\.http.ioQueues]
        http.handlerThreads = configuration[\.http.handlerThreads]
        http.handlerThreadsPerPartition = configuration[\.http.handlerThreadsPerApp]
        http.maxConnections = configuration[\.http.maxConnections]
        http.headerReadTimeoutMs = configuration[\.http.headerReadTimeoutMs]
        http.bodyReadTimeoutMs = configuration[\.http.bodyReadTimeoutMs]
        http.bodyDeadlineMs = configuration[\.http.bodyDeadlineMs]
        http.idleTimeoutMs = configuration[\.http.idleTimeoutMs]
        http.writeTimeoutMs = configuration[\.http.writeTimeoutMs]
        http.maxRequestsPerConnection = configuration[\.http.maxRequestsPerConnection]
        http.maxRequestLineBytes = configuration[\.http.maxRequestLineBytes]
        http.maxHeaderBytes = configuration[\.http.maxHeaderBytes]
        http.maxHeaderFields = configuration[\.http.maxHeaderFields]
        http.maxBodyBytes = configuration[\.http.maxBodyBytes]
        http.maxBufferedBodyBytes = configuration[\.http.maxBufferedBodyBytes]
        http.drainTimeoutMs = configuration[\.http.drainTimeoutMs]
        http.reusePort = configuration[\.http.reusePort]
        http.gzipMinBytes = configuration[\.http.gzipMinBytes]
        http.gzipLevel = configuration[\.http.gzipLevel]
        http.accessLog = configuration[\.accessLog]
        http.accessLogMaxPendingBytes = configuration[\.http.accessLogMaxPendingBytes]
        http.accessLogDropWhenBehind = configuration[\.http.accessLogDropWhenBehind]
        http.accessLogFlushMs = configuration[\.http.accessLogFlushMs]
        return http
    }

    /// The embedded migrations of the configured driver.
    var migrator: Migrator {
        get throws {
            do {
                return try configuration[\.storage.driver] == .sqlite
                    ? XizorSchema.migrator() : XizorSchema.postgresMigrator()
            } catch { throw CommandFailure("migrations: \(error)") }
        }
    }

    /// Where the data is, for messages: the SQLite file, or the PostgreSQL database.
    var storageDescription: String {
        switch configuration[\.storage.driver] {
        case .sqlite: configuration.databasePath
        case .postgres: "the PostgreSQL database (storage.postgresURL)"
        }
    }

    /// Opens the configured store. With `migrate`, applies pending migrations (returning their
    /// names); without, refuses a database that has any.
    func openStore(migrate: Bool) throws -> (store: any DataStore, applied: [String]) {
        switch configuration[\.storage.driver] {
        case .sqlite:
            let (pool, applied) = try openDatabase(migrate: migrate)
            return (SQLiteDataStore(pool: pool), applied)
        case .postgres:
            return try openPostgres(migrate: migrate)
        }
    }

    /// Connects to PostgreSQL and migrates it (every replica may: the migrator's advisory lock
    /// applies each file once) or checks that nothing is pending. Nothing touches the data directory.
    func openPostgres(migrate: Bool) throws -> (store: any DataStore, applied: [String]) {
        let url = configuration[\.storage.postgresURL] ?? ""
        let pool: PGPool
        do { pool = try PGPool(url: url, size: configuration[\.storage.postgresPoolSize]) } catch {
            throw CommandFailure("cannot connect to PostgreSQL (storage.postgresURL): \(error.message)")
        }
        do {
            let migrator = PGMigrator(try self.migrator)
            if migrate { return (PostgresDataStore(pool: pool), try migrator.migrate(pool)) }
            let pending = try migrator.pending(in: pool)
            guard pending.isEmpty else {
                throw CommandFailure(
                    "the PostgreSQL database has \(pending.count) pending migration(s) (\(pending.map(\.name).joined(separator: ", "))); run 'xizor migrate' first"
                )
            }
            return (PostgresDataStore(pool: pool), [])
        } catch let failure as CommandFailure {
            pool.close()
            throw failure
        } catch {
            pool.close()
            throw CommandFailure("migrations: \(error)")
        }
    }

    /// Opens the SQLite database, creating the data directory when missing. With `migrate`, applies
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
            throw CommandFailure(
                "cannot open database \(configuration.databasePath): \(error)",
                exitCode: existed ? DataDirectoryGuard.exitCode : .failure)
        }
        try guardian.checkOpened(pool, check: configuration[\.storage.startupCheck])
        do {
            let migrator = try XizorSchema.migrator()
            if migrate {
                let applied = try migrator.migrate(pool)
                try guardian.recordInitialised()
                return (pool, applied)
            }
            let pending = try migrator.pending(in: pool)
            guard pending.isEmpty else {
                throw CommandFailure(
                    "database \(configuration.databasePath) has \(pending.count) pending migration(s) (\(pending.map(\.name).joined(separator: ", "))); run 'xizor migrate' first"
                )
            }
            try guardian.recordInitialised()
            return (pool, [])
        } catch let error as MigrationError {
            throw CommandFailure("migrations: \(error)")
        }
    }

    /// The services over a migrated store.
    /// The purger of `serve`'s shared caches (nil without `cache.purgeURLs`), not yet started.
    func cachePurger(_ services: XizorServices) -> CachePurger? {
        let urls = configuration[\.cache.purgeURLs]
        guard !urls.isEmpty else { return nil }
        return CachePurger(
            store: services.store, clock: services.clock, feed: services.changes,
            options: CachePurger.Options(urls: urls, timeoutMs: configuration[\.cache.purgeTimeoutMs]),
            signal: services.outboxSignal, counters: services.cachePurges, logger: logger)
    }

    /// The webhook senders of `serve` (nil with `webhooks.enabled` off), not yet started.
    func webhookDispatcher(_ services: XizorServices) throws -> WebhookDispatcher? {
        guard configuration[\.webhooks.enabled] else { return nil }
        var options = WebhookDispatcher.Options()
        options.workers = configuration[\.webhooks.workers]
        options.timeoutMs = configuration[\.webhooks.timeoutMs]
        options.retryBaseMs = configuration[\.webhooks.retryBaseMs]
        options.retryForMs = Int64(configuration[\.webhooks.retryForMs])
        options.pollMs = configuration[\.webhooks.pollMs]
        options.allowPrivateTargets = configuration[\.webhooks.allowPrivateTargets]
        options.caFile = configuration[\.webhooks.caFile]
        options.maxInFlightPerApp = configuration[\.webhooks.maxInFlightPerApp]
        options.disableAfterMs = Int64(configuration[\.webhooks.disableAfterMs])
        if let caFile = options.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CommandFailure("webhooks.caFile \(caFile) is not a readable file")
        }
        return WebhookDispatcher(
            store: services.store, clock: services.clock, signal: services.outboxSignal,
            counters: services.webhookCounters, options: options
        ) {
            [logger] message in logger.warning("webhooks", [("detail", .string(message))])
        }
    }

    func openServices() throws -> XizorServices {
        let (store, applied) = try openStore(migrate: configuration[\.migrateOnStart])
        for name in applied { logger.info("applied migration", [("migration", .string(name))]) }
        try logEffectiveSettings(store)
        var limits = XizorServices.Limits()
        limits.eventWindow = EventService.TimeWindow(
            maxAgeMs: Int64(configuration[\.events.maxAgeMs]),
            maxFutureMs: Int64(configuration[\.events.maxFutureMs]))
        limits.maxKeysPerApp = configuration[\.keys.maxPerApp]
        limits.eventsPerSubscriberPerMinute = configuration[\.rateLimits.eventsPerSubscriberPerMinute]
        limits.requireCompleteLocales = configuration[\.publish.requireCompleteLocales]
        limits.maxDraftBytes = configuration[\.http.maxBodyBytes]
        limits.assetLocation = AssetLocation(publicOrigin: configuration[\.publicURL])
        limits.assets.maxImageBytes = configuration[\.assets.maxImageBytes]
        limits.assets.maxVideoBytes = configuration[\.assets.maxVideoBytes]
        limits.assets.maxLottieBytes = configuration[\.assets.maxLottieBytes]
        limits.assets.maxBytesPerApp = Int64(configuration[\.assets.maxBytesPerApp])
        limits.assets.cacheBytes = configuration[\.assets.cacheBytes]
        limits.auditRetentionDays = configuration[\.audit.retentionDays]
        limits.analytics.concurrent = configuration[\.analytics.maxConcurrent]
        limits.analytics.perApp = configuration[\.analytics.maxConcurrentPerApp]
        limits.analytics.queryTimeLimitMs = configuration[\.analytics.queryTimeLimitMs]
        limits.rollupBatch = configuration[\.analytics.rollupBatch]
        limits.eventRetention = EventRetention(
            days: configuration[\.events.retentionDays], chunk: configuration[\.events.retentionChunk])
        limits.webhooks.allowPrivateTargets = configuration[\.webhooks.allowPrivateTargets]
        limits.webhooks.maxEndpointsPerApp = configuration[\.webhooks.maxEndpointsPerApp]
        limits.webhooks.logRetentionDays = configuration[\.webhooks.logRetentionDays]
        var appleRoots: [[UInt8]] = []
        for path in configuration[\.stores.apple.rootCertificates] {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("stores.apple.rootCertificates: \(path) is not a readable file")
            }
            appleRoots.append([UInt8](bytes))
        }
        do { limits.appleSignatures = try RevenueService.appleVerifier(extraRoots: appleRoots) } catch {
            throw CommandFailure(
                "stores.apple.rootCertificates: \(configuration[\.stores.apple.rootCertificates][error.index]) is not an X.509 certificate (DER or PEM)"
            )
        }
        limits.sessions.idleSeconds = configuration[\.auth.sessionIdleSeconds]
        limits.sessions.maxSeconds = configuration[\.auth.sessionMaxSeconds]
        limits.sessions.lockoutThreshold = configuration[\.auth.lockoutThreshold]
        limits.sessions.lockoutSeconds = configuration[\.auth.lockoutSeconds]
        limits.sessions.concurrentHashes = configuration[\.auth.concurrentHashes]
        if let origin = configuration[\.publicURL], configuration[\.console.enabled] {
            limits.invitations.consoleURL = origin + configuration[\.console.path]
        }
        if let url = configuration[\.smtp.url] {
            var mail = Mailer.Options(url: url, from: configuration[\.smtp.from])
            mail.username = configuration[\.smtp.username]
            mail.password = configuration[\.smtp.password]
            mail.requireTLS = configuration[\.smtp.requireTLS]
            mail.timeoutMs = configuration[\.smtp.timeoutMs]
            limits.invitations.mailer = Mailer(options: mail)
        }
        limits.logFailure = { [logger] message in logger.warning(message) }
        limits.sessions.passwordSignIn = configuration[\.auth.passwordSignIn]
        if let issuer = configuration[\.oidc.issuer] {
            guard let clientID = configuration[\.oidc.clientId],
                let redirect = configuration[\.oidc.redirectURL]
                    ?? configuration[\.publicURL].map({ $0 + "/v1/session/oidc/callback" })
            else {
                throw CommandFailure(
                    "oidc.issuer is set: oidc.clientId and oidc.redirectURL (or publicURL) are needed too")
            }
            var sso = SingleSignOn.Options(issuer: issuer, clientID: clientID, redirectURL: redirect)
            sso.clientSecret = configuration[\.oidc.clientSecret]
            sso.allowedDomains = configuration[\.oidc.allowedDomains].map { $0.lowercased() }
            sso.defaultAppID = configuration[\.oidc.defaultAppId]
            sso.defaultRole = configuration[\.oidc.defaultRole]
            limits.singleSignOn = sso
        }
        if let path = configuration[\.signing.keyFile] {
            guard let bytes = FileManager.default.contents(atPath: path),
                let key = try? Ed25519PrivateKey(pem: [UInt8](bytes))
            else { throw CommandFailure("signing.keyFile: \(path) is not a readable PEM Ed25519 private key") }
            limits.signingKey = key
        }
        do { return try XizorServices(store: store, limits: limits) } catch {
            throw CommandFailure("cannot load state from \(storageDescription): \(error)")
        }
    }
}

extension CommandEnvironment {
    /// One line with the settings the database really runs with (read back from it), so a
    /// weakened durability setting shows in the log of every start, not only in the config.
    func logEffectiveSettings(_ store: any DataStore) throws {
        guard case .object(let settings) = try store.diagnostics() else { return }
        logger.info(
            "storage opened",
            settings.sorted { $0.key < $1.key }.map { key, value in
                switch value {
                case .string(let s): (key, .string(s))
                case .bool(let b): (key, .bool(b))
                case .number(let n): (key, .int(n.int64Value ?? 0))
                default: (key, .string(value.canonicalString))
                }
            } + (configuration[\.storage.driver] == .sqlite ? [("path", .string(configuration.databasePath))] : []))
    }
}

/// One JSON object on one line of standard output (the machine-readable result of a command).
func printJSONLine(_ pairs: [(String, LogValue)]) {
    var line = "{"
    JSONText.appendMembers(pairs, to: &line, leadingComma: false)
    line += "}\n"
    Logger.standardOutput(line)
}
