import PaywallFormat
import Synchronization

/// The forms a published document is served in: itself, and every older schema version down to 1
/// in each colour scheme (a colour pair collapses to one appearance) and, from a version 3
/// document, for each store (per-store product ids collapse to the requesting platform's).
///
/// Every form is built and validated when the version is published (`init(document:)` throws), so
/// serving can never meet a form that fails. A version loaded later (start-up, another process's
/// publish) was validated then: its older forms are built on the first request that needs one
/// (`init(published:)`), so a process holding 10,000 versions keeps one document tree each rather
/// than three, and starts without re-running the down-migrations and their validation.
public struct ServedForms: Sendable {
    public struct Key: Hashable, Sendable {
        public let schemaVersion: Int
        /// Nil for the document's own version, where the colour scheme changes nothing.
        public let colorScheme: ColorScheme?
        /// Nil unless a version 3 document is served older: only then does the store change the form.
        public let store: ProductStore?

        /// One packed word. The derived hash fed the enums' raw strings to the hasher (an enum
        /// with a raw value hashes it): most of a revalidation's form lookup.
        public func hash(into hasher: inout Hasher) {
            let scheme: Int =
                switch colorScheme {
                case nil: 0
                case .light: 1
                case .dark: 2
                }
            let store: Int =
                switch self.store {
                case nil: 0
                case .appStore: 1
                case .googlePlay: 2
                }
            hasher.combine(schemaVersion &<< 4 | scheme &<< 2 | store)
        }
    }

    /// Whether an older form of a document of `sourceVersion` depends on the client's store.
    static func storeMatters(from sourceVersion: Int, to target: Int) -> Bool { sourceVersion >= 3 && target < 3 }

    public let sourceVersion: Int
    private let source: JSONValue
    private let built: FormCache

    /// Older forms built so far (shared by every copy of these forms).
    private final class FormCache: Sendable {
        let forms = Mutex<[Key: JSONValue]>([:])
    }

    /// Builds every form now; throws `ServiceError.invalid` with each problem of a down-migrated form.
    public init(document: JSONValue) throws {
        self.init(published: document)
        var forms: [Key: JSONValue] = [:]
        var issues: [ValidationIssue] = []
        for target in SchemaVersions.supported where target < sourceVersion {
            let stores: [ProductStore?] =
                ServedForms.storeMatters(from: sourceVersion, to: target) ? ProductStore.allCases : [nil]
            for scheme in ColorScheme.allCases {
                for store in stores {
                    let what = [scheme.rawValue, store?.rawValue].compactMap { $0 }.joined(separator: ", ")
                    do {
                        let migrated = try SchemaMigrations.migrate(
                            document, to: target, colorScheme: scheme, store: store ?? .appStore)
                        let result = PaywallValidator.validate(migrated, asVersion: target)
                        issues += result.errors.map {
                            ValidationIssue(
                                path: $0.path, message: "served as schema version \(target) (\(what)): \($0.message)",
                                code: $0.code)
                        }
                        forms[Key(schemaVersion: target, colorScheme: scheme, store: store)] = migrated
                    } catch {
                        issues.append(
                            ValidationIssue(
                                path: "$.schemaVersion", message: "cannot serve as schema version \(target): \(error)",
                                code: "unsupported_schema_version"))
                    }
                }
            }
        }
        guard issues.isEmpty else {
            throw ServiceError.invalid(
                issues, detail: "The document cannot be served to older SDKs: \(issues.count) error(s).")
        }
        built.forms.withLock { $0 = forms }
    }

    /// The forms of a version validated when it was published: older forms are built when first asked for.
    public init(published document: JSONValue) {
        sourceVersion = document["schemaVersion"]?.intValue ?? 1
        source = document
        built = FormCache()
    }

    /// Older forms built so far (the source form is always there).
    public var builtCount: Int { built.forms.withLock { $0.count } }

    /// An older form that cannot be built from a stored version (one published before a stricter
    /// migration): the caller records it as a data failure, never serves the newer form instead.
    public struct Unservable: Error, Sendable, CustomStringConvertible {
        public let schemaVersion: Int
        public let reason: String
        public var description: String { "cannot serve schema version \(schemaVersion): \(reason)" }
    }

    /// The form for a client that supports `clientVersion`, prefers `colorScheme` and buys from
    /// `store` (asked only when the form depends on it, so the common request reads no platform
    /// header), and the schema version it is in.
    public func form(clientVersion: Int, colorScheme: ColorScheme, store: () -> ProductStore = { .appStore })
        throws(Unservable) -> (document: JSONValue, schemaVersion: Int, key: Key)
    {
        let key = self.key(clientVersion: clientVersion, colorScheme: colorScheme, store: store)
        return (try document(key), key.schemaVersion, key)
    }

    /// Which form such a client gets, without the form itself: an answer kept for the key needs
    /// nothing more, so a revalidation neither looks the document up nor copies it; `document(_:)`
    /// reads it, or builds it, for an answer being built.
    public func key(clientVersion: Int, colorScheme: ColorScheme, store: () -> ProductStore = { .appStore }) -> Key {
        let target = min(clientVersion, sourceVersion)
        guard target != sourceVersion else { return Key(schemaVersion: sourceVersion, colorScheme: nil, store: nil) }
        return Key(
            schemaVersion: target, colorScheme: colorScheme,
            store: ServedForms.storeMatters(from: sourceVersion, to: target) ? store() : nil)
    }

    /// The document in the form `key` (from `key(clientVersion:…)`) names: the source, or an older
    /// form built once and kept.
    public func document(_ key: Key) throws(Unservable) -> JSONValue {
        guard key.schemaVersion != sourceVersion else { return source }
        guard let colorScheme = key.colorScheme, key.schemaVersion < sourceVersion else {
            preconditionFailure("an older form's key names its colour scheme (ServedForms.key)")
        }
        if let document = built.forms.withLock({ $0[key] }) { return document }
        // Validated at publish, so this cannot fail for a version published through this server;
        // one stored before a stricter migration fails here, and is reported rather than answered
        // with a form the client cannot read.
        let migrated: JSONValue
        do {
            migrated = try SchemaMigrations.migrate(
                source, to: key.schemaVersion, colorScheme: colorScheme, store: key.store ?? .appStore)
        } catch {
            throw Unservable(schemaVersion: key.schemaVersion, reason: "\(error)")
        }
        built.forms.withLock { $0[key] = migrated }
        return migrated
    }
}
