import PaywallFormat

/// A placement rule's condition, as the spec sheet defines it:
/// `{"all": [...]}`, `{"any": [...]}`, `{"not": C}` or `{"key", "op", "value"}`.
///
/// Comparison semantics (documented in docs/api.md): values compare only within one type
/// (string, number, boolean); `gt`/`gte`/`lt`/`lte` compare numbers numerically and strings by code
/// points; a key missing from the context never matches a comparison (so `ne` is false too), only
/// `exists` (false) and `not` (which negates) see the absence.
public indirect enum Condition: Sendable, Equatable {
    case all([Condition])
    case any([Condition])
    case not(Condition)
    case compare(key: String, op: Operator, value: ContextValue?, values: [ContextValue])

    public enum Operator: String, Sendable, CaseIterable {
        case eq, ne, `in`, notIn = "not_in", exists, gt, gte, lt, lte
    }

    public func matches(_ context: PresentationContext) -> Bool {
        switch self {
        case .all(let conditions): return conditions.allSatisfy { $0.matches(context) }
        case .any(let conditions): return conditions.contains { $0.matches(context) }
        case .not(let condition): return !condition.matches(context)
        case .compare(let key, let op, let expected, let list):
            guard let actual = context[key] else { return false }
            switch op {
            case .exists: return true
            case .eq: return expected.map { actual == $0 } ?? false
            case .ne: return expected.map { Condition.sameType(actual, $0) && actual != $0 } ?? false
            case .in: return list.contains(actual)
            case .notIn: return !list.isEmpty && list.allSatisfy { Condition.sameType(actual, $0) } && !list.contains(actual)
            case .gt, .gte, .lt, .lte:
                guard let expected, let order = Condition.order(actual, expected) else { return false }
                switch op {
                case .gt: return order > 0
                case .gte: return order >= 0
                case .lt: return order < 0
                default: return order <= 0
                }
            }
        }
    }

    private static func sameType(_ a: ContextValue, _ b: ContextValue) -> Bool {
        switch (a, b) {
        case (.string, .string), (.number, .number), (.bool, .bool): true
        default: false
        }
    }

    private static func order(_ a: ContextValue, _ b: ContextValue) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : (x == y ? 0 : 1)
        default: nil
        }
    }

    /// The condition as stored and answered.
    public var json: JSONValue {
        switch self {
        case .all(let c): return ["all": .array(c.map(\.json))]
        case .any(let c): return ["any": .array(c.map(\.json))]
        case .not(let c): return ["not": c.json]
        case .compare(let key, let op, let value, let values):
            var object: [String: JSONValue] = ["key": .string(key), "op": .string(op.rawValue)]
            if op == .in || op == .notIn { object["value"] = .array(values.map(\.json)) }
            else if let value { object["value"] = value.json }
            return .object(object)
        }
    }

    /// Parses and validates `json`, collecting every problem with its path.
    public static func parse(_ json: JSONValue, path: String, issues: inout [ValidationIssue]) -> Condition? {
        func fail(_ at: String, _ code: String, _ message: String) -> Condition? {
            issues.append(ValidationIssue(path: at, message: message, code: code))
            return nil
        }
        guard let object = json.objectValue else { return fail(path, "type_mismatch", "A condition must be an object.") }
        for combinator in ["all", "any"] where object[combinator] != nil {
            guard object.count == 1 else { return fail(path, "invalid_condition", "'\(combinator)' stands alone in its object.") }
            guard let items = object[combinator]?.arrayValue else {
                return fail("\(path).\(combinator)", "type_mismatch", "'\(combinator)' takes an array of conditions.")
            }
            guard !items.isEmpty else { return fail("\(path).\(combinator)", "array_too_short", "'\(combinator)' needs at least one condition.") }
            var parsed: [Condition] = []
            for (index, item) in items.enumerated() {
                if let c = parse(item, path: "\(path).\(combinator)[\(index)]", issues: &issues) { parsed.append(c) }
            }
            guard parsed.count == items.count else { return nil }
            return combinator == "all" ? .all(parsed) : .any(parsed)
        }
        if let inner = object["not"] {
            guard object.count == 1 else { return fail(path, "invalid_condition", "'not' stands alone in its object.") }
            return parse(inner, path: "\(path).not", issues: &issues).map { .not($0) }
        }
        var ok = true
        for name in object.keys.sorted() where !["key", "op", "value"].contains(name) {
            _ = fail("\(path).\(name)", "unknown_property", "Unknown property '\(name)'; a condition is all, any, not, or key/op/value.")
            ok = false
        }
        guard let key = object["key"]?.stringValue, !key.isEmpty else {
            return fail("\(path).key", object["key"] == nil ? "missing_required_field" : "type_mismatch", "'key' must be a non-empty string.")
        }
        guard let opName = object["op"]?.stringValue else {
            return fail("\(path).op", object["op"] == nil ? "missing_required_field" : "type_mismatch", "'op' must be a string.")
        }
        guard let op = Operator(rawValue: opName) else {
            let names = Operator.allCases.map(\.rawValue).joined(separator: ", ")
            return fail("\(path).op", "invalid_operator", "Unknown operator '\(opName)'; use one of \(names).")
        }
        let value = object["value"]
        switch op {
        case .exists:
            if value != nil { return fail("\(path).value", "unexpected_value", "'exists' takes no value.") }
            return ok ? .compare(key: key, op: op, value: nil, values: []) : nil
        case .in, .notIn:
            guard let list = value?.arrayValue else {
                return fail("\(path).value", value == nil ? "missing_required_field" : "type_mismatch", "'\(op.rawValue)' takes an array of strings, numbers or booleans.")
            }
            var values: [ContextValue] = []
            for (index, item) in list.enumerated() {
                guard let v = ContextValue(json: item) else {
                    ok = false
                    _ = fail("\(path).value[\(index)]", "type_mismatch", "Array items must be strings, numbers or booleans.")
                    continue
                }
                values.append(v)
            }
            if list.isEmpty { return fail("\(path).value", "array_too_short", "'\(op.rawValue)' needs at least one value.") }
            return ok ? .compare(key: key, op: op, value: nil, values: values) : nil
        case .eq, .ne, .gt, .gte, .lt, .lte:
            guard let value, let v = ContextValue(json: value) else {
                return fail("\(path).value", value == nil ? "missing_required_field" : "type_mismatch", "'\(op.rawValue)' takes a string, number or boolean value.")
            }
            if [.gt, .gte, .lt, .lte].contains(op), case .bool = v {
                return fail("\(path).value", "type_mismatch", "'\(op.rawValue)' compares numbers or strings, not booleans.")
            }
            return ok ? .compare(key: key, op: op, value: v, values: []) : nil
        }
    }
}
