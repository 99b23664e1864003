import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    /// `xizor events export APP_ID`: the same NDJSON as `GET /v1/events/export`, read from the
    /// database directly (no server, no key), written to standard output a page at a time.
    static let events = Subcommand(
        spec: CommandSpec(
            name: "events",
            summary:
                "Export an app's events as NDJSON: 'xizor events export APP_ID [--from T] [--to T] [--environment E]' (as GET /v1/events/export).",
            positionals: "export APP_ID", minPositionals: 2, maxPositionals: 2,
            options: Commands.dataDirectoryOptions + [
                .init(
                    "from", value: "TIME", help: "start (inclusive): milliseconds since 1970 or an RFC 3339 date-time"),
                .init("to", value: "TIME", help: "end (exclusive): milliseconds since 1970 or an RFC 3339 date-time"),
                .init("environment", value: "E", help: "production (the default), sandbox or all"),
            ])
    ) { arguments in
        guard arguments.positionals[0] == "export" else { throw UsageError("use 'xizor events export APP_ID'") }
        let appID = arguments.positionals[1]
        let from: Int64?
        let to: Int64?
        let which: EnvironmentFilter
        do {
            from = try EventService.time(arguments.value("from"), name: "from")
            to = try EventService.time(arguments.value("to"), name: "to")
            which = try EnvironmentFilter.parse(arguments.value("environment"))
        } catch let error as ServiceError {
            throw UsageError(error.detail)
        }
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        var cursor: String?
        var known = false
        repeat {
            let page = try services.keys.listApps(cursor: cursor)
            known = page.items.contains { $0.id == appID }
            cursor = known ? nil : page.nextCursor
        } while cursor != nil
        guard known else { throw CommandFailure("no app '\(appID)' (xizor apps list)") }
        try services.events.export(appID: appID, from: from, to: to, environment: which) {
            Logger.standardOutput(String(decoding: $0, as: UTF8.self))
        }
        return .success
    }
}
