import PaywallFormat

/// One text of a draft to translate into a target locale: its source (the default locale's
/// template), what a translation must keep, and the translation the draft already has, if any.
public struct TranslationTask: Sendable {
    public let path: String
    public let source: String
    public let requirements: TranslationRequirements
    public let translation: String?
    /// The translation was made from another source text than today's.
    public let stale: Bool

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "path": .string(path), "source": .string(source),
            "translation": translation.map { .string($0) } ?? .null, "stale": .bool(stale),
        ]
        if case .object(let keep) = requirements.json { object.merge(keep) { a, _ in a } }
        return .object(object)
    }
}

/// What an agent needs to translate a draft into one locale: every text with its source, and
/// which paths still lack the locale.
public struct LocalizationWorklist: Sendable {
    public let paywallID: String
    public let revision: Int64
    public let locale: String
    public let sourceLocale: String
    public let locales: [String]
    public let tasks: [TranslationTask]

    /// Paths with no text in `locale` yet, in document order.
    public var missing: [TranslationTask] { tasks.filter { $0.translation == nil } }
    /// Paths whose translation was made from an older source: translate them again.
    public var stale: [TranslationTask] { tasks.filter(\.stale) }

    public var json: JSONValue {
        [
            "paywallId": .string(paywallID), "revision": .number(Int(revision)), "locale": .string(locale),
            "sourceLocale": .string(sourceLocale), "locales": .array(locales.map { .string($0) }),
            "texts": .array(tasks.map(\.json)), "missing": .array(missing.map { .string($0.path) }),
            "stale": .array(stale.map { .string($0.path) }), "complete": .bool(missing.isEmpty && stale.isEmpty),
        ]
    }
}

extension PaywallService {
    /// Every text path of the draft with its source and the requirements a translation into
    /// `locale` must meet (its variables and markdown-lite marks).
    public func localizationWorklist(appID: String, id: String, locale: String) throws -> LocalizationWorklist {
        let draft = try self.draft(appID: appID, id: id)
        return try PaywallService.worklist(for: draft, locale: locale)
    }

    /// Checks each translation against its source (it must keep the source's variables and
    /// marks) and writes them all into the draft, adding `locale` to `locales`; all or nothing:
    /// one unknown path or unfaithful translation rejects the call with every problem's path.
    /// `expectedRevision` nil means "whatever the draft is now" (the write is by path).
    public func translate(
        appID: String, id: String, locale: String, translations: [String: String],
        expectedRevision: Int64?
    ) throws -> (draft: Draft, written: [String], worklist: LocalizationWorklist) {
        guard !translations.isEmpty else {
            throw ServiceError.badField(
                "$.translations", "empty_translations", "Give at least one translation, by text path.")
        }
        let current = try draft(appID: appID, id: id)
        let before = try PaywallService.worklist(for: current, locale: locale)
        let sources = Dictionary(before.tasks.map { ($0.path, $0.source) }, uniquingKeysWith: { a, _ in a })
        var issues: [ValidationIssue] = []
        for path in translations.keys.sorted() {
            let at = "$.translations[\"\(path)\"]"
            guard let text = translations[path], let source = sources[path] else {
                issues.append(
                    ValidationIssue(
                        path: at, message: "'\(path)' is not a text path of this draft.", code: "unknown_text_path"))
                continue
            }
            for problem in PaywallLocalization.check(translation: text, source: source) {
                issues.append(ValidationIssue(path: at, message: problem.message, code: problem.code.rawValue))
            }
        }
        guard issues.isEmpty else {
            throw ServiceError.invalid(
                issues, detail: "\(issues.count) problem(s) with the translations; nothing was written.")
        }
        let saved = try setTexts(
            appID: appID, id: id, locale: locale, translations: translations,
            expectedRevision: expectedRevision ?? current.revision)
        return (saved, translations.keys.sorted(), try PaywallService.worklist(for: saved, locale: locale))
    }

    static func worklist(for draft: Draft, locale: String) throws -> LocalizationWorklist {
        guard StringFormat.localeTag.matches(locale) else {
            throw ServiceError.badField(
                "$.locale", "invalid_locale_tag", "'\(locale)' is not a locale tag like en, de-AT or pt-BR.")
        }
        let document = draft.document
        let locales = document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let sourceLocale = document["defaultLocale"]?.stringValue ?? locales.first ?? "en"
        guard locale != sourceLocale else {
            throw ServiceError.badField(
                "$.locale", "locale_is_source",
                "'\(locale)' is the draft's default locale, the source of every translation; pick another locale.")
        }
        let tasks = PaywallLocalization.texts(in: document).map { entry -> TranslationTask in
            let source =
                entry.values[sourceLocale] ?? entry.values.keys.sorted().first.flatMap { entry.values[$0] } ?? ""
            return TranslationTask(
                path: entry.path.description, source: source,
                requirements: PaywallLocalization.requirements(for: source), translation: entry.values[locale],
                stale: draft.translations.staleLocales(of: entry, defaultLocale: sourceLocale).contains(locale))
        }
        return LocalizationWorklist(
            paywallID: draft.paywallID, revision: draft.revision, locale: locale,
            sourceLocale: sourceLocale, locales: locales, tasks: tasks)
    }
}
