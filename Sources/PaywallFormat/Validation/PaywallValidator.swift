/// The strict validator used by the editor, the API's publish guard and MCP: structure from the
/// schema definitions, then the cross-checks no JSON Schema can express, then App Store warnings.
public enum PaywallValidator {
    /// Validates `document` against the schema version it declares and reports every problem at once.
    public static func validate(_ document: JSONValue) -> ValidationResult {
        guard case .object(let object) = document else {
            return ValidationResult(
                document: nil,
                errors: [
                    ValidationIssue(
                        .root, ValidationCode.notAnObject.rawValue,
                        "a paywall document is a JSON object, found \(document.typeName)")
                ],
                warnings: [])
        }
        guard let versionValue = object["schemaVersion"] else {
            return failure(
                .root.appending("schemaVersion"), .missingRequiredField, "missing required field \"schemaVersion\"")
        }
        guard let version = versionValue.intValue, let schema = SchemaDefinitions.forVersion(version) else {
            let supported = SchemaVersions.supported.map(String.init).joined(separator: ", ")
            return failure(
                .root.appending("schemaVersion"), .unsupportedSchemaVersion,
                "schemaVersion \(versionValue.canonicalString) is not supported (supported: \(supported))")
        }
        return validate(document, schema: schema)
    }

    /// Validates against a given version's definitions (used to check migrated documents).
    public static func validate(_ document: JSONValue, asVersion version: Int) -> ValidationResult {
        guard let schema = SchemaDefinitions.forVersion(version) else {
            return failure(
                .root.appending("schemaVersion"), .unsupportedSchemaVersion, "schemaVersion \(version) is not supported"
            )
        }
        return validate(document, schema: schema)
    }

    static func failure(_ path: JSONPath, _ code: ValidationCode, _ message: String) -> ValidationResult {
        ValidationResult(document: nil, errors: [ValidationIssue(path, code.rawValue, message)], warnings: [])
    }

    static func validate(_ document: JSONValue, schema: SchemaDefinitions) -> ValidationResult {
        var walker = StructuralWalker(schema: schema)
        if let root = schema.definitions[SchemaDefinitions.rootName] {
            walker.walk(document, root, WalkPath.root, definition: SchemaDefinitions.rootName)
        }
        var errors = walker.errors
        DocumentLimits.check(document, into: &errors)
        SemanticChecks.run(document, facts: walker.facts, into: &errors)
        let warnings =
            AppStoreReview.warnings(for: document) + MediaHosts.warnings(for: document)
            + StoreCoverage.warnings(for: document)
        let typed = errors.isEmpty ? PaywallReader.read(document).document : nil
        return ValidationResult(document: typed, errors: errors, warnings: warnings)
    }
}

/// `validatePaywallDocument(doc)` as the seed's package names it.
public func validatePaywallDocument(_ document: JSONValue) -> ValidationResult {
    PaywallValidator.validate(document)
}

/// The cross-checks: references resolve, ids are unique, locales and templates are consistent.
enum SemanticChecks {
    static let productFields: Set<String> = [
        "title", "description", "price", "period", "pricePerWeek", "pricePerMonth",
        "introPrice", "introPeriod", "trialDays", "currency",
    ]

