import Foundation

extension Commands {
    /// `xizor config --reference`: the configuration reference generated from `ConfigurationKey.all`
    /// and the defaults file, so docs/operations.md is produced from (and tested against) the one table.
    static let config = Subcommand(
        spec: CommandSpec(name: "config", summary: "Print the configuration reference (every key, environment variable, default).",
                          options: [
                              .init("config", value: "FILE", help: "defaults file (default Config/xizor.json)"),
                              .init("reference", help: "print the reference as a Markdown table (the default)"),
                          ])
    ) { arguments in
        let defaults: Configuration
        do { defaults = try ConfigurationLoader.load(file: arguments.value("config"), environment: [:], overrides: [:]) } catch {
            throw CommandFailure("\(error)")
        }
        print(ConfigurationReference.markdown(defaults: defaults), terminator: "")
        return 0
    }
}

/// The configuration reference as Markdown: one row per key of `ConfigurationKey.all`.
enum ConfigurationReference {
    static func markdown(defaults: Configuration) -> String {
        var text = "| key | environment variable | default | values | meaning |\n| --- | --- | --- | --- | --- |\n"
        for key in ConfigurationKey.all {
            let value = defaults[key.path].map { "`\(display($0))`" } ?? "(unset)"
            text += "| `\(key.path)` | `\(key.environmentName)` | \(value) | \(values(key.kind)) | \(escape(key.help)) |\n"
        }
        return text
    }

    private static func display(_ value: ConfigurationValue) -> String {
        if case .strings(let list) = value { return "[" + list.joined(separator: ", ") + "]" }
        return value.description
    }

    private static func values(_ kind: ConfigurationKey.Kind) -> String {
        switch kind {
        case .string: "string"
        case .optionalString: "string, optional"
        case .bool: "`true`/`false`"
        case .stringList: "list (comma-separated in the environment)"
        case .int(let min, let max): "integer \(min)–\(max)"
        case .choice(let options): options.map { "`\($0)`" }.joined(separator: ", ")
        }
    }

    private static func escape(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
