/// Generates the JSON Schema (draft 2020-12) of a schema version from its `SchemaDefinitions`. It covers
/// structure only; the cross-checks (tokens, slots, locales, templates, unique ids) are the validator's.
public enum JSONSchemaGenerator {
    public static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// How `$ref`s are written: `refPrefix + namePrefix + Name`. The defaults make a standalone schema;
    /// an OpenAPI document embeds the definitions with `refPrefix: "#/components/schemas/"` and a
    /// `namePrefix` such as `"PaywallV2"` so the versions do not collide.
    struct Naming {
        var refPrefix = "#/$defs/"
        var namePrefix = ""
        func ref(_ name: String) -> JSONValue { .string(refPrefix + namePrefix + name) }
    }

    /// The JSON Schema document of `version`, or nil for an unsupported version.
    public static func schema(version: Int) -> JSONValue? {
        guard let definitions = definitions(version: version) else { return nil }
        return [
            "$schema": .string(draft),
            "$id": .string("https://xizor.dev/schemas/paywall-document-v\(version).json"),
            "title": .string("Xizor paywall document, schemaVersion \(version)"),
            "description":
                "Structure of a paywall document. Cross-references (theme tokens, product slots, locales, template variables, unique ids) are checked by the Xizor validator.",
            "$ref": .string("#/$defs/\(SchemaDefinitions.rootName)"),
            "$defs": .object(definitions),
        ]
    }

    /// The named schemas of `version` (root: `namePrefix + "PaywallDocument"`), for embedding in another
    /// document such as OpenAPI's `components.schemas`. Nil for an unsupported version.
    public static func definitions(version: Int, refPrefix: String = "#/$defs/", namePrefix: String = "") -> [String:
        JSONValue]?
    {
        guard let defs = SchemaDefinitions.forVersion(version) else { return nil }
        let naming = Naming(refPrefix: refPrefix, namePrefix: namePrefix)
        var definitions: [String: JSONValue] = [:]
        for name in defs.order {
            if let shape = defs.definitions[name] { definitions[namePrefix + name] = schema(for: shape, naming) }
        }
        definitions[namePrefix + "LocalizedText"] = localizedText
        return definitions
    }

    static let localizedText: JSONValue = [
        "type": "object",
        "minProperties": 1,
        "propertyNames": ["pattern": .string(StringFormat.localeTag.pattern ?? "")],
        "additionalProperties": ["type": "string", "maxLength": .number(DocumentLimits.textLength)],
        "description": "Locale → template ({{variables}} and markdown-lite).",
    ]

    static func schema(for shape: Shape, _ naming: Naming) -> JSONValue {
        switch shape {
        case .string(let format):
            var s: JSONValue = ["type": "string"]
            if let p = format.pattern { s["pattern"] = .string(p) }
            if let m = format.minLength { s["minLength"] = .number(m) }
            return s
        case .enumeration(let values, _):
            return ["enum": .array(values.map(JSONValue.string))]
        case .constant(let value):
            return ["const": value]
        case .number(let range):
            var s: JSONValue = ["type": .string(range.integer ? "integer" : "number")]
            if let m = range.minimum { s["minimum"] = number(m) }
            if let m = range.exclusiveMinimum { s["exclusiveMinimum"] = number(m) }
            if let m = range.maximum { s["maximum"] = number(m) }
            if let m = range.multipleOf { s["multipleOf"] = .number(m) }
            return s
        case .boolean:
            return ["type": "boolean"]
        case .array(let a):
            var s: JSONValue = ["type": "array", "items": schema(for: a.items, naming)]
            if a.minItems > 0 { s["minItems"] = .number(a.minItems) }
            if let m = a.maxItems { s["maxItems"] = .number(m) }
            if a.uniqueCode != nil { s["uniqueItems"] = true }
            return s
        case .object(let o):
            var properties: [String: JSONValue] = [:]
            for field in o.fields {
                var p = schema(for: field.shape, naming)
                if let d = field.defaultValue { p = withAnnotation(p, "default", d) }
                if !field.doc.isEmpty { p = withAnnotation(p, "description", .string(field.doc)) }
                properties[field.name] = p
            }
            var s: JSONValue = ["type": "object", "properties": .object(properties), "additionalProperties": false]
            let required = o.fields.filter(\.required).map { JSONValue.string($0.name) }
            if !required.isEmpty { s["required"] = .array(required) }
            if o.minProperties > 0 { s["minProperties"] = .number(o.minProperties) }
            var all: [JSONValue] = []
            for c in o.conditionals {
                all.append([
                    "if": ["properties": [c.field: ["const": .string(c.value)]], "required": [.string(c.field)]],
                    "then": ["required": .array(c.required.map(JSONValue.string))],
                ])
            }
            for group in o.exclusive {
                // At most one of the group: no pair of them together.
                for i in group.indices {
                    for j in group.indices where j > i {
                        all.append(["not": ["required": [.string(group[i]), .string(group[j])]]])
                    }
                }
            }
            if !all.isEmpty { s["allOf"] = .array(all) }
            if !o.doc.isEmpty { s["description"] = .string(o.doc) }
            return s
        case .map(let keys, let value, let minProperties):
            var s: JSONValue = ["type": "object", "additionalProperties": schema(for: value, naming)]
            if let p = keys.pattern { s["propertyNames"] = ["pattern": .string(p)] }
            if minProperties > 0 { s["minProperties"] = .number(minProperties) }
            return s
        case .localizedText:
            return ["$ref": naming.ref("LocalizedText")]
        case .alternatives(let shapes):
            return ["anyOf": .array(shapes.map { schema(for: $0, naming) })]
        case .ref(let name):
            return ["$ref": naming.ref(name)]
        case .union(let u):
            let branches: [JSONValue] = u.variants.map { v in
                [
                    "if": ["properties": [u.tag: ["const": .string(v.value)]], "required": [.string(u.tag)]],
                    "then": ["$ref": naming.ref(v.definition)],
                ]
            }
            return [
                "type": "object", "required": [.string(u.tag)],
                "properties": [u.tag: ["enum": .array(u.variants.map { .string($0.value) })]],
                "allOf": .array(branches),
            ]
        case .anyObject:
            return ["type": "object"]
        }
    }

    /// `$ref` siblings are allowed in 2020-12, so annotations can sit beside any keyword.
    static func withAnnotation(_ schema: JSONValue, _ key: String, _ value: JSONValue) -> JSONValue {
        var s = schema
        s[key] = value
        return s
    }

    static func number(_ d: Double) -> JSONValue {
        if let i = exactInt64(d) { return .number(.integer(i)) }
        return .number(.double(d))
    }
}
