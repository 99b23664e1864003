import PaywallFormat

/// The editor's locale column view of a draft: every text path with its value in every locale.
public struct DraftTexts: Sendable {
    public let paywallID: String
    public let revision: Int64
    public let locales: [String]
    public let defaultLocale: String?
    public let entries: [LocalizedTextEntry]
    public let translations: TranslationMemory
    public let coverage: [LocaleCoverage]

    public var etag: String { "\"r\(revision)\"" }

    public var json: JSONValue {
        let source = defaultLocale ?? locales.first ?? "en"
        return [
            "paywallId": .string(paywallID), "revision": .number(Int(revision)),
            "locales": .array(locales.map { .string($0) }), "defaultLocale": defaultLocale.map { .string($0) } ?? .null,
            "texts": .array(
                entries.map { entry in
                    var json = entry.json
                    json["staleLocales"] = .array(
                        translations.staleLocales(of: entry, defaultLocale: source).map(JSONValue.string))
                    return json
                }),
            "coverage": .array(coverage.map(\.json)),
        ]
    }
}

extension PaywallService {
    public func texts(appID: String, id: String) throws -> DraftTexts {
        let draft = try self.draft(appID: appID, id: id)
        return DraftTexts(
            paywallID: id, revision: draft.revision,
            locales: draft.document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            defaultLocale: draft.document["defaultLocale"]?.stringValue,
            entries: PaywallLocalization.texts(in: draft.document), translations: draft.translations,
            coverage: draft.translations.coverage(of: draft.document))
    }

    /// Sets many translations of one locale by path (adding the locale when new), under the same
    /// revision check as a draft save. Unknown paths reject the whole request (422 with each path).
    public func setTexts(
        appID: String, id: String, locale: String, translations: [String: String], expectedRevision: Int64
    ) throws -> Draft {
        guard StringFormat.localeTag.matches(locale) else {
            throw ServiceError.badField(
                "$.locale", "invalid_locale_tag", "'\(locale)' is not a locale tag like en, de-AT or pt-BR.")
        }
        let current = try draft(appID: appID, id: id)
        // A translation keeps its source's variables and marks, by whichever route it is written
        // (the same check as MCP's localize_paywall); the default locale's texts are the sources.
        if locale != TranslationMemory.defaultLocale(of: current.document) {
            var sources: [String: String] = [:]
            for entry in PaywallLocalization.texts(in: current.document) {
                sources[entry.path.description] = entry.values[TranslationMemory.defaultLocale(of: current.document)]
            }
            var issues: [ValidationIssue] = []
            for path in translations.keys.sorted() {
                guard let text = translations[path], let source = sources[path] else { continue }
                for problem in PaywallLocalization.check(translation: text, source: source) {
                    issues.append(
                        ValidationIssue(
                            path: "$.texts[\"\(path)\"]", message: problem.message, code: problem.code.rawValue))
                }
            }
            guard issues.isEmpty else {
                throw ServiceError.invalid(
                    issues, detail: "\(issues.count) problem(s) with the translations; nothing was written.")
            }
        }
        let application = PaywallLocalization.apply(translations, locale: locale, to: current.document)
        guard application.unknownPaths.isEmpty else {
            throw ServiceError.invalid(
                application.unknownPaths.map {
                    ValidationIssue(
                        path: "$.texts[\"\($0)\"]", message: "'\($0)' is not a text path of this draft.",
                        code: "unknown_text_path")
                }, detail: "\(application.unknownPaths.count) path(s) name no text of the draft.")
        }
        return try saveDraft(appID: appID, id: id, document: application.document, expectedRevision: expectedRevision)
    }
}
