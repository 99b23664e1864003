import Foundation

extension Commands {
    /// Flags every server-facing command accepts; each maps to a configuration key.
    static let configurationOptions: [CommandSpec.Option] = [
        .init(
            "config", value: "FILE",
            help: "configuration file overriding the compiled-in defaults (Config/xizor.json is a copy of them)"),
        .init("host", value: "H", help: "address to bind (XIZOR_HOST)"),
        .init("port", value: "P", help: "port to bind; 0 takes a free one (XIZOR_PORT)"),
        .init("data-dir", value: "DIR", help: "data directory holding xizor.sqlite (XIZOR_DATA_DIR)"),
        .init("log-level", value: "LEVEL", help: "debug, info, warning or error (XIZOR_LOG_LEVEL)"),
    ]

    /// The data-directory flags of commands that only touch the database.
    static let dataDirectoryOptions: [CommandSpec.Option] = [
        .init(
            "config", value: "FILE",
            help: "configuration file overriding the compiled-in defaults (Config/xizor.json is a copy of them)"),
        .init("data-dir", value: "DIR", help: "data directory holding xizor.sqlite (XIZOR_DATA_DIR)"),
    ]

    private static let flagKeys: [(flag: String, key: String)] = [
        ("host", "host"), ("port", "port"), ("data-dir", "dataDir"), ("log-level", "logLevel"),
    ]

    /// Resolves the configuration: file, then environment, then the command's flags.
    static func configuration(
        from arguments: ParsedArguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Configuration {
        var overrides: [String: String] = [:]
        for (flag, key) in flagKeys {
            if let value = arguments.value(flag) { overrides[key] = value }
        }
        do {
            return try ConfigurationLoader.load(
                file: arguments.value("config"), environment: environment, overrides: overrides)
        } catch {
            throw CommandFailure(error.message, exitCode: .configuration)
        }
    }
}
