import PaywallFormat

extension Commands {
    static let schema = Subcommand(
        spec: CommandSpec(
            name: "schema", summary: "Print the JSON Schema (draft 2020-12) of a paywall document version.",
            options: [
                .init("version", value: "N", help: "schema version (default: the latest)"),
                .init("markdown", help: "print the field reference tables instead"),
            ])
    ) { arguments in
        let version: Int
        if let text = arguments.value("version") {
            guard let v = Int(text) else { throw UsageError("--version needs an integer") }
            version = v
        } else {
            version = SchemaVersions.latest
        }
        if arguments.flag("markdown") {
            guard let text = SchemaReference.markdown(version: version) else {
                throw CommandFailure(
                    "unsupported schema version \(version) (supported: \(SchemaVersions.supported.map(String.init).joined(separator: ", ")))"
                )
            }
            print(text, terminator: "")
            return .success
        }
        guard let schema = JSONSchemaGenerator.schema(version: version) else {
            throw CommandFailure(
                "unsupported schema version \(version) (supported: \(SchemaVersions.supported.map(String.init).joined(separator: ", ")))"
            )
        }
        print(schema.prettyString, terminator: "")
        return .success
    }
}
