import XizorAPI
import XizorDomain
import XizorLog

extension Commands {
    /// `xizor signing-keys list|rotate`: the Ed25519 keys SDK answers are signed with (docs/scaling.md,
    /// "Signed answers"). `rotate` makes the published `next` key current — ship apps pinning it
    /// first — keeps the old one published as `previous`, and publishes a new `next`; every server
    /// signs with the new key after its next catch-up of the change feed.
    static let signingKeys = Subcommand(
        spec: CommandSpec(
            name: "signing-keys",
            summary:
                "The keys SDK answers are signed with: 'xizor signing-keys list' prints them, 'xizor signing-keys rotate' makes the next key current.",
            positionals: "list|rotate", minPositionals: 1, maxPositionals: 1,
            options: Commands.dataDirectoryOptions)
    ) { arguments in
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        switch arguments.positionals[0] {
        case "list":
            print(services.signing.published.canonicalString)
        case "rotate":
            do { _ = try AnswerSigning.rotate(store: services.store, clock: services.clock) } catch {
                throw CommandFailure("cannot rotate the signing keys: \(error)")
            }
            try services.signing.reload()
            print(services.signing.published.canonicalString)
        default:
            throw UsageError("use 'xizor signing-keys list' or 'xizor signing-keys rotate'")
        }
        return .success
    }
}
