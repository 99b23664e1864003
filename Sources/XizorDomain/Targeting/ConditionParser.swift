import PaywallFormat

extension Condition {
    /// How a condition is read.
    public struct ParseOptions: Sendable {
        /// Whether `{"audience": ID}` may appear (not inside an audience's own condition: an
        /// audience is a leaf, so audiences never form cycles).
        public var allowsAudiences = true
        /// Gives a rollout written without a `seed` its seed (a write); nil: the seed is required
        /// (a stored condition always has one).
        public var newSeed: (@Sendable () -> String)? = nil

        public init(allowsAudiences: Bool = true, newSeed: (@Sendable () -> String)? = nil) {
            self.allowsAudiences = allowsAudiences
            self.newSeed = newSeed
        }
    }

    /// Keys longer than this are refused (they name nothing a request could carry).
    public static let maxKeyLength = 200

    /// Parses and validates `json`, collecting every problem with its path.
    public static func parse(
        _ json: JSONValue, path: String, issues: inout [ValidationIssue], options: ParseOptions = ParseOptions()
    ) -> Condition? {
        func fail(_ at: String, _ code: String, _ message: String) -> Condition? {
            issues.append(ValidationIssue(path: at, message: message, code: code))
            return nil
        }
        guard let object = json.objectValue else {
            return fail(path, "type_mismatch", "A condition must be an object.")
        }
        for combinator in ["all", "any"] where object[combinator] != nil {
            guard object.count == 1 else {
                return fail(path, "invalid_condition", "'\(combinator)' stands alone in its object.")
            }
            guard let items = object[combinator]?.arrayValue else {
                return fail("\(path).\(combinator)", "type_mismatch", "'\(combinator)' takes an array of conditions.")
            }
            guard !items.isEmpty else {
                return fail("\(path).\(combinator)", "array_too_short", "'\(combinator)' needs at least one condition.")
            }
            var parsed: [Condition] = []
            for (index, item) in items.enumerated() {
                if let c = parse(item, path: "\(path).\(combinator)[\(index)]", issues: &issues, options: options) {
                    parsed.append(c)
                }
            }
            guard parsed.count == items.count else { return nil }
            return combinator == "all" ? .all(parsed) : .any(parsed)
        }
        if let inner = object["not"] {
            guard object.count == 1 else { return fail(path, "invalid_condition", "'not' stands alone in its object.") }
            return parse(inner, path: "\(path).not", issues: &issues, options: options).map { .not($0) }
        }
        if let audience = object["audience"] {
            guard object.count == 1 else {
                return fail(path, "invalid_condition", "'audience' stands alone in its object.")
            }
            guard options.allowsAudiences else {
                return fail(
                    "\(path).audience", "nested_audience", "An audience's condition cannot refer to another audience.")
            }
            guard let id = audience.stringValue, AudienceService.isValidID(id) else {
                return fail(
                    "\(path).audience", "type_mismatch", "'audience' is an audience id (\(AudienceService.idRule)).")
            }
            return .audience(id)
        }
        if let rollout = object["rollout"] {
            guard object.count == 1 else {
                return fail(path, "invalid_condition", "'rollout' stands alone in its object.")
            }
            return parseRollout(rollout, path: "\(path).rollout", issues: &issues, options: options)
        }
        var ok = true
        for name in object.keys.sorted() where !["key", "op", "value"].contains(name) {
            _ = fail(
                "\(path).\(name)", "unknown_property",
                "Unknown property '\(name)'; a condition is all, any, not, audience, rollout, or key/op/value.")
            ok = false
        }
        guard let keyText = object["key"]?.stringValue, !keyText.isEmpty, keyText.utf8.count <= maxKeyLength else {
            return fail(
                "\(path).key", object["key"] == nil ? "missing_required_field" : "type_mismatch",
                "'key' must be a string of 1 to \(maxKeyLength) bytes.")
        }
        let key: AttributeKey
        switch AttributeKey.parse(keyText) {
        case .success(let parsed): key = parsed
        case .failure(let error): return fail("\(path).key", "unknown_attribute", error.message)
        }
        guard let opName = object["op"]?.stringValue else {
            return fail(
                "\(path).op", object["op"] == nil ? "missing_required_field" : "type_mismatch", "'op' must be a string."
            )
        }
        guard let op = Operator(rawValue: opName) else {
            let names = Operator.allCases.map(\.rawValue).joined(separator: ", ")
            return fail("\(path).op", "invalid_operator", "Unknown operator '\(opName)'; use one of \(names).")
        }
        let valuePath = "\(path).value"
        guard let operand = parseOperand(op, object["value"], path: valuePath, issues: &issues), ok else { return nil }
        return .compare(Comparison(key: key, keyText: keyText, op: op, operand: operand))
    }

