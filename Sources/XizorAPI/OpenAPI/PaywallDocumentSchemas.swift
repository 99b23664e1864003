import PaywallFormat
import XizorDomain

/// The paywall document's JSON Schema (from `JSONSchemaGenerator`) as OpenAPI components: each
/// version's `$defs` become `PaywallV<n>_<Name>` with their `$ref`s rewritten to resolve inside
/// `#/components/schemas`, `PaywallDocumentV<n>` is the root, and `PaywallDocument` any supported version.
enum PaywallDocumentSchemas {
    static var components: [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        var roots: [JSONValue] = []
        for version in SchemaVersions.supported {
            guard let schema = JSONSchemaGenerator.schema(version: version), let defs = schema["$defs"]?.objectValue
            else { continue }
            let prefix = "PaywallV\(version)_"
            for (name, definition) in defs { out[prefix + name] = rewriteRefs(definition, prefix: prefix) }
            let root = "PaywallDocumentV\(version)"
            out[root] = [
                "title": schema["title"] ?? .string(root),
                "description": schema["description"] ?? "",
                "$ref": .string("#/components/schemas/\(prefix)\(SchemaDefinitions.rootName)"),
            ]
            roots.append(APISchemas.ref(root))
        }
        out["PaywallDocument"] = [
            "description": "A paywall document of any supported schemaVersion.", "anyOf": .array(roots),
        ]
        return out
    }

    static func rewriteRefs(_ value: JSONValue, prefix: String) -> JSONValue {
        switch value {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, member) in object {
                if key == "$ref", let target = member.stringValue, target.hasPrefix("#/$defs/") {
                    result[key] = .string("#/components/schemas/" + prefix + target.dropFirst("#/$defs/".count))
                } else {
                    result[key] = rewriteRefs(member, prefix: prefix)
                }
            }
            return .object(result)
        case .array(let items):
            return .array(items.map { rewriteRefs($0, prefix: prefix) })
        default:
            return value
        }
    }
}
