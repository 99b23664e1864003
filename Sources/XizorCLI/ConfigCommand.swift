import Foundation

extension Commands {
    /// `xizor config --reference`: the configuration reference generated from `Settings` (each
    /// key's compiled-in default, or those of a `--config` file), so docs/operations.md is produced
    /// from (and tested against) the one declaration.
    static let config = Subcommand(
        spec: CommandSpec(
            name: "config", summary: "Print the configuration reference (every key, environment variable, default).",
            options: [
                .init(
                    "config", value: "FILE", help: "show the values of this file instead of the compiled-in defaults"),
                .init("reference", help: "print the reference as a Markdown table (the default)"),
            ])
    ) { arguments in
        let defaults: Configuration
        if let file = arguments.value("config") {
            do { defaults = try ConfigurationLoader.load(file: file, environment: [:], overrides: [:]) } catch {
                throw CommandFailure("\(error)", exitCode: .configuration)
            }
        } else {
            defaults = .defaults
        }
        print(ConfigurationReference.markdown(defaults: defaults), terminator: "")
        return .success
    }
}

/// The configuration reference as Markdown: one row per key of `Settings`.
enum ConfigurationReference {
    static func markdown(defaults: Configuration) -> String {
        var text = "| key | environment variable | default | values | meaning |\n| --- | --- | --- | --- | --- |\n"
        for key in Settings.keys {
            let value = defaults[path: key.path].map { "`\(display($0))`" } ?? "(unset)"
            text +=
                "| `\(key.path)` | `\(key.environmentName)` | \(value) | \(values(key.kind)) | \(escape(key.help)) |\n"
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
