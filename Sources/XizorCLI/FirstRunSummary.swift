/// What a first start created, as a few lines a person reads (beside the JSON logs, which carry
/// the same values for machines): where the server is, the credentials shown only this once, and
/// one `curl` to try. Printed to stderr once, when there is something new to show.
struct FirstRunSummary {
    var url: String
    var adminToken: String?
    var demo: DemoSetup.Created?
    /// The console's address (nil with `console.enabled` off).
    var console: String?

    var isEmpty: Bool { adminToken == nil && demo == nil }

    var text: String {
        var lines = ["", "Xizor is serving \(url)"]
        if let console {
            lines.append(
                "  console      \(console)   (sign in as a person, or with an app's secret key or the admin token)")
        }
        if let adminToken {
            lines.append("  admin token  \(adminToken)   (shown only now: store it; XIZOR_ADMIN_TOKEN)")
        }
        if let demo {
            lines.append("  demo app     \(demo.app.appID)")
            if let password = demo.userPassword {
                lines.append("  demo user    \(DemoSetup.userEmail) / \(password)   (the console; shown only now)")
            }
            lines.append("  secret key   \(demo.app.secretKey)   (dashboard API and MCP; shown only now)")
            lines.append("  public key   \(demo.app.publicKey)   (the SDK endpoints)")
            lines.append("  placements   \(DemoSetup.placements.map(\.key).joined(separator: ", "))")
            lines.append("  try          \(DemoSetup.Created.curl(url: url, publicKey: demo.app.publicKey))")
        }
        if adminToken != nil {
            lines.append(
                "  first admin  xizor users create YOU@EXAMPLE.COM --admin   (a person's account: docs/teams.md)")
        }
        lines.append("  docs         README.md, docs/api.md, and \(url)/openapi.json")
        return lines.joined(separator: "\n") + "\n\n"
    }

    static func url(host: String, port: Int) -> String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)"
    }
}
