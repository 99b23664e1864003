import Foundation
import HTTP
import Logging
import PaywallRenderer
import XizorAPI

extension Commands {
    static let serve = Subcommand(
        spec: CommandSpec(name: "serve", summary: "Serve the API (first stdout line: {\"event\":\"listening\",…}).",
                          options: Commands.configurationOptions + [
                              .init("demo-if-empty", help: "create the demo app when the database has no app yet"),
                          ])
    ) { arguments in
        // Before any thread exists, so every thread inherits the mask and SIGTERM waits for the
        // server's handler (see HTTPServer.handleTerminationSignals).
        HTTPServer.blockTerminationSignals()
        // The executable's choice, not the HTTP library's (its sockets send with MSG_NOSIGNAL): a log
        // pipe whose reader went away must not kill the server.
        signal(SIGPIPE, SIG_IGN)
        let environment = try CommandEnvironment(arguments)
        try checkAdminToken(environment)
        try checkBodyBudget(environment)
        try checkMediaOrigins(environment)
        let services = try environment.openServices()
        try ensureAdminToken(environment, services)
        var demo: DemoSetup.Created?
        if arguments.flag("demo-if-empty"), try DemoSetup.isEmpty(services) {
            demo = try DemoSetup.create(services)
        }
        let drain = DrainState()
        let httpMetrics = HTTPMetrics()
        var options = environment.applicationOptions
        options.operations = environment.operationsOptions(httpMetrics: httpMetrics)
        let server = HTTPServer(configuration: environment.httpConfiguration,
                                responder: XizorApplication.routes(services: services, options: options,
                                                                   isDraining: { drain.isDraining }),
                                logger: environment.logger, drainState: drain, observer: httpMetrics)
        let port: Int
        do { port = try server.start() } catch {
            throw CommandFailure("cannot listen on \(environment.configuration.host):\(environment.configuration.port): \(error)")
        }
        // Before the `listening` line: whoever reads it may send SIGTERM at once.
        server.handleTerminationSignals()
        printJSONLine([("event", "listening"), ("host", .string(environment.configuration.host)), ("port", .int(Int64(port)))])
        if let demo {
            environment.logger.info("created the demo app; its keys are shown only now", demo.logFields(host: environment.configuration.host, port: port))
        }
        server.runUntilTerminated()
        environment.logger.debug("drained; closing the database")
        // Checkpoints the WAL into the database file and removes it: a stopped server leaves one file.
        services.pool.close()
        environment.logger.info("stopped")
        return 0
    }

    /// The configured admin token creates and archives apps: a guessable length is refused before
    /// anything is opened, not warned about.
    static func checkAdminToken(_ environment: CommandEnvironment) throws {
        guard let token = environment.configuration.string("adminToken"), token.count < KeyService.minimumAdminTokenLength else { return }
        throw CommandFailure("adminToken (XIZOR_ADMIN_TOKEN) is \(token.count) characters; it needs at least \(KeyService.minimumAdminTokenLength)",
                             exitCode: 78)
    }

    /// A body budget smaller than the largest body would refuse every such body: a configuration
    /// mistake, refused at start rather than discovered as 503s.
    static func checkBodyBudget(_ environment: CommandEnvironment) throws {
        let http = environment.httpConfiguration
        guard http.maxBufferedBodyBytes < http.maxBodyBytes else { return }
        throw CommandFailure("http.maxBufferedBodyBytes (\(http.maxBufferedBodyBytes)) is smaller than http.maxBodyBytes (\(http.maxBodyBytes))",
                             exitCode: 78)
    }

    /// Media origins go into every page's Content-Security-Policy: one that is not an https origin
    /// (or carries a `;` or a quote) would loosen or break it, so it is refused at start.
    static func checkMediaOrigins(_ environment: CommandEnvironment) throws {
        for origin in environment.configuration.strings("renderer.mediaOrigins") where !RenderOptions.isValidMediaOrigin(origin) {
            throw CommandFailure("renderer.mediaOrigins: \"\(origin)\" is not `https:` or an https://host[:port] origin", exitCode: 78)
        }
    }

    /// The admin token: the configured one is stored (hashed); with none configured and none
    /// stored, one is generated and printed once.
    static func ensureAdminToken(_ environment: CommandEnvironment, _ services: XizorServices) throws {
        if let token = environment.configuration.string("adminToken") {
            try services.keys.ensureAdminToken(token)
        } else if !services.keys.hasAdminKey() {
            let token = try services.keys.generateAdminToken()
            environment.logger.warning("generated an admin token; it is shown only this once, store it now",
                                       [("adminToken", .string(token))])
        }
    }
}
