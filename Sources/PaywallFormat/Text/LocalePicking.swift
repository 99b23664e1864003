/// Chooses the text for `locale` from a LocalizedText map, in the seed's order:
/// 1. exact locale;
/// 2. language prefix, both directions, on subtag boundaries: a key that is a prefix of the requested
///    locale (`de` for `de-AT`, the longest such key wins), else a key the requested locale is a prefix of
///    (`de-AT` for `de`, the first such key by code-point order);
/// 3. `defaultLocale`;
/// 4. the first entry by code-point order of the keys (the order of the canonical document).
/// Locale comparison ignores case and treats `_` as `-` (`de_at` finds `de-AT`). Nil only for an empty map.
public func pickLocalizedText(_ text: [String: String], locale: String, defaultLocale: String) -> String? {
    if let exact = text[locale] { return exact }
    let keys = JSONSerializer.sortedKeysOf(text)
    let wanted = normalizeLocale(locale)
    if let match = keys.first(where: { normalizeLocale($0) == wanted }) { return text[match] }
    if !wanted.isEmpty {
        let prefixes = keys.filter { isSubtagPrefix(normalizeLocale($0), of: wanted) }
        if let best = prefixes.max(by: { $0.utf8.count < $1.utf8.count }) { return text[best] }
        if let longer = keys.first(where: { isSubtagPrefix(wanted, of: normalizeLocale($0)) }) { return text[longer] }
    }
    if let fallback = text[defaultLocale] { return fallback }
    return keys.first.flatMap { text[$0] }
}

/// The same, for a LocalizedText still in JSON form (non-string entries are ignored).
public func pickLocalizedText(_ text: JSONValue, locale: String, defaultLocale: String) -> String? {
    guard let object = text.objectValue else { return nil }
    return pickLocalizedText(object.compactMapValues(\.stringValue), locale: locale, defaultLocale: defaultLocale)
}

func normalizeLocale(_ s: String) -> String {
    String(s.lowercased().map { $0 == "_" ? "-" : $0 })
}

/// `de` is a subtag prefix of `de-at`; `d` is not a prefix of `de`.
func isSubtagPrefix(_ short: String, of long: String) -> Bool {
    short.utf8.count < long.utf8.count && long.hasPrefix(short + "-")
}

extension JSONSerializer {
    static func sortedKeysOf<V>(_ object: [String: V]) -> [String] {
        object.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    }
}
