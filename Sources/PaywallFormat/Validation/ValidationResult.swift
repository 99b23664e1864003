/// One problem found in a document: where (`$.root.children[3].productSlot`), what, and a stable
/// snake_case `code` that clients may switch on (all codes: `ValidationCode`, docs/schema.md).
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let message: String
    public let code: String

    public init(path: String, message: String, code: String) {
        self.path = path
        self.message = message
        self.code = code
    }

    public init(_ path: JSONPath, _ code: String, _ message: String) {
        self.init(path: path.description, message: message, code: code)
    }

    public var description: String { "\(path): \(message) [\(code)]" }

    /// `{"path", "message", "code"}` as the API and MCP answer it.
    public var json: JSONValue { ["path": .string(path), "message": .string(message), "code": .string(code)] }
}

/// The outcome of strict validation: the typed document when there are no errors, every error
/// otherwise; warnings (App Store review risks) in both cases — they never block publishing.
public struct ValidationResult: Sendable {
    public let document: PaywallDocument?
    public let errors: [ValidationIssue]
    public let warnings: [ValidationIssue]

    public var isValid: Bool { errors.isEmpty }

    /// `{"ok": true, "warnings": […]}` or `{"ok": false, "errors": […], "warnings": […]}`.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["ok": .bool(isValid), "warnings": .array(warnings.map(\.json))]
        if !isValid { object["errors"] = .array(errors.map(\.json)) }
        return .object(object)
    }
}

/// Every error and warning code the validator emits. The raw values are stable API.
public enum ValidationCode: String, Sendable, CaseIterable {
    // Structure (from the schema definitions)
    case notAnObject = "not_an_object"
    case typeMismatch = "type_mismatch"
    case missingRequiredField = "missing_required_field"
    case unknownProperty = "unknown_property"
    case invalidEnumValue = "invalid_enum_value"
    case invalidConstant = "invalid_constant"
    case unknownNodeType = "unknown_node_type"
    case unknownActionType = "unknown_action_type"
    case unknownBackgroundKind = "unknown_background_kind"
    case unknownGradientKind = "unknown_gradient_kind"
    case numberOutOfRange = "number_out_of_range"
    case notAnInteger = "not_an_integer"
    case numberNotMultiple = "number_not_multiple"
    case arrayTooShort = "array_too_short"
    case arrayTooLong = "array_too_long"
    case emptyString = "empty_string"
    case emptyLocalizedText = "empty_localized_text"
    case invalidID = "invalid_id"
    case invalidLocaleTag = "invalid_locale_tag"
    case nonHTTPSURL = "non_https_url"
    case invalidHexColor = "invalid_hex_color"
    case invalidColor = "invalid_color"
    case invalidTokenName = "invalid_token_name"
    case invalidTokenReference = "invalid_token_reference"
    case invalidFontFamily = "invalid_font_family"
    case invalidDateTime = "invalid_date_time"
    case mutuallyExclusiveFields = "mutually_exclusive_fields"
    case timerMissingID = "timer_missing_id"
    case duplicateLocale = "duplicate_locale"
    case unsupportedSchemaVersion = "unsupported_schema_version"
    case textTooLong = "text_too_long"
    // Size (DocumentLimits; validator only)
    case tooManyNodes = "too_many_nodes"
    case nestingTooDeep = "nesting_too_deep"
    case expansionTooLarge = "expansion_too_large"
    // Semantics (cross-checks)
    case unresolvedToken = "unresolved_token"
    case brokenSlotReference = "broken_slot_reference"
    case duplicateSlot = "duplicate_slot"
    case duplicateNodeID = "duplicate_node_id"
    case multiplePreselected = "multiple_preselected"
    case defaultLocaleNotInLocales = "default_locale_not_in_locales"
    case missingDefaultLocale = "missing_default_locale"
    case localeNotDeclared = "locale_not_declared"
    case malformedTemplate = "malformed_template"
    case unknownVariable = "unknown_variable"
    case selectedWithoutProductSelector = "selected_without_product_selector"
    // Warnings (App Store review)
    case missingRestoreEntryPoint = "missing_restore_entry_point"
    case missingPrivacyLink = "missing_privacy_link"
    case missingTermsLink = "missing_terms_link"
    case missingCloseControl = "missing_close_control"
    // Warnings (media)
    case unreachableMediaHost = "unreachable_media_host"
    // Warnings (stores, schema version 3)
    case storeProductMissing = "store_product_missing"

    public var isWarning: Bool {
        switch self {
        case .missingRestoreEntryPoint, .missingPrivacyLink, .missingTermsLink, .missingCloseControl,
            .unreachableMediaHost,
            .storeProductMissing:
            return true
        default: return false
        }
    }
}
