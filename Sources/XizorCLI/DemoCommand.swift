import XizorAPI
import XizorDomain
import XizorLog

/// The demo app: the three templates published on `onboarding`, `upsell` and `settings`, so a
/// newcomer sees a paywall within a minute.
enum DemoSetup {
    static let placements: [(key: String, template: String)] = [
        ("onboarding", "cinematic"), ("upsell", "clean"), ("settings", "lottie_delight"),
    ]

    /// The demo's person: the app's owner, to sign in to the console as (docs/teams.md).
    static let userEmail = "demo@xizor.dev"

    struct Created {
        let app: KeyService.CreatedApp
        /// The demo user's generated password, when this run created the user (an existing demo
        /// user only becomes the new app's owner too).
        let userPassword: String?

        func logFields(host: String, port: Int) -> [(String, LogValue)] {
            var fields: [(String, LogValue)] = [
                ("appId", .string(app.appID)), ("secretKey", .string(app.secretKey)),
                ("publicKey", .string(app.publicKey)),
                (
                    "try",
                    .string(Created.curl(url: FirstRunSummary.url(host: host, port: port), publicKey: app.publicKey))
                ),
                ("userEmail", .string(DemoSetup.userEmail)),
            ]
            if let userPassword { fields.append(("userPassword", .string(userPassword))) }
            return fields
        }

        static func curl(url: String, publicKey: String) -> String {
            "curl -H 'Authorization: Bearer \(publicKey)' '\(url)/v1/sdk/placements/onboarding/paywall'"
        }
    }

    static func isEmpty(_ services: XizorServices) throws -> Bool {
        try !services.keys.hasApps()
    }

    static func create(_ services: XizorServices) throws -> Created {
        let app = try services.keys.createApp(name: "Demo app")
        for (key, template) in placements {
            let paywall = try services.paywalls.create(appID: app.appID, from: .template(template, name: nil))
            _ = try services.paywalls.publish(appID: app.appID, id: paywall.id, idempotencyKey: nil)
            _ = try services.placements.assign(appID: app.appID, key: key, paywallID: paywall.id)
        }
        let (user, password) = try UsersCommand.createOrFind(services, email: userEmail, instanceAdmin: false)
        _ = try services.users.setRole(appID: app.appID, userID: user.id, ["role": "owner"])
        return Created(app: app, userPassword: password)
    }
}

extension Commands {
    static let demo = Subcommand(
        spec: CommandSpec(
            name: "demo",
            summary: "Create a demo app with the three templates published on onboarding, upsell and settings.",
            options: Commands.configurationOptions)
    ) { arguments in
        let environment = try CommandEnvironment(arguments)
        let services = try environment.openServices()
        let demo = try DemoSetup.create(services)
        printJSONLine(demo.logFields(host: environment.configuration.host, port: environment.configuration.port))
        return .success
    }
}
