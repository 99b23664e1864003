/// What each translation of a document was made from: locale → text path → the default locale's
/// text at the time the translation was written. A translation whose recorded source is no longer
/// the source is **stale**: someone changed the copy and the translation still says the old thing.
///
/// Kept beside the draft (not in the document, which is what gets published), and updated by
/// `updated(from:to:)` on every save, so every way of writing a draft — a whole save, a patch,
/// texts by path, MCP — keeps it true without knowing about it.
public struct TranslationMemory: Sendable, Hashable {
    public private(set) var sources: [String: [String: String]]

    public init(_ sources: [String: [String: String]] = [:]) { self.sources = sources }

    /// The memory after `document` replaces `previous` (nil: a new draft). A translation that is new
    /// or changed was made from the current source; one left as it was keeps what it was made from
    /// (so a changed source leaves it stale); one without a record (a template's, or stored before
    /// the memory existed) is taken as made from the current source. Texts and locales that are gone
    /// are forgotten.
    public func updated(from previous: JSONValue?, to document: JSONValue) -> TranslationMemory {
        let defaultLocale = TranslationMemory.defaultLocale(of: document)
        var before: [String: [String: String]] = [:]
        for entry in previous.map(PaywallLocalization.texts(in:)) ?? [] {
            before[entry.path.description] = entry.values
        }
        var next: [String: [String: String]] = [:]
        for entry in PaywallLocalization.texts(in: document) {
            let path = entry.path.description
            guard let source = entry.values[defaultLocale] else { continue }
            for (locale, text) in entry.values where locale != defaultLocale {
                let unchanged = before[path]?[locale] == text
                next[locale, default: [:]][path] = unchanged ? (sources[locale]?[path] ?? source) : source
            }
        }
        return TranslationMemory(next)
    }

    /// The locales whose translation of `entry` was made from another source than its current one.
    public func staleLocales(of entry: LocalizedTextEntry, defaultLocale: String) -> [String] {
        guard let source = entry.values[defaultLocale] else { return [] }
        let path = entry.path.description
        return entry.values.keys.sorted().filter { locale in
            locale != defaultLocale && sources[locale]?[path].map { $0 != source } == true
        }
    }

    /// Per locale other than the default: how many texts it lacks and how many are stale.
    public func coverage(of document: JSONValue) -> [LocaleCoverage] {
        let defaultLocale = TranslationMemory.defaultLocale(of: document)
        let locales = document["locales"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let entries = PaywallLocalization.texts(in: document)
        return locales.filter { $0 != defaultLocale }.map { locale in
            var missing: [String] = []
            var stale: [String] = []
            for entry in entries {
                if entry.values[locale] == nil {
                    missing.append(entry.path.description)
                } else if staleLocales(of: entry, defaultLocale: defaultLocale).contains(locale) {
                    stale.append(entry.path.description)
                }
            }
            return LocaleCoverage(locale: locale, texts: entries.count, missing: missing, stale: stale)
        }
    }

    public static func defaultLocale(of document: JSONValue) -> String {
        document["defaultLocale"]?.stringValue ?? document["locales"]?.arrayValue?.first?.stringValue ?? "en"
    }

    public var json: JSONValue { .object(sources.mapValues { .object($0.mapValues(JSONValue.string)) }) }

    /// The stored form back; anything that is not `{locale: {path: text}}` reads as no memory.
    public init(json: JSONValue) {
        var sources: [String: [String: String]] = [:]
        for (locale, paths) in json.objectValue ?? [:] {
            for (path, text) in paths.objectValue ?? [:] {
                if let text = text.stringValue { sources[locale, default: [:]][path] = text }
            }
        }
        self.sources = sources
    }
}

/// How complete one locale's translation is.
public struct LocaleCoverage: Sendable, Hashable {
    public var locale: String
    public var texts: Int
    /// Paths with no text in this locale, and paths whose translation is stale, in document order.
    public var missing: [String]
    public var stale: [String]

    public var isComplete: Bool { missing.isEmpty && stale.isEmpty }

    public var json: JSONValue {
        [
            "locale": .string(locale), "texts": .number(texts), "missing": .array(missing.map(JSONValue.string)),
            "stale": .array(stale.map(JSONValue.string)),
        ]
    }
}
