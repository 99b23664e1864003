/// Collects one schema version's definitions in documentation order. Its two parts are extensions
/// in files of their own (`SchemaBuilder+Document.swift`: the document and the values it is made
/// of; `SchemaBuilder+Nodes.swift`: the node kinds), sharing the shorthands here.
struct SchemaBuilder {
    let version: Int
    /// Name and shape, in the order docs/schema.md lists them.
    private(set) var definitions: [(String, Shape)] = []

    init(version: Int) { self.version = version }

    mutating func def(_ name: String, _ shape: Shape) { definitions.append((name, shape)) }

    var lt: Shape { .localizedText }
    var url: Shape { .string(.httpsURL) }
    var color: Shape { .string(.color) }
    var nonNeg: Shape { .number(.nonNegative) }
}
