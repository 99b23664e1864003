import PaywallFormat
import XizorDomain

/// Checks tool arguments against the tools' input schemas before any service runs. Covers the
/// JSON Schema subset the tool schemas use (type, properties, required, additionalProperties,
/// items, enum, const, minimum/maximum, minLength/maxLength, minItems/maxItems, minProperties,
/// oneOf/anyOf/not, local `$ref` into `$defs`); annotations such as description are ignored.
/// Issues carry JSON paths from `$` (the arguments object).
struct ArgumentSchemaValidator {
    let root: JSONValue

    func validate(_ value: JSONValue) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        check(value, against: root, at: "$", depth: 0, into: &issues)
        return issues
    }

    private func check(
        _ value: JSONValue, against schema: JSONValue, at path: String, depth: Int, into issues: inout [ValidationIssue]
    ) {
        guard depth < 64 else {
            issues.append(ValidationIssue(path: path, message: "The value is nested too deeply.", code: "too_deep"))
            return
        }
        if case .bool(let allowed) = schema {
            if !allowed {
                issues.append(ValidationIssue(path: path, message: "No value is allowed here.", code: "not_allowed"))
            }
            return
        }
        guard let keywords = schema.objectValue else { return }
        if let reference = keywords["$ref"]?.stringValue {
            guard let target = resolve(reference) else {
                issues.append(
                    ValidationIssue(
                        path: path, message: "The schema refers to \(reference), which does not exist.",
                        code: "schema_error"))
                return
            }
            check(value, against: target, at: path, depth: depth + 1, into: &issues)
        }
        if let types = keywords["type"], !ArgumentSchemaValidator.matchesType(value, types) {
            issues.append(
                ValidationIssue(
                    path: path, message: "Expected \(ArgumentSchemaValidator.typeText(types)), got \(value.typeName).",
                    code: "type_mismatch"))
            return
        }
        if let options = keywords["enum"]?.arrayValue, !options.contains(value) {
            let list = options.map(\.canonicalString).joined(separator: ", ")
            issues.append(ValidationIssue(path: path, message: "Expected one of \(list).", code: "not_in_enum"))
        }
        if let constant = keywords["const"], constant != value {
            issues.append(
                ValidationIssue(path: path, message: "Expected \(constant.canonicalString).", code: "not_in_enum"))
        }
        checkBounds(value, keywords, at: path, into: &issues)
        if case .object(let members) = value { checkObject(members, keywords, at: path, depth: depth, into: &issues) }
        if case .array(let elements) = value, let items = keywords["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: items, at: "\(path)[\(index)]", depth: depth + 1, into: &issues)
            }
        }
        checkCombinators(value, keywords, at: path, depth: depth, into: &issues)
    }

    private func checkBounds(
        _ value: JSONValue, _ keywords: [String: JSONValue], at path: String, into issues: inout [ValidationIssue]
    ) {
        if let number = value.doubleValue {
            if let minimum = keywords["minimum"]?.doubleValue, number < minimum {
                issues.append(
                    ValidationIssue(
                        path: path, message: "Must be at least \(keywords["minimum"]?.canonicalString ?? "").",
                        code: "number_out_of_range"))
            }
            if let maximum = keywords["maximum"]?.doubleValue, number > maximum {
                issues.append(
                    ValidationIssue(
                        path: path, message: "Must be at most \(keywords["maximum"]?.canonicalString ?? "").",
                        code: "number_out_of_range"))
            }
        }
        if let text = value.stringValue {
            if let minimum = keywords["minLength"]?.intValue, text.count < minimum {
                issues.append(
                    ValidationIssue(
                        path: path, message: "Must be at least \(minimum) character(s).", code: "string_too_short"))
            }
            if let maximum = keywords["maxLength"]?.intValue, text.count > maximum {
                issues.append(
                    ValidationIssue(
                        path: path, message: "Must be at most \(maximum) character(s).", code: "string_too_long"))
            }
        }
        if let elements = value.arrayValue {
            if let minimum = keywords["minItems"]?.intValue, elements.count < minimum {
                issues.append(
                    ValidationIssue(path: path, message: "Needs at least \(minimum) item(s).", code: "too_few_items"))
            }
            if let maximum = keywords["maxItems"]?.intValue, elements.count > maximum {
                issues.append(
                    ValidationIssue(path: path, message: "Takes at most \(maximum) item(s).", code: "too_many_items"))
            }
        }
        if let members = value.objectValue, let minimum = keywords["minProperties"]?.intValue, members.count < minimum {
            issues.append(
                ValidationIssue(path: path, message: "Needs at least \(minimum) member(s).", code: "too_few_properties")
            )
        }
    }

    private func checkObject(
        _ members: [String: JSONValue], _ keywords: [String: JSONValue], at path: String, depth: Int,
        into issues: inout [ValidationIssue]
    ) {
        let properties = keywords["properties"]?.objectValue ?? [:]
        for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
            issues.append(
                ValidationIssue(
                    path: ArgumentSchemaValidator.member(path, name), message: "'\(name)' is required.",
                    code: "missing_required_field"))
        }
        for name in members.keys.sorted() {
            guard let member = members[name] else { continue }
            let memberPath = ArgumentSchemaValidator.member(path, name)
            if let property = properties[name] {
                check(member, against: property, at: memberPath, depth: depth + 1, into: &issues)
            } else if let additional = keywords["additionalProperties"] {
                if additional == .bool(false) {
                    let known = properties.keys.sorted().joined(separator: ", ")
                    issues.append(
                        ValidationIssue(
                            path: memberPath, message: "Unknown argument '\(name)'; known: \(known).",
                            code: "unknown_property"))
                } else {
                    check(member, against: additional, at: memberPath, depth: depth + 1, into: &issues)
                }
            }
        }
    }

    private func checkCombinators(
        _ value: JSONValue, _ keywords: [String: JSONValue], at path: String, depth: Int,
        into issues: inout [ValidationIssue]
    ) {
        if let alternatives = keywords["oneOf"]?.arrayValue {
            let results = alternatives.map { alternative -> [ValidationIssue] in
                var found: [ValidationIssue] = []
                check(value, against: alternative, at: path, depth: depth + 1, into: &found)
                return found
            }
            let matching = results.filter(\.isEmpty).count
            if matching != 1 {
                issues.append(
                    contentsOf: ArgumentSchemaValidator.explain(
                        alternatives, results, matching: matching, exclusive: true, at: path))
            }
        }
        if let alternatives = keywords["anyOf"]?.arrayValue {
            let results = alternatives.map { alternative -> [ValidationIssue] in
                var found: [ValidationIssue] = []
                check(value, against: alternative, at: path, depth: depth + 1, into: &found)
                return found
            }
            if !results.contains(where: \.isEmpty) {
                issues.append(
                    contentsOf: ArgumentSchemaValidator.explain(
                        alternatives, results, matching: 0, exclusive: false, at: path))
            }
        }
        if let negated = keywords["not"] {
            var found: [ValidationIssue] = []
            check(value, against: negated, at: path, depth: depth + 1, into: &found)
            if found.isEmpty {
                let names = negated["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let message =
                    names.count > 1
                    ? "Give at most one of \(names.joined(separator: ", "))."
                    : "This combination of values is not allowed."
                issues.append(ValidationIssue(path: path, message: message, code: "mutually_exclusive_fields"))
            }
        }
    }

    /// A readable failure for `oneOf`/`anyOf`: "exactly one of a, b" when the alternatives are
    /// just required members, else the issues of the closest alternative.
    private static func explain(
        _ alternatives: [JSONValue], _ results: [[ValidationIssue]], matching: Int, exclusive: Bool,
        at path: String
    ) -> [ValidationIssue] {
        let requiredSets = alternatives.map { $0["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        if requiredSets.allSatisfy({ $0.count == 1 }) {
            let names = requiredSets.map { $0[0] }.joined(separator: ", ")
            return [
                ValidationIssue(
                    path: path, message: "Give \(exclusive ? "exactly" : "at least") one of \(names).",
                    code: matching > 1 ? "mutually_exclusive_fields" : "missing_required_field")
            ]
        }
        if matching > 1 {
            return [
                ValidationIssue(
                    path: path, message: "The value matches more than one alternative.", code: "ambiguous_value")
            ]
        }
        let closest = results.min { $0.count < $1.count } ?? []
        return closest.isEmpty
            ? [
                ValidationIssue(
                    path: path, message: "The value matches no alternative.", code: "no_alternative_matched")
            ] : closest
    }

    private func resolve(_ reference: String) -> JSONValue? {
        let prefix = "#/$defs/"
        guard reference.hasPrefix(prefix) else { return nil }
        return root["$defs"]?[String(reference.dropFirst(prefix.count))]
    }

    private static func matchesType(_ value: JSONValue, _ types: JSONValue) -> Bool {
        let names = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? ""]
        return names.contains { name in
            name == value.typeName || (name == "number" && value.typeName == "integer")
        }
    }

    private static func typeText(_ types: JSONValue) -> String {
        (types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? "?"]).joined(separator: " or ")
    }

    private static func member(_ path: String, _ name: String) -> String {
        let simple =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "_"
            }
        return simple ? "\(path).\(name)" : "\(path)[\(JSONValue.string(name).canonicalString)]"
    }
}
