/// Steps 1–2 of the seed's locale order (exact, then language prefix in both directions) without
/// the fallbacks, so a caller with several preferences (Accept-Language) can try each in turn
/// before falling back to the default locale. Nil when `locale` matches none of `locales`.
public func matchLocale(_ locale: String, among locales: [String]) -> String? {
    let keys = locales.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    let wanted = normalizeLocale(locale)
    guard !wanted.isEmpty else { return nil }
    if let exact = keys.first(where: { normalizeLocale($0) == wanted }) { return exact }
    let prefixes = keys.filter { isSubtagPrefix(normalizeLocale($0), of: wanted) }
    if let best = prefixes.max(by: { $0.utf8.count < $1.utf8.count }) { return best }
    return keys.first(where: { isSubtagPrefix(wanted, of: normalizeLocale($0)) })
}
