/// The declarative description of what a paywall document may contain. One set of `Shape`s per schema
/// version (see `SchemaDefinitions`) drives BOTH the strict validator's structural checks and the
/// generated JSON Schema, so the two cannot drift apart.
public indirect enum Shape: Sendable {
    /// A string in a given format (pattern, URL, token, …).
    case string(StringFormat)
    /// One of a fixed set of strings.
    case enumeration([String], code: String = "invalid_enum_value")
    /// Exactly this value (e.g. `schemaVersion`).
    case constant(JSONValue)
    case number(NumberRange)
    case boolean
    case array(ArrayShape)
    case object(ObjectShape)
    /// An object used as a map: keys in `keys` format, every value of shape `value`.
    case map(keys: StringFormat, value: Shape, minProperties: Int)
    /// A locale → template map; `LocalizedText` in the spec. Walks like a map, and is collected for the
    /// locale and template checks.
    case localizedText
    /// One of several shapes, each of a different JSON type (number or string, string or object, …).
    case alternatives([Shape])
    /// A named definition (`$defs` in the JSON Schema).
    case ref(String)
    /// An object whose `tag` member selects one of the named definitions.
    case union(TaggedUnion)
    /// Any JSON object (the `custom` action's payload).
    case anyObject

    /// The JSON types this shape accepts, for picking an alternative and for messages.
    var jsonTypes: [String] {
        switch self {
        case .string, .enumeration: return ["string"]
        case .constant(let v): return [v.typeName]
        case .number(let r): return [r.integer ? "integer" : "number"]
        case .boolean: return ["boolean"]
        case .array: return ["array"]
        case .object, .map, .localizedText, .union, .anyObject: return ["object"]
        case .alternatives(let shapes): return shapes.flatMap(\.jsonTypes)
        case .ref: return ["object"]
        }
    }
}

/// Bounds on a number.
public struct NumberRange: Sendable {
    public var integer: Bool
    public var minimum: Double?
    public var exclusiveMinimum: Double?
    public var maximum: Double?
    public var multipleOf: Int?

    public init(
        integer: Bool = false, minimum: Double? = nil, exclusiveMinimum: Double? = nil,
        maximum: Double? = nil, multipleOf: Int? = nil
    ) {
        self.integer = integer
        self.minimum = minimum
        self.exclusiveMinimum = exclusiveMinimum
        self.maximum = maximum
        self.multipleOf = multipleOf
    }

    public static let any = NumberRange()
    public static let nonNegative = NumberRange(minimum: 0)
    public static let positive = NumberRange(exclusiveMinimum: 0)
    public static let unit = NumberRange(minimum: 0, maximum: 1)
    public static let nonNegativeInteger = NumberRange(integer: true, minimum: 0)
    public static let positiveInteger = NumberRange(integer: true, minimum: 1)

    var summary: String {
        var parts: [String] = [integer ? "integer" : "number"]
        if let m = minimum { parts.append("≥ \(JSONNumber.double(m))") }
        if let m = exclusiveMinimum { parts.append("> \(JSONNumber.double(m))") }
        if let m = maximum { parts.append("≤ \(JSONNumber.double(m))") }
        if let m = multipleOf { parts.append("multiple of \(m)") }
        return parts.joined(separator: " ")
    }
}

public struct ArrayShape: Sendable {
    public var items: Shape
    public var minItems: Int
    public var maxItems: Int?
    /// When set, items must be unique and a repeated item is reported with this code.
    public var uniqueCode: String?

    public init(_ items: Shape, minItems: Int = 0, maxItems: Int? = nil, uniqueCode: String? = nil) {
        self.items = items
        self.minItems = minItems
        self.maxItems = maxItems
        self.uniqueCode = uniqueCode
    }
}

/// One member of an object.
public struct Field: Sendable {
    public var name: String
    public var shape: Shape
    public var required: Bool
    /// What a reader assumes when the member is absent (documented and emitted as `default`).
    public var defaultValue: JSONValue?
    public var doc: String
    /// Marks `timer.label`, the one place where `{{timer.remaining}}` is a known variable.
    public var allowsTimerVariable: Bool

    public init(
        _ name: String, _ shape: Shape, required: Bool = false, default defaultValue: JSONValue? = nil,
        doc: String = "", allowsTimerVariable: Bool = false
    ) {
        self.name = name
        self.shape = shape
        self.required = required
        self.defaultValue = defaultValue
        self.doc = doc
        self.allowsTimerVariable = allowsTimerVariable
    }
}

/// "When `field` is `value`, these members are required" (a duration timer needs `durationSeconds` and `id`).
public struct ConditionalRequirement: Sendable {
    public var field: String
    public var value: String
    public var required: [String]
    public var code: String
}

public struct ObjectShape: Sendable {
    public var fields: [Field]
    public var conditionals: [ConditionalRequirement]
    /// Groups of members of which at most one may be present.
    public var exclusive: [[String]]
    /// At least this many members (the store ids of a product slot: one store or both).
    public var minProperties: Int
    public var doc: String

    public init(
        _ fields: [Field], conditionals: [ConditionalRequirement] = [], exclusive: [[String]] = [],
        minProperties: Int = 0,
        doc: String = ""
    ) {
        self.fields = fields
        self.conditionals = conditionals
        self.exclusive = exclusive
        self.minProperties = minProperties
        self.doc = doc
    }

    func field(named name: String) -> Field? { fields.first { $0.name == name } }
}

/// A discriminated union: `tag` names the variant, each variant is a named object definition.
public struct TaggedUnion: Sendable {
    public var tag: String
    /// (tag value, definition name), in documentation order.
    public var variants: [(value: String, definition: String)]
    /// The error code for a tag value that names no variant (`unknown_node_type`, …).
    public var unknownCode: String

    func definition(for value: String) -> String? { variants.first { $0.value == value }?.definition }
}
