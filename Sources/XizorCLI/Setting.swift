/// One declared setting with its Swift type: the untyped key (path, kind, help, default) and how to
/// read its stored value back as `Value`. Made only by the factories below, so the kind the loader
/// parses with and the type a reader gets always agree.
struct Setting<Value>: Sendable {
    let key: ConfigurationKey
    let read: @Sendable (ConfigurationValue?) -> Value?
}

/// What reflection looks for when it lists `Settings` (the type without its generic parameter).
protocol AnySetting { var key: ConfigurationKey { get } }
extension Setting: AnySetting {}

extension Setting where Value == String {
    static func string(_ path: String, default value: String, help: String) -> Setting {
        Setting(key: ConfigurationKey(path: path, kind: .string, help: help, defaultValue: .string(value))) {
            if case .string(let s)? = $0 { s } else { nil }
        }
    }
}

extension Setting where Value == Int {
    static func int(_ path: String, default value: Int, _ range: ClosedRange<Int>, help: String) -> Setting {
        precondition(range.contains(value), "the default of \(path) is outside its range")
        return Setting(
            key: ConfigurationKey(
                path: path, kind: .int(min: range.lowerBound, max: range.upperBound), help: help,
                defaultValue: .int(value))
        ) {
            if case .int(let i)? = $0 { i } else { nil }
        }
    }
}

extension Setting where Value == Bool {
    static func bool(_ path: String, default value: Bool, help: String) -> Setting {
        Setting(key: ConfigurationKey(path: path, kind: .bool, help: help, defaultValue: .bool(value))) {
            if case .bool(let b)? = $0 { b } else { nil }
        }
    }
}

extension Setting where Value == [String] {
    static func list(_ path: String, default value: [String], help: String) -> Setting {
        Setting(key: ConfigurationKey(path: path, kind: .stringList, help: help, defaultValue: .strings(value))) {
            if case .strings(let list)? = $0 { list } else { nil }
        }
    }
}

extension Setting where Value == String? {
    /// A setting that is unset unless given (no default).
    static func optional(_ path: String, help: String) -> Setting {
        Setting(key: ConfigurationKey(path: path, kind: .optionalString, help: help, defaultValue: nil)) {
            stored -> String?? in
            switch stored {
            case nil: .some(nil)
            case .string(let s)?: .some(s)
            default: nil
            }
        }
    }
}

extension Setting {
    /// One of a fixed set of names, each standing for a typed value (`"full"` → `.full`).
    static func choice(_ path: String, default value: Value, _ names: KeyValuePairs<String, Value>, help: String)
        -> Setting
    where Value: Equatable & Sendable {
        let table = Array(names)
        guard let defaultName = table.first(where: { $0.value == value })?.key else {
            preconditionFailure("the default of \(path) has no name among its choices")
        }
        return Setting(
            key: ConfigurationKey(
                path: path, kind: .choice(table.map(\.key)), help: help, defaultValue: .string(defaultName))
        ) { stored in
            guard case .string(let name)? = stored else { return nil }
            return table.first { $0.key == name }?.value
        }
    }
}

extension Settings {
    /// Every setting in declaration order, found by reflection over `Settings.all` and its groups.
    static let keys: [ConfigurationKey] = collect(Mirror(reflecting: Settings.all))

    private static func collect(_ mirror: Mirror) -> [ConfigurationKey] {
        mirror.children.flatMap { child -> [ConfigurationKey] in
            if let setting = child.value as? any AnySetting { return [setting.key] }
            return collect(Mirror(reflecting: child.value))
        }
    }
}
