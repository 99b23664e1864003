import PaywallFormat

/// The only ways a document string reaches the page. Every text goes through `text`, every attribute
/// value through `attribute` (always double-quoted), every URL through `URLPolicy` first, and nothing
/// from the document is ever written into CSS or JavaScript unvalidated (see `CSSValue`).
enum HTML {
    /// Escapes text content: `&`, `<`, `>`.
    static func text(_ s: String) -> String { escape(s, quotes: false) }

    /// Escapes a double-quoted attribute value: `&`, `<`, `>`, `"`, `'`.
    static func attribute(_ s: String) -> String { escape(s, quotes: true) }

    /// One escaper for both: text escapes `&`, `<`, `>`; attributes also both quotes.
    private static func escape(_ s: String, quotes: Bool) -> String {
        guard
            s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || (quotes && ($0 == 0x22 || $0 == 0x27)) })
        else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// JSON for a `<script type="application/json">` block: `<` becomes `\u003c` so no `</script>` or
    /// `<!--` can appear (valid JSON, since `<` only occurs inside strings).
    static func scriptJSON(_ value: JSONValue) -> String {
        let json = value.canonicalString
        guard json.utf8.contains(0x3C) else { return json }
        return json.replacingAll("<", with: "\\u003c")
    }
}

/// Which URLs the page may use. Media must be `https:` (the schema says so; the page's CSP enforces it
/// too); links may also be `http:` or `mailto:`. Anything else (`javascript:`, `data:`, relative paths,
/// URLs with whitespace or control characters) is dropped, so the element renders without it.
enum URLPolicy {
    static func media(_ url: String) -> String? { allowed(url, schemes: ["https"]) }
    static func link(_ url: String) -> String? { allowed(url, schemes: ["https", "http", "mailto"]) }

    static func allowed(_ url: String, schemes: [String]) -> String? {
        guard !url.isEmpty, url.utf8.count <= 4096,
            !url.unicodeScalars.contains(where: {
                $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" || $0 == "<" || $0 == ">" || $0 == "\""
            })
        else { return nil }
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard schemes.contains(scheme) else { return nil }
        let rest = url[url.index(after: colon)...]
        if scheme != "mailto" {
            guard rest.hasPrefix("//"), rest.count > 2 else { return nil }
        }
        return url
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
