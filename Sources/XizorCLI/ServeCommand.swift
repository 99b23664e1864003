import Foundation
import HTTP
import PaywallRenderer
import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    static let serve = Subcommand(
        spec: CommandSpec(
            name: "serve", summary: "Serve the API (first stdout line: {\"event\":\"listening\",…}).",
            options: Commands.configurationOptions + [
                .init("demo-if-empty", help: "create the demo app when the database has no app yet")
            ])
    ) { arguments in
        // Before any thread exists, so every thread inherits the mask and SIGTERM waits for the
        // server's handler (see HTTPServer.handleTerminationSignals).
        HTTPServer.blockTerminationSignals()
        // The executable's choice, not the HTTP library's (its sockets send with MSG_NOSIGNAL): a log
        // pipe whose reader went away must not kill the server.
        signal(SIGPIPE, SIG_IGN)
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        let generatedToken = try ensureAdminToken(environment, services)
        var demo: DemoSetup.Created?
        if arguments.flag("demo-if-empty"), try DemoSetup.isEmpty(services) {
            demo = try DemoSetup.create(services)
        }
        do {
            try services.changes.startTailing(
                intervalMs: environment.configuration[\.changes.pollIntervalMs],
                retentionMs: Int64(environment.configuration[\.changes.retentionMs]),
                maxRows: environment.configuration[\.changes.maxRows]
            ) { [logger = environment.logger] error in
                logger.error("change feed", [("error", .string(error))])
            }
        } catch {
            throw CommandFailure(
                "cannot open the change feed's connection to \(environment.storageDescription): \(error)")
        }
        let retention = RetentionJobs(services: services) { [logger = environment.logger] message in
            logger.warning("retention", [("detail", .string(message))])
        }
        retention.start()
        let rollupJob = EventRollupJob(
            rollups: services.rollups, intervalMs: environment.configuration[\.analytics.rollupIntervalMs]
        ) { [logger = environment.logger] message in
            logger.warning("rollups", [("detail", .string(message))])
        }
        rollupJob.start()
        let dispatcher = try environment.webhookDispatcher(services)
        let purger = environment.cachePurger(services)
        let drain = DrainState()
        let httpMetrics = HTTPMetrics(loops: environment.httpConfiguration.resolvedIOQueues)
        var options = environment.applicationOptions
        options.operations = try environment.operationsOptions(httpMetrics: httpMetrics)
        let server = HTTPServer(
            configuration: environment.httpConfiguration,
            responder: XizorApplication.routes(
                services: services, options: options,
                isDraining: { drain.isDraining }),
            logger: environment.logger, drainState: drain, observer: httpMetrics)
        let port: Int
        do { port = try server.start() } catch {
            var message =
                "cannot listen on \(environment.configuration.host):\(environment.configuration.port): \(error)"
            if case HTTPServerError.bind(_, _, EADDRINUSE) = error {
                message +=
                    "; another process listens there. A second server may bind beside it (a zero-downtime restart)"
                    + " only when both run with http.reusePort (XIZOR_HTTP_REUSE_PORT=true); see docs/operations.md"
            }
            throw CommandFailure(message)
        }
        do { try dispatcher?.start() } catch { throw CommandFailure("cannot send webhooks: \(error)") }
        purger?.start()
        // Before the `listening` line: whoever reads it may send SIGTERM at once.
        server.handleTerminationSignals()
        printJSONLine([
            ("event", "listening"), ("host", .string(environment.configuration.host)), ("port", .int(Int64(port))),
        ])
        if let demo {
            environment.logger.info(
                "created the demo app; its keys are shown only now",
                demo.logFields(host: environment.configuration.host, port: port))
        }
        let url = FirstRunSummary.url(host: environment.configuration.host, port: port)
        let console = options.consolePath.map { url + $0 }
        if let console { environment.logger.info("console", [("url", .string(console))]) }
        let summary = FirstRunSummary(url: url, adminToken: generatedToken, demo: demo, console: console)
        if !summary.isEmpty { FileHandle.standardError.write(Data(summary.text.utf8)) }
        server.runUntilTerminated()
        environment.logger.debug("drained; closing the database")
        dispatcher?.stop()
        purger?.stop()
        retention.stop()
        rollupJob.stop()
        services.changes.stopTailing()
        // Checkpoints the WAL into the database file and removes it: a stopped server leaves one file.
        services.store.close()
        environment.logger.info("stopped")
        return .success
    }

    /// The admin token: the configured one is stored (hashed); with none configured and none
    /// stored, one is generated, printed once, and returned (for the first-run summary).
    static func ensureAdminToken(_ environment: CommandEnvironment, _ services: XizorServices) throws -> String? {
        if let token = environment.configuration[\.adminToken] {
            try services.keys.ensureAdminToken(token)
        } else if !services.keys.hasAdminKey() {
            let token = try services.keys.generateAdminToken()
            environment.logger.warning(
                "generated an admin token; it is shown only this once, store it now",
                [("adminToken", .string(token))])
            return token
        }
        return nil
    }
}
