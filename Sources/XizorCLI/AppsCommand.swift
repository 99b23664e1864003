import XizorAPI

extension Commands {
    static let apps = Subcommand(
        spec: CommandSpec(name: "apps", summary: "Manage apps: 'xizor apps create NAME' prints {appId, secretKey, publicKey}.",
                          positionals: "create NAME", minPositionals: 2, maxPositionals: 2,
                          options: Commands.dataDirectoryOptions)
    ) { arguments in
        guard arguments.positionals[0] == "create" else {
            throw UsageError("unknown apps subcommand '\(arguments.positionals[0])'; use 'create NAME'")
        }
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        let created = try services.keys.createApp(name: arguments.positionals[1])
        printJSONLine([("appId", .string(created.appID)), ("secretKey", .string(created.secretKey)), ("publicKey", .string(created.publicKey))])
        return .success
    }
}
