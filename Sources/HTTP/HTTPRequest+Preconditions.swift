/// Precondition checks handlers need for state-changing methods (the server applies
/// `If-None-Match` to GET/HEAD responses itself; `ifNoneMatchMatches` is with the request's fields).
extension HTTPRequest {
    /// nil without `If-Match`; otherwise whether it names `etag` by strong comparison (weak
    /// tags never match) or is `*` (RFC 9110 §13.1.1).
    public func ifMatchMatches(_ etag: String) -> Bool? {
        let values = headers.values(for: "If-Match")
        guard !values.isEmpty else { return nil }
        if etag.hasPrefix("W/") { return false }
        for value in values {
            var rest = Substring(value)
            while !rest.isEmpty {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
                if rest.first == "*" { return true }
                guard rest.first == "\"" else {
                    // A weak tag or junk: skip to the next element.
                    if let comma = rest.firstIndex(of: ",") {
                        rest = rest[comma...]
                        continue
                    }
                    break
                }
                let afterQuote = rest.index(after: rest.startIndex)
                guard let close = rest[afterQuote...].firstIndex(of: "\"") else { break }
                if rest[rest.startIndex...close] == etag { return true }
                rest = rest[rest.index(after: close)...]
            }
        }
        return false
    }
}
