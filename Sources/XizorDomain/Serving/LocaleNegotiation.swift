import PaywallFormat

/// Picks the locale a paywall is presented in: the `locale` parameter, else `Accept-Language`
/// (by q-value, RFC 9110 §12.5.4), else the document's default — each candidate matched with the
/// format's order (exact, then language prefix in both directions).
package enum LocaleNegotiation {
    package static func choose(parameter: String?, acceptLanguage: String?, locales: [String], defaultLocale: String)
        -> String
    {
        if let parameter, let match = matchLocale(parameter, among: locales) { return match }
        if parameter == nil, let acceptLanguage {
            for tag in preferences(acceptLanguage) {
                if tag == "*" { return defaultLocale }
                if let match = matchLocale(tag, among: locales) { return match }
            }
        }
        return defaultLocale
    }

    /// Language ranges with q > 0, most preferred first (stable for equal q).
    static func preferences(_ header: String) -> [String] {
        var ranked: [(tag: String, q: Double, index: Int)] = []
        for (index, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            if q > 0 && q <= 1 { ranked.append((tag, q, index)) }
        }
        return ranked.sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }.map(\.tag)
    }
}
