import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    static let apps = Subcommand(
        spec: CommandSpec(
            name: "apps",
            summary:
                "Manage apps: 'xizor apps create NAME' prints {appId, secretKey, publicKey}; 'xizor apps list' prints one app per line.",
            positionals: "create NAME | list", minPositionals: 1, maxPositionals: 2,
            options: Commands.dataDirectoryOptions)
    ) { arguments in
        switch (arguments.positionals[0], arguments.positionals.count) {
        case ("create", 2), ("list", 1): break
        default: throw UsageError("use 'xizor apps create NAME' or 'xizor apps list'")
        }
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        if arguments.positionals[0] == "list" {
            var cursor: String?
            repeat {
                let page = try services.keys.listApps(cursor: cursor)
                for app in page.items { Logger.standardOutput(app.json.canonicalString + "\n") }
                cursor = page.nextCursor
            } while cursor != nil
            return .success
        }
        let created = try services.keys.createApp(name: arguments.positionals[1])
        printJSONLine([
            ("appId", .string(created.appID)), ("secretKey", .string(created.secretKey)),
            ("publicKey", .string(created.publicKey)),
        ])
        return .success
    }
}