    /// The operand each operator takes (docs/targeting.md, "Operators").
    private static func parseOperand(_ op: Operator, _ value: JSONValue?, path: String, issues: inout [ValidationIssue])
        -> Operand?
    {
        func fail(_ code: String, _ message: String, at: String? = nil) -> Operand? {
            issues.append(ValidationIssue(path: at ?? path, message: message, code: code))
            return nil
        }
        if op == .exists {
            return value == nil ? Operand.none : fail("unexpected_value", "'exists' takes no value.")
        }
        guard let value else { return fail("missing_required_field", "'\(op.rawValue)' needs a value.") }
        switch op {
        case .exists:
            return Operand.none
        case .eq, .ne:
            guard let v = ContextValue(json: value) else {
                return fail("type_mismatch", "'\(op.rawValue)' takes a string, number or boolean value.")
            }
            return .value(v)
        case .in, .notIn:
            guard let list = value.arrayValue else {
                return fail("type_mismatch", "'\(op.rawValue)' takes an array of strings, numbers or booleans.")
            }
            guard !list.isEmpty else { return fail("array_too_short", "'\(op.rawValue)' needs at least one value.") }
            var values: [ContextValue] = []
            var ok = true
            for (index, item) in list.enumerated() {
                guard let v = ContextValue(json: item) else {
                    ok = false
                    _ = fail(
                        "type_mismatch", "Array items must be strings, numbers or booleans.", at: "\(path)[\(index)]")
                    continue
                }
                values.append(v)
            }
            return ok ? .list(values) : nil
        case .gt, .gte, .lt, .lte:
            guard let v = ContextValue(json: value), !isBool(v) else {
                return fail(
                    "type_mismatch",
                    "'\(op.rawValue)' compares a number or a string (by code points; for versions use semver_\(op.rawValue))."
                )
            }
            return .value(v)
        case .startsWith:
            guard let prefix = value.stringValue, !prefix.isEmpty else {
                return fail("type_mismatch", "'starts_with' takes a non-empty string.")
            }
            return .prefix(prefix)
        case .between:
            guard let pair = value.arrayValue, pair.count == 2, let low = ContextValue(json: pair[0]),
                let high = ContextValue(json: pair[1]),
                !isBool(low), sameType(low, high)
            else {
                return fail(
                    "type_mismatch", "'between' takes [low, high]: two numbers or two strings (both ends included).")
            }
            guard let order = order(low, high), order <= 0 else {
                return fail("number_out_of_range", "'between' needs low ≤ high.")
            }
            return .range(low, high)
        case .semverEq, .semverGt, .semverGte, .semverLt, .semverLte:
            guard let text = value.stringValue else {
                return fail("type_mismatch", "'\(op.rawValue)' takes a version string such as \"1.10.0\".")
            }
            guard let version = SemanticVersion(text) else {
                return fail(
                    "invalid_version",
                    "'\(text.prefix(64))' is not a version: 1 to 3 numbers (1.10.0), an optional -pre.release and +build (SemVer 2.0)."
                )
            }
            return .version(version, text: text)
        }
    }

    private static func isBool(_ v: ContextValue) -> Bool { if case .bool = v { true } else { false } }

