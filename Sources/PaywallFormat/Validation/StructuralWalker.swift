/// A path under construction: a parent-linked list, so descending costs one small allocation and the
/// textual form is only built for the few paths that end up in an error or a fact that is used.
struct WalkPath: Sendable {
    final class Node: Sendable {
        let parent: Node?
        let component: JSONPath.Component
        init(parent: Node?, component: JSONPath.Component) {
            self.parent = parent
            self.component = component
        }
    }

    let node: Node?

    static let root = WalkPath(node: nil)

    func appending(_ key: String) -> WalkPath { WalkPath(node: Node(parent: node, component: .key(key))) }
    func appending(_ index: Int) -> WalkPath { WalkPath(node: Node(parent: node, component: .index(index))) }

    var jsonPath: JSONPath {
        var components: [JSONPath.Component] = []
        var current = node
        while let n = current {
            components.append(n.component)
            current = n.parent
        }
        return JSONPath(components.reversed())
    }
}

/// Walks a JSON value against the `Shape`s of one schema version, reporting every structural error and
/// collecting what the semantic checks need (tokens, slot references, texts, node ids).
struct StructuralWalker {
    let schema: SchemaDefinitions
    var errors: [ValidationIssue] = []
    var facts = DocumentFacts()

    init(schema: SchemaDefinitions) { self.schema = schema }

    mutating func fail(_ path: WalkPath, _ code: ValidationCode, _ message: String) {
        errors.append(ValidationIssue(path.jsonPath, code.rawValue, message))
    }

    mutating func fail(_ path: WalkPath, code: String, _ message: String) {
        errors.append(ValidationIssue(path.jsonPath, code, message))
    }

