import Foundation

/// The resolved settings: the compiled-in defaults of `Settings`, then the `--config` file if one
/// is named, then `XIZOR_*` environment variables, then command-line flags (later sources
/// win). Read through a setting's key path, so every read is typed and none can miss:
/// `configuration[\.http.maxConnections]`.
struct Configuration: Sendable, Equatable {
    private(set) var values: [String: ConfigurationValue]

    /// Every setting at its compiled-in default.
    static let defaults = Configuration(
        values: Dictionary(
            uniqueKeysWithValues: Settings.keys.compactMap { key in
                key.defaultValue.map { (key.path, $0) }
            }))

    subscript<Value>(_ setting: KeyPath<Settings, Setting<Value>>) -> Value {
        let declared = Settings.all[keyPath: setting]
        // The loader only stores values it parsed with the setting's own kind.
        guard let value = declared.read(values[declared.key.path]) else {
            preconditionFailure(
                "setting \(declared.key.path) holds \(String(describing: values[declared.key.path])), not its declared kind"
            )
        }
        return value
    }

    /// The raw value of a key, by path (the reference table and tests).
    subscript(path path: String) -> ConfigurationValue? { values[path] }

    mutating func set(_ path: String, _ value: ConfigurationValue) { values[path] = value }

    var host: String { self[\.host] }
    var port: Int { self[\.port] }
    var dataDirectory: String { self[\.dataDir] }
    var databasePath: String { (dataDirectory as NSString).appendingPathComponent("xizor.sqlite") }
}

enum ConfigurationValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case bool(Bool)
    case strings([String])

    var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): String(b)
        case .strings(let s): s.joined(separator: ",")
        }
    }
}

/// A configuration problem, naming the key and where the bad value came from.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One setting without its Swift type: what the loader, the environment and the reference need.
struct ConfigurationKey: Sendable {
    enum Kind: Sendable { case string, int(min: Int, max: Int), bool, stringList, optionalString, choice([String]) }

    let path: String
    let kind: Kind
    let help: String
    /// Nil only for optional settings, which are unset by default.
    let defaultValue: ConfigurationValue?

    /// `http.maxConnections` → `XIZOR_HTTP_MAX_CONNECTIONS`; an acronym stays one word, its plural
    /// too (`renderer.lottiePlayerURL` → `XIZOR_RENDERER_LOTTIE_PLAYER_URL`, `cache.purgeURLs` →
    /// `XIZOR_CACHE_PURGE_URLS`).
    var environmentName: String {
        var name = "XIZOR_"
        let characters = Array(path)
        for (i, character) in characters.enumerated() {
            if character == "." {
                name += "_"
                continue
            }
            if character.isUppercase, i > 0 {
                let previous = characters[i - 1]
                // The `s` of a plural acronym (`URLs`) ends the acronym's word; it does not start one.
                let pluralS =
                    i + 1 < characters.count && characters[i + 1] == "s"
                    && (i + 2 == characters.count || !characters[i + 2].isLowercase)
                let nextIsLowercase = i + 1 < characters.count && characters[i + 1].isLowercase && !pluralS
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase) {
                    name += "_"
                }
            }
            name += character.uppercased()
        }
        return name
    }

    static func named(_ path: String) -> ConfigurationKey? { Settings.keys.first { $0.path == path } }
}

