import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    /// `xizor keys create APP_ID`: the operator's way back in for an owner left without a
    /// full-access key (the server may be down, the admin token lost). Writes the database
    /// directly, like `apps create`, as `POST /v1/apps/{appId}/keys` does; recorded as `key.created`
    /// with the CLI as actor, and not held to `keys.maxPerApp` (recovery must always work).
    static let keys = Subcommand(
        spec: CommandSpec(
            name: "keys",
            summary:
                "Mint a full-access secret key for an app (recovery): 'xizor keys create APP_ID [--label L]' prints {appId, keyId, secretKey}.",
            positionals: "create APP_ID", minPositionals: 2, maxPositionals: 2,
            options: Commands.dataDirectoryOptions + [
                .init("label", value: "L", help: "what the key is for, listed with it (1 to 100 characters)")
            ])
    ) { arguments in
        guard arguments.positionals[0] == "create" else { throw UsageError("use 'xizor keys create APP_ID'") }
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        let minted: (info: APIKeyInfo, key: String)
        do {
            minted = try services.keys.mintRecoveryKey(appID: arguments.positionals[1], label: arguments.value("label"))
        } catch let error as ServiceError {
            throw CommandFailure(error.detail)
        }
        printJSONLine([
            ("appId", .string(arguments.positionals[1])), ("keyId", .string(minted.info.id)),
            ("secretKey", .string(minted.key)),
        ])
        return .success
    }
}