    mutating func walk(
        _ value: JSONValue, _ shape: Shape, _ path: WalkPath, definition: String? = nil, timerLabel: Bool = false
    ) {
        switch shape {
        case .string(let format):
            guard case .string(let s) = value else { return typeMismatch(value, format.summary, path) }
            if !format.matches(s) {
                fail(
                    path, code: format.errorCode,
                    "\(JSONValue.string(s).canonicalString) is not a valid \(format.summary)")
            } else {
                collect(string: s, format: format, path: path)
            }
        case .enumeration(let allowed, let code):
            guard case .string(let s) = value else { return typeMismatch(value, "string", path) }
            if !allowed.contains(s) {
                fail(
                    path, code: code,
                    "\(JSONValue.string(s).canonicalString) is not one of "
                        + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
            }
        case .constant(let expected):
            if value != expected {
                fail(path, .invalidConstant, "expected \(expected.canonicalString), found \(value.canonicalString)")
            }
        case .number(let range):
            guard case .number(let n) = value else {
                return typeMismatch(value, range.integer ? "integer" : "number", path)
            }
            checkNumber(n, range, path)
        case .boolean:
            guard case .bool = value else { return typeMismatch(value, "boolean", path) }
        case .array(let arrayShape):
            guard case .array(let items) = value else { return typeMismatch(value, "array", path) }
            if items.count < arrayShape.minItems {
                fail(
                    path, .arrayTooShort,
                    "needs at least \(arrayShape.minItems) item\(arrayShape.minItems == 1 ? "" : "s"), has \(items.count)"
                )
            }
            if let max = arrayShape.maxItems, items.count > max {
                fail(path, .arrayTooLong, "allows at most \(max) items, has \(items.count)")
            }
            var seen = Set<JSONValue>()
            for (i, item) in items.enumerated() {
                walk(item, arrayShape.items, path.appending(i), timerLabel: timerLabel)
                if let code = arrayShape.uniqueCode, !seen.insert(item).inserted {
                    fail(path.appending(i), code: code, "\(item.canonicalString) appears more than once")
                }
            }
            if definition == "ProductSelectorNode.slots" {
                for (i, item) in items.enumerated() {
                    if let s = item.stringValue { facts.slotReferences.append((path.appending(i), s)) }
                }
            }
        case .object(let objectShape):
            walkObject(value, objectShape, path, definition: definition ?? "")
        case .map(let keyFormat, let valueShape, let minProperties):
            guard case .object(let object) = value else { return typeMismatch(value, "object", path) }
            if object.count < minProperties { fail(path, .arrayTooShort, "needs at least \(minProperties) entries") }
            for key in JSONSerializer.sortedKeys(object) {
                guard let member = object[key] else { continue }
                if !keyFormat.matches(key) {
                    fail(
                        path.appending(key), code: keyFormat.errorCode,
                        "key \(JSONValue.string(key).canonicalString) is not a valid \(keyFormat.summary)")
                }
                walk(member, valueShape, path.appending(key))
            }
        case .localizedText:
            guard case .object(let object) = value else { return typeMismatch(value, "object (locale → text)", path) }
            if object.isEmpty { fail(path, .emptyLocalizedText, "a LocalizedText needs at least one locale") }
            var strings: [String: String] = [:]
            for key in JSONSerializer.sortedKeys(object) {
                guard let member = object[key] else { continue }
                if !StringFormat.localeTag.matches(key) {
                    fail(
                        path.appending(key), .invalidLocaleTag,
                        "\(JSONValue.string(key).canonicalString) is not a valid locale tag (en, de-AT, zh-Hans)")
                }
                guard case .string(let s) = member else {
                    typeMismatch(member, "string", path.appending(key))
                    continue
                }
                strings[key] = s
                if s.utf8.count > DocumentLimits.textLength, s.unicodeScalars.count > DocumentLimits.textLength {
                    fail(
                        path.appending(key), .textTooLong,
                        "\(s.unicodeScalars.count) characters, more than the limit of \(DocumentLimits.textLength)")
                }
            }
            facts.texts.append(LocalizedTextFact(path: path, entries: strings, allowsTimerVariable: timerLabel))
        case .alternatives(let shapes):
            let type = value.typeName
            if let match = shapes.first(where: {
                $0.jsonTypes.contains(type) || (type == "integer" && $0.jsonTypes.contains("number"))
            }) {
                walk(value, match, path, definition: definition, timerLabel: timerLabel)
            } else {
                typeMismatch(value, Set(shapes.flatMap(\.jsonTypes)).sorted().joined(separator: " or "), path)
            }
        case .ref(let name):
            guard let target = schema.definitions[name] else { return }
            walk(value, target, path, definition: name, timerLabel: timerLabel)
        case .union(let union):
            guard case .object(let object) = value else { return typeMismatch(value, "object", path) }
            guard let tagValue = object[union.tag] else {
                return fail(path.appending(union.tag), .missingRequiredField, "missing required field \"\(union.tag)\"")
            }
            guard case .string(let tag) = tagValue else {
                return typeMismatch(tagValue, "string", path.appending(union.tag))
            }
            guard let definitionName = union.definition(for: tag), let target = schema.definitions[definitionName]
            else {
                let known = union.variants.map { "\"\($0.value)\"" }.joined(separator: ", ")
                return fail(
                    path.appending(union.tag), code: union.unknownCode,
                    "unknown \(union.tag) \"\(tag)\"; expected one of \(known)")
            }
            walk(value, target, path, definition: definitionName)
        case .anyObject:
            guard case .object = value else { return typeMismatch(value, "object", path) }
        }
    }

    mutating func walkObject(_ value: JSONValue, _ shape: ObjectShape, _ path: WalkPath, definition: String) {
        guard case .object(let object) = value else { return typeMismatch(value, "object", path) }
        if object.count < shape.minProperties {
            let names = shape.fields.map { "\"\($0.name)\"" }.joined(separator: ", ")
            fail(path, .missingRequiredField, "needs at least \(shape.minProperties) of \(names)")
        }
        // One pass over the members, matching field names by comparison (no hashing); then walk in
        // definition order so errors come out in a stable order.
        var present: [(index: Int, value: JSONValue)] = []
        present.reserveCapacity(object.count)
        var unknown: [String] = []
        for (key, member) in object {
            if let i = shape.fields.firstIndex(where: { $0.name == key }) {
                present.append((i, member))
            } else {
                unknown.append(key)
            }
        }
        for key in unknown.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }) {
            fail(path.appending(key), .unknownProperty, "unknown property \"\(key)\"")
        }
        present.sort { $0.index < $1.index }
        var next = 0
        func member(_ name: String) -> JSONValue? { present.first { shape.fields[$0.index].name == name }?.value }
        for (i, field) in shape.fields.enumerated() {
            if next < present.count, present[next].index == i {
                let subDefinition =
                    definition == "ProductSelectorNode" && field.name == "slots" ? "ProductSelectorNode.slots" : nil
                walk(
                    present[next].value, field.shape, path.appending(field.name), definition: subDefinition,
                    timerLabel: field.allowsTimerVariable)
                next += 1
            } else if field.required {
                fail(path.appending(field.name), .missingRequiredField, "missing required field \"\(field.name)\"")
            }
        }
        for conditional in shape.conditionals where member(conditional.field) == .string(conditional.value) {
            for name in conditional.required where member(name) == nil {
                fail(
                    path.appending(name), code: conditional.code,
                    "\"\(name)\" is required when \(conditional.field) is \"\(conditional.value)\"")
            }
        }
        for group in shape.exclusive {
            let found = group.filter { member($0) != nil }
            if found.count > 1 {
                fail(
                    path.appending(found[1]), .mutuallyExclusiveFields,
                    "set only one of " + group.map { "\"\($0)\"" }.joined(separator: ", "))
            }
        }
        collect(object: object, definition: definition, path: path)
    }

    mutating func typeMismatch(_ value: JSONValue, _ expected: String, _ path: WalkPath) {
        fail(path, .typeMismatch, "expected \(expected), found \(value.typeName)")
    }

    mutating func checkNumber(_ n: JSONNumber, _ range: NumberRange, _ path: WalkPath) {
        let d = n.doubleValue
        if range.integer && !n.isIntegral { fail(path, .notAnInteger, "expected an integer, found \(n)") }
        var inRange = true
        if let m = range.minimum, d < m { inRange = false }
        if let m = range.exclusiveMinimum, d <= m { inRange = false }
        if let m = range.maximum, d > m { inRange = false }
        if !inRange { fail(path, .numberOutOfRange, "\(n) is out of range (\(range.summary))") }
        if let m = range.multipleOf, inRange, let i = n.int64Value, i % Int64(m) != 0 {
            fail(path, .numberNotMultiple, "\(n) is not a multiple of \(m)")
        }
    }

    // MARK: Facts for the semantic checks

    mutating func collect(string s: String, format: StringFormat, path: WalkPath) {
        switch format {
        case .color where s.hasPrefix("$"): facts.colorTokens.append((path, String(s.dropFirst())))
        case .tokenReference: facts.radiusTokens.append((path, String(s.dropFirst())))
        case .fontFamily where s.hasPrefix("$"): facts.fontTokens.append((path, String(s.dropFirst())))
        default: break
        }
    }

    mutating func collect(object: [String: JSONValue], definition: String, path: WalkPath) {
        switch definition {
        case "ProductSlot":
            if let slot = object["slot"]?.stringValue { facts.slots.append((path.appending("slot"), slot)) }
            if object["preselected"] == .bool(true) { facts.preselected.append(path.appending("preselected")) }
        case "PurchaseButtonNode", "PurchaseAction", "SelectProductAction":
            if let slot = object["productSlot"]?.stringValue {
                if slot == "$selected" {
                    facts.selectedReferences.append(path.appending("productSlot"))
                } else {
                    facts.slotReferences.append((path.appending("productSlot"), slot))
                }
            }
        case "ProductSelectorNode":
            facts.hasProductSelector = true
        default: break
        }
        if definition.hasSuffix("Node"), let id = object["id"]?.stringValue {
            facts.nodeIDs.append((path.appending("id"), id))
        }
    }
}

struct LocalizedTextFact {
    let path: WalkPath
    let entries: [String: String]
    let allowsTimerVariable: Bool
}

/// What the structural walk saw, for the cross-checks.
struct DocumentFacts {
    var colorTokens: [(WalkPath, String)] = []
    var radiusTokens: [(WalkPath, String)] = []
    var fontTokens: [(WalkPath, String)] = []
    var slots: [(WalkPath, String)] = []
    var preselected: [WalkPath] = []
    var slotReferences: [(WalkPath, String)] = []
    var selectedReferences: [WalkPath] = []
    var hasProductSelector = false
    var nodeIDs: [(WalkPath, String)] = []
    var texts: [LocalizedTextFact] = []
}