enum ConfigurationLoader {
    /// Starts from the compiled-in defaults, overlays `file` when one is given (every key in it must
    /// be known), then `environment`, then `overrides` (flag values keyed by JSON path), then checks
    /// what no single value can show (`ConfigurationChecks`). No file is read unless named: the
    /// binary behaves the same from any working directory.
    static func load(file: String?, environment: [String: String], overrides: [String: String])
        throws(ConfigurationError) -> Configuration
    {
        var values: [String: ConfigurationValue] = [:]
        if let path = file {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ConfigurationError("configuration file \(path) does not exist")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("cannot read configuration file \(path)")
            }
            let object: Any
            do { object = try JSONSerialization.jsonObject(with: data) } catch {
                throw ConfigurationError("configuration file \(path) is not valid JSON: \(error.localizedDescription)")
            }
            guard let root = object as? [String: Any] else {
                throw ConfigurationError("configuration file \(path) must hold a JSON object")
            }
            try flatten(root, prefix: "", into: &values, file: path)
        }
        for key in Settings.keys {
            if let raw = environment[key.environmentName] {
                values[key.path] = try parse(raw, as: key, source: "environment variable \(key.environmentName)")
            }
        }
        for (path, raw) in overrides {
            guard let key = ConfigurationKey.named(path) else { throw ConfigurationError("unknown setting \(path)") }
            values[path] = try parse(raw, as: key, source: "flag for \(path)")
        }
        var configuration = Configuration.defaults
        for (path, value) in values { configuration.set(path, value) }
        try ConfigurationChecks.check(configuration)
        return configuration
    }

    private static func flatten(
        _ object: [String: Any], prefix: String, into values: inout [String: ConfigurationValue], file: String
    ) throws(ConfigurationError) {
        for (name, value) in object {
            let path = prefix.isEmpty ? name : "\(prefix).\(name)"
            if let nested = value as? [String: Any] {
                try flatten(nested, prefix: path, into: &values, file: file)
                continue
            }
            guard let key = ConfigurationKey.named(path) else {
                throw ConfigurationError("unknown setting \(path) in \(file)")
            }
            if value is NSNull {
                if case .optionalString = key.kind { continue }
                throw ConfigurationError("setting \(path) in \(file) may not be null")
            }
            values[path] = try convert(value, as: key, source: file)
        }
    }

    private static func convert(_ value: Any, as key: ConfigurationKey, source: String) throws(ConfigurationError)
        -> ConfigurationValue
    {
        switch key.kind {
        case .string, .optionalString, .choice:
            guard let s = value as? String else {
                throw ConfigurationError("setting \(key.path) in \(source) must be a string")
            }
            return try parse(s, as: key, source: source)
        case .int:
            guard let n = value as? NSNumber, !isBoolean(n), n.doubleValue == n.doubleValue.rounded() else {
                throw ConfigurationError("setting \(key.path) in \(source) must be an integer")
            }
            return try parse(String(n.intValue), as: key, source: source)
        case .bool:
            guard let n = value as? NSNumber, isBoolean(n) else {
                throw ConfigurationError("setting \(key.path) in \(source) must be true or false")
            }
            return .bool(n.boolValue)
        case .stringList:
            guard let list = value as? [String] else {
                throw ConfigurationError("setting \(key.path) in \(source) must be an array of strings")
            }
            return .strings(list)
        }
    }

    /// JSONSerialization hands booleans back as NSNumber; their Objective-C type code is "c".
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// Parses a textual value (environment variable or flag).
    static func parse(_ raw: String, as key: ConfigurationKey, source: String) throws(ConfigurationError)
        -> ConfigurationValue
    {
        switch key.kind {
        case .string, .optionalString:
            guard !raw.isEmpty else { throw ConfigurationError("\(source): \(key.path) may not be empty") }
            return .string(raw)
        case .choice(let options):
            guard options.contains(raw.lowercased()) else {
                throw ConfigurationError(
                    "\(source): \(key.path) must be one of \(options.joined(separator: ", ")), not '\(raw)'")
            }
            return .string(raw.lowercased())
        case .int(let min, let max):
            guard let n = Int(raw), n >= min, n <= max else {
                throw ConfigurationError(
                    "\(source): \(key.path) must be an integer from \(min) to \(max), not '\(raw)'")
            }
            return .int(n)
        case .bool:
            switch raw.lowercased() {
            case "true", "1", "yes", "on": return .bool(true)
            case "false", "0", "no", "off": return .bool(false)
            default: throw ConfigurationError("\(source): \(key.path) must be true or false, not '\(raw)'")
            }
        case .stringList:
            return .strings(
                raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
    }
}
