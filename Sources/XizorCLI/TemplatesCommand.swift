import PaywallFormat

extension Commands {
    static let templates = Subcommand(
        spec: CommandSpec(
            name: "templates", summary: "List the paywall templates, or print one as JSON.",
            positionals: "[NAME]", minPositionals: 0, maxPositionals: 1)
    ) { arguments in
        guard let name = arguments.positionals.first else {
            for (name, document) in try PaywallTemplates.all() {
                print(name + "\t" + (document["name"]?.stringValue ?? ""))
            }
            return .success
        }
        guard let document = try PaywallTemplates.document(named: name) else {
            throw CommandFailure(
                "unknown template '\(name)' (known: \(PaywallTemplates.names.joined(separator: ", ")))")
        }
        print(document.prettyString, terminator: "")
        return .success
    }
}