    /// `{"percent": 0…100 (at most two decimals), "seed": S}`.
    private static func parseRollout(
        _ json: JSONValue, path: String, issues: inout [ValidationIssue], options: ParseOptions
    ) -> Condition? {
        func fail(_ at: String, _ code: String, _ message: String) -> Condition? {
            issues.append(ValidationIssue(path: at, message: message, code: code))
            return nil
        }
        guard let object = json.objectValue else {
            return fail(path, "type_mismatch", "'rollout' is {\"percent\": 0…100, \"seed\"?: string}.")
        }
        var ok = true
        for name in object.keys.sorted() where name != "percent" && name != "seed" {
            _ = fail(
                "\(path).\(name)", "unknown_property", "Unknown property '\(name)'; a rollout has percent and seed.")
            ok = false
        }
        guard let percent = object["percent"]?.numberValue?.doubleValue, percent >= 0, percent <= 100 else {
            return fail(
                "\(path).percent", object["percent"] == nil ? "missing_required_field" : "number_out_of_range",
                "'percent' is a number from 0 to 100.")
        }
        let basisPoints = (percent * 100).rounded()
        guard abs(basisPoints - percent * 100) < 1e-6 else {
            return fail(
                "\(path).percent", "number_out_of_range",
                "'percent' has at most two decimals (a share of 10,000 buckets).")
        }
        let seed: String
        if let given = object["seed"] {
            guard let s = given.stringValue, !s.isEmpty, s.utf8.count <= 64 else {
                return fail("\(path).seed", "type_mismatch", "'seed' is a string of 1 to 64 bytes.")
            }
            seed = s
        } else if let newSeed = options.newSeed {
            seed = newSeed()
        } else {
            return fail("\(path).seed", "missing_required_field", "A stored rollout has a seed.")
        }
        return ok ? .rollout(basisPoints: Int(basisPoints), seed: seed) : nil
    }
}

extension Condition {
    /// Comparisons that can never hold because of how the server normalizes request attributes
    /// (`device.platform` is lower-cased, `device.country` two upper-case letters): allowed, but said.
    func warnings(path: String) -> [ValidationIssue] {
        switch self {
        case .all(let conditions):
            return conditions.enumerated().flatMap { $0.element.warnings(path: "\(path).all[\($0.offset)]") }
        case .any(let conditions):
            return conditions.enumerated().flatMap { $0.element.warnings(path: "\(path).any[\($0.offset)]") }
        case .not(let inner): return inner.warnings(path: "\(path).not")
        case .audience, .rollout: return []
        case .compare(let comparison):
            guard case .device(let name) = comparison.key else { return [] }
            if let number = comparison.operand.firstNumber {
                return [Self.numberWarning(name: name, number: number, path: "\(path).value")]
            }
            let strings: [String]
            switch comparison.operand {
            case .value(.string(let s)), .prefix(let s): strings = [s]
            case .list(let list): strings = list.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: return []
            }
            let unreachable: [String]
            switch name {
            case .platform: unreachable = strings.filter { $0 != $0.lowercased() }
            case .country:
                unreachable = comparison.op == .startsWith ? [] : strings.filter { RequestAttributes.country($0) != $0 }
            default: return []
            }
            return unreachable.map {
                ValidationIssue(
                    path: "\(path).value",
                    message: "device.\(name.rawValue) is never '\($0)': requests carry "
                        + (name == .platform
                            ? "it lower-cased ('\($0.lowercased())')." : "two upper-case letters (DE, US)."),
                    code: "never_matches")
            }
        }
    }
}

extension Condition {
    /// Every request attribute (`device.*`) is a string, and values compare only within one type: a
    /// number (`device.appVersion eq 2.1`, typed without quotes) can never match, whatever the operator.
    /// Said at write time rather than refused, as the other never-matching comparisons are.
    static func numberWarning(name: RequestAttributes.Name, number: Double, path: String) -> ValidationIssue {
        let shown = ContextValue.number(number).json.canonicalString
        return ValidationIssue(
            path: path,
            message:
                "device.\(name.rawValue) is a string: the number \(shown) never matches it; write \"\(shown)\" (quoted)"
                + (name == .appVersion || name == .osVersion || name == .sdkVersion
                    ? ", or compare versions with semver_*." : "."),
            code: "never_matches")
    }
}

extension Condition.Operand {
    /// The first number among the operand's values, if any (a device attribute never equals one).
    var firstNumber: Double? {
        let values: [ContextValue]
        switch self {
        case .value(let v): values = [v]
        case .list(let list): values = list
        case .range(let low, let high): values = [low, high]
        case .none, .version, .prefix: values = []
        }
        for value in values { if case .number(let n) = value { return n } }
        return nil
    }
}
