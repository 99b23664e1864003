/// One LocalizedText of a document, as the editor's locale column view and MCP `localize_paywall` list it.
public struct LocalizedTextEntry: Sendable, Hashable {
    public var path: JSONPath
    /// Locale → text, as in the document.
    public var values: [String: String]
    /// Locales of the document's `locales` with no entry here, in `locales` order.
    public var missingLocales: [String]

    public var json: JSONValue {
        [
            "path": .string(path.description),
            "values": .object(values.mapValues(JSONValue.string)),
            "missingLocales": .array(missingLocales.map(JSONValue.string)),
        ]
    }
}

/// What a translation of one source text must keep: its variables and its markdown-lite emphasis.
public struct TranslationRequirements: Sendable, Hashable {
    public var variables: [String]
    public var marks: MarkdownLiteMarks

    public init(source: String) {
        variables = extractVariables(source)
        marks = MarkdownLiteMarks(source)
    }

    public var json: JSONValue {
        [
            "variables": .array(variables.map(JSONValue.string)),
            "boldPairs": .number(marks.boldPairs), "italicPairs": .number(marks.italicPairs),
        ]
    }
}

/// Why a translation does not fit its source.
public struct TranslationProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case missingVariable = "missing_variable"
        case unexpectedVariable = "unexpected_variable"
        case malformedTemplate = "malformed_template"
        case markdownMismatch = "markdown_mismatch"
    }
    public var code: Code
    public var message: String
    public var description: String { "\(message) [\(code.rawValue)]" }
    public var json: JSONValue { ["code": .string(code.rawValue), "message": .string(message)] }
}

/// The result of writing translations into a document.
public struct TranslationApplication: Sendable {
    public var document: JSONValue
    /// Paths that name no LocalizedText of the document (nothing was written for them).
    public var unknownPaths: [String]
    /// Paths written.
    public var appliedPaths: [String]
}

/// Localization helpers for the editor, the API and MCP, derived from the schema definitions (a
/// LocalizedText is wherever the definitions say one is).
public enum PaywallLocalization {
    /// Every LocalizedText in the document, in document order, with the locales it lacks.
    public static func texts(in document: JSONValue) -> [LocalizedTextEntry] {
        let version = document["schemaVersion"]?.intValue ?? SchemaVersions.latest
        guard let schema = SchemaDefinitions.forVersion(version) ?? SchemaDefinitions.forVersion(SchemaVersions.latest),
            let root = schema.definitions[SchemaDefinitions.rootName]
        else { return [] }
        var walker = StructuralWalker(schema: schema)
        walker.walk(document, root, WalkPath.root, definition: SchemaDefinitions.rootName)
        let locales = document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return walker.facts.texts.map { fact in
            LocalizedTextEntry(
                path: fact.path.jsonPath, values: fact.entries,
                missingLocales: locales.filter { fact.entries[$0] == nil })
        }
    }

    /// Writes `translations` (path text → translated template) for `locale` into the document, adding
    /// `locale` to `locales` when it is new. Paths that are not LocalizedTexts of the document are reported
    /// and skipped. Does not validate; run the validator on the result.
    public static func apply(_ translations: [String: String], locale: String, to document: JSONValue)
        -> TranslationApplication
    {
        let known = Set(texts(in: document).map(\.path.description))
        var result = document
        var unknown: [String] = []
        var applied: [String] = []
        for pathText in translations.keys.sorted() {
            guard let text = translations[pathText], known.contains(pathText), let path = JSONPath(parsing: pathText),
                result.set(.string(text), at: path.appending(locale))
            else {
                unknown.append(pathText)
                continue
            }
            applied.append(pathText)
        }
        if !applied.isEmpty, var locales = result["locales"]?.arrayValue, !locales.contains(.string(locale)) {
            locales.append(.string(locale))
            result["locales"] = .array(locales)
        }
        return TranslationApplication(document: result, unknownPaths: unknown, appliedPaths: applied)
    }

    /// What a translation of `source` must keep.
    public static func requirements(for source: String) -> TranslationRequirements {
        TranslationRequirements(source: source)
    }

    /// Every way `translation` fails to keep what `source` has; empty when it fits.
    public static func check(translation: String, source: String) -> [TranslationProblem] {
        var problems: [TranslationProblem] = []
        let wanted = TranslationRequirements(source: source)
        let got = TranslationRequirements(source: translation)
        for case .malformed(let raw, let reason) in TextTemplate.parse(translation) {
            problems.append(
                TranslationProblem(code: .malformedTemplate, message: "malformed placeholder \(raw): \(reason)"))
        }
        for v in wanted.variables where !got.variables.contains(v) {
            problems.append(TranslationProblem(code: .missingVariable, message: "the translation must keep {{\(v)}}"))
        }
        for v in got.variables where !wanted.variables.contains(v) {
            problems.append(
                TranslationProblem(code: .unexpectedVariable, message: "{{\(v)}} is not in the source text"))
        }
        if wanted.marks != got.marks {
            problems.append(
                TranslationProblem(
                    code: .markdownMismatch,
                    message:
                        "the source has \(wanted.marks.boldPairs) **bold** and \(wanted.marks.italicPairs) *italic* spans, the translation \(got.marks.boldPairs) and \(got.marks.italicPairs)"
                ))
        }
        return problems
    }
}
