import PaywallFormat

/// The forms a published document is served in: itself, and every older schema version down to 1
/// in each colour scheme (a colour pair collapses to one appearance). Produced and validated at
/// publish time, so serving can never meet a form that fails.
public struct ServedForms: Sendable {
    public struct Key: Hashable, Sendable {
        public let schemaVersion: Int
        /// Nil for the document's own version, where the colour scheme changes nothing.
        public let colorScheme: ColorScheme?
    }

    public let sourceVersion: Int
    public let forms: [Key: JSONValue]

    /// Builds every form; throws `ServiceError.invalid` with each problem of a down-migrated form.
    public init(document: JSONValue) throws {
        let version = document["schemaVersion"]?.intValue ?? 1
        sourceVersion = version
        var forms: [Key: JSONValue] = [Key(schemaVersion: version, colorScheme: nil): document]
        var issues: [ValidationIssue] = []
        for target in SchemaVersions.supported where target < version {
            for scheme in ColorScheme.allCases {
                do {
                    let migrated = try SchemaMigrations.migrate(document, to: target, colorScheme: scheme)
                    let result = PaywallValidator.validate(migrated, asVersion: target)
                    issues += result.errors.map {
                        ValidationIssue(path: $0.path, message: "served as schema version \(target) (\(scheme.rawValue)): \($0.message)", code: $0.code)
                    }
                    forms[Key(schemaVersion: target, colorScheme: scheme)] = migrated
                } catch {
                    issues.append(ValidationIssue(path: "$.schemaVersion", message: "cannot serve as schema version \(target): \(error)",
                                                  code: "unsupported_schema_version"))
                }
            }
        }
        guard issues.isEmpty else {
            throw ServiceError.invalid(issues, detail: "The document cannot be served to older SDKs: \(issues.count) error(s).")
        }
        self.forms = forms
    }

    /// The form for a client that supports `clientVersion` and prefers `colorScheme`, and the
    /// schema version it is in.
    public func form(clientVersion: Int, colorScheme: ColorScheme) -> (document: JSONValue, schemaVersion: Int, key: Key) {
        let target = min(clientVersion, sourceVersion)
        let key = target == sourceVersion ? Key(schemaVersion: target, colorScheme: nil) : Key(schemaVersion: target, colorScheme: colorScheme)
        if let document = forms[key] { return (document, target, key) }
        // Unreachable for a valid published document; serve the source rather than fail.
        return (forms[Key(schemaVersion: sourceVersion, colorScheme: nil)] ?? .null, sourceVersion, Key(schemaVersion: sourceVersion, colorScheme: nil))
    }
}
