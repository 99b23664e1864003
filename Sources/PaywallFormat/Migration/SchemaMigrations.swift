/// One breaking change undone: turns a document of version `from` into version `to` (= from − 1).
/// Adding schema version 3 means adding one `SchemaMigrationStep(from: 3, to: 2, …)` to
/// `SchemaMigrations.steps` and its tests — nothing else.
public struct SchemaMigrationStep: Sendable {
    public let from: Int
    public let to: Int
    public let migrate: @Sendable (JSONValue, MigrationOptions) -> JSONValue
}

/// What the client asked for that a down-migration may need: the appearance for colour pairs, the
/// store its platform buys from for per-store product ids.
public struct MigrationOptions: Sendable, Hashable {
    public var colorScheme: ColorScheme
    public var store: ProductStore
    public init(colorScheme: ColorScheme = .light, store: ProductStore = .appStore) {
        self.colorScheme = colorScheme
        self.store = store
    }
}

public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document has no integer `schemaVersion`, or one this server does not know.
    case unsupportedSourceVersion(JSONValue?)
    case unsupportedTargetVersion(Int)

    public var description: String {
        switch self {
        case .unsupportedSourceVersion(let v):
            return "unsupported source schemaVersion \(v?.canonicalString ?? "(missing)")"
        case .unsupportedTargetVersion(let v): return "unsupported target schemaVersion \(v)"
        }
    }
}

/// Serves a document to a client that supports an older format: chains down-steps until the target.
public enum SchemaMigrations {
    public static let steps: [SchemaMigrationStep] = [
        SchemaMigrationStep(from: 3, to: 2, migrate: V3ToV2.migrate),
        SchemaMigrationStep(from: 2, to: 1, migrate: V2ToV1.migrate),
    ]

    /// The document as version `target`. A document already at or below `target` is returned unchanged
    /// (newer renderers read older documents). The result of migrating a valid document is valid at `target`.
    public static func migrate(
        _ document: JSONValue, to target: Int, colorScheme: ColorScheme = .light,
        store: ProductStore = .appStore
    ) throws(MigrationError) -> JSONValue {
        guard SchemaVersions.supported.contains(target) else { throw .unsupportedTargetVersion(target) }
        guard let version = document["schemaVersion"]?.intValue, SchemaVersions.supported.contains(version) else {
            throw .unsupportedSourceVersion(document["schemaVersion"])
        }
        var current = document
        var currentVersion = version
        let options = MigrationOptions(colorScheme: colorScheme, store: store)
        while currentVersion > target {
            guard let step = steps.first(where: { $0.from == currentVersion }) else {
                throw .unsupportedTargetVersion(target)
            }
            current = step.migrate(current, options)
            currentVersion = step.to
        }
        return current
    }
}

/// `migrate(document, to:colorScheme:)` as a free function.
public func migrate(
    _ document: JSONValue, to target: Int, colorScheme: ColorScheme = .light,
    store: ProductStore = .appStore
) throws(MigrationError) -> JSONValue {
    try SchemaMigrations.migrate(document, to: target, colorScheme: colorScheme, store: store)
}

/// Version 3 names a product per store (`storeProductIds`); version 2 has one `storeProductId`: the
/// requesting platform's store's, else the other store's (a slot sold in one store only).
enum V3ToV2 {
    @Sendable static func migrate(_ document: JSONValue, _ options: MigrationOptions) -> JSONValue {
        var result = document
        result["schemaVersion"] = 2
        guard let products = document["products"]?.arrayValue else { return result }
        result["products"] = .array(
            products.map { product in
                guard var slot = product.objectValue, let ids = slot.removeValue(forKey: "storeProductIds") else {
                    return product
                }
                if let id = ids[options.store.rawValue] ?? ids[options.store.other.rawValue] {
                    slot["storeProductId"] = id
                }
                return .object(slot)
            })
        return result
    }
}

/// Version 2 added `{light, dark}` theme colour pairs; version 1 gets the colour of the client's appearance.
enum V2ToV1 {
    @Sendable static func migrate(_ document: JSONValue, _ options: MigrationOptions) -> JSONValue {
        var result = document
        result["schemaVersion"] = 1
        if var colors = document["theme"]?["colors"]?.objectValue {
            for (name, value) in colors where value.objectValue != nil {
                let chosen = value[options.colorScheme.rawValue] ?? value["light"] ?? value["dark"]
                colors[name] = chosen
            }
            var theme = result["theme"] ?? [:]
            theme["colors"] = .object(colors)
            result["theme"] = theme
        }
        return result
    }
}