    static func run(_ document: JSONValue, facts: DocumentFacts, into errors: inout [ValidationIssue]) {
        func fail(_ path: WalkPath, _ code: ValidationCode, _ message: String) {
            errors.append(ValidationIssue(path.jsonPath, code.rawValue, message))
        }
        let theme = document["theme"]
        func tokens(_ group: String) -> Set<String> { Set(theme?[group]?.objectValue?.keys ?? [:].keys) }
        let colorTokens = tokens("colors")
        let radiusTokens = tokens("radii")
        let fontTokens = tokens("fonts")
        for (path, name) in facts.colorTokens where !colorTokens.contains(name) {
            fail(path, .unresolvedToken, "colour token \"$\(name)\" is not defined in theme.colors")
        }
        for (path, name) in facts.radiusTokens where !radiusTokens.contains(name) {
            fail(path, .unresolvedToken, "radius token \"$\(name)\" is not defined in theme.radii")
        }
        for (path, name) in facts.fontTokens where !fontTokens.contains(name) {
            fail(path, .unresolvedToken, "font token \"$\(name)\" is not defined in theme.fonts")
        }

        var slotSet = Set<String>()
        for (path, slot) in facts.slots where !slotSet.insert(slot).inserted {
            fail(path, .duplicateSlot, "slot \"\(slot)\" is defined more than once")
        }
        for path in facts.preselected.dropFirst() {
            fail(path, .multiplePreselected, "at most one product slot may be preselected")
        }
        for (path, slot) in facts.slotReferences where !slotSet.contains(slot) {
            fail(path, .brokenSlotReference, "slot \"\(slot)\" is not defined in products")
        }
        if !facts.hasProductSelector {
            for path in facts.selectedReferences {
                fail(path, .selectedWithoutProductSelector, "\"$selected\" needs a product_selector in the document")
            }
        }
        var ids = Set<String>()
        for (path, id) in facts.nodeIDs where !ids.insert(id).inserted {
            fail(path, .duplicateNodeID, "node id \"\(id)\" is used more than once")
        }

        let locales = Set(document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let defaultLocale = document["defaultLocale"]?.stringValue
        if let defaultLocale, document["locales"]?.arrayValue != nil, !locales.contains(defaultLocale) {
            fail(
                WalkPath.root.appending("defaultLocale"), .defaultLocaleNotInLocales,
                "defaultLocale \"\(defaultLocale)\" is not in locales")
        }
        for text in facts.texts {
            if let defaultLocale, !text.entries.isEmpty, text.entries[defaultLocale] == nil {
                fail(text.path, .missingDefaultLocale, "no text for the default locale \"\(defaultLocale)\"")
            }
            for key in JSONSerializer.sortedKeysOf(text.entries) {
                guard let template = text.entries[key] else { continue }
                let entryPath = text.path.appending(key)
                if !locales.isEmpty, StringFormat.localeTag.matches(key), !locales.contains(key) {
                    fail(entryPath, .localeNotDeclared, "locale \"\(key)\" is not listed in locales")
                }
                checkTemplate(
                    template, path: entryPath, allowsTimer: text.allowsTimerVariable, slots: slotSet,
                    hasProducts: !facts.slots.isEmpty, fail: fail)
            }
        }
    }

    static func checkTemplate(
        _ template: String, path: WalkPath, allowsTimer: Bool, slots: Set<String>, hasProducts: Bool,
        fail: (WalkPath, ValidationCode, String) -> Void
    ) {
        guard TextTemplate.mayContainPlaceholders(template) else { return }
        for part in TextTemplate.parse(template) {
            switch part {
            case .literal: continue
            case .malformed(let raw, let reason):
                fail(
                    path, .malformedTemplate,
                    "malformed placeholder \(JSONValue.string(raw).canonicalString): \(reason)")
            case .variable(let variable, _):
                let segments = variable.split(separator: ".").map(String.init)
                switch segments.first {
                case "product" where segments.count == 2 && productFields.contains(segments[1]):
                    if !hasProducts {
                        fail(path, .brokenSlotReference, "{{\(variable)}} needs at least one product slot")
                    }
                case "products" where segments.count == 3 && productFields.contains(segments[2]):
                    if !slots.contains(segments[1]) {
                        fail(
                            path, .brokenSlotReference,
                            "{{\(variable)}}: slot \"\(segments[1])\" is not defined in products")
                    }
                case "context" where segments.count == 2:
                    continue
                case "timer" where segments.count == 2 && segments[1] == "remaining" && allowsTimer:
                    continue
                default:
                    let hint =
                        segments.first == "timer" ? " ({{timer.remaining}} is only known in a timer's label)" : ""
                    fail(path, .unknownVariable, "unknown variable {{\(variable)}}\(hint)")
                }
            }
        }
    }
}
