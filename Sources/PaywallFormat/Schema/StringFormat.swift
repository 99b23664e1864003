/// The string formats of the document. Each has a hand-written matcher (fast, used by the validator) and
/// the equivalent regular expression (emitted into the JSON Schema); the Python agreement tests check
/// that the two accept the same strings.
public enum StringFormat: String, Sendable, CaseIterable {
    /// Any string.
    case any
    /// At least one character.
    case nonEmpty
    /// `[A-Za-z0-9_-]{1,64}`: node ids, slot ids, document ids.
    case id
    /// A product slot reference: a slot id or `$selected`.
    case slotReference
    /// A locale tag as the format spells it: `en`, `de-AT`, `pt-BR`, `zh-Hans`, `es-419`.
    case localeTag
    /// An absolute `https://` URL without whitespace.
    case httpsURL
    /// `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA`.
    case hexColor
    /// A hex colour or a theme colour token `$name`.
    case color
    /// A theme token name (the keys of `theme.colors`, `theme.fonts`, `theme.radii`).
    case tokenName
    /// A theme token reference `$name` (radii).
    case tokenReference
    /// A font family name, or a theme font token `$name`.
    case fontFamily
    /// An RFC 3339 date-time with a time zone (`2026-12-31T23:59:59Z`).
    case dateTime

    static let tokenNamePattern = "[A-Za-z][A-Za-z0-9_-]{0,63}"
    static let hexPattern = "#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})"

    /// ECMA-262 regular expression for the JSON Schema (nil = no pattern).
    public var pattern: String? {
        switch self {
        case .any, .nonEmpty: return nil
        case .id: return "^[A-Za-z0-9_-]{1,64}$"
        case .slotReference: return "^(\\$selected|[A-Za-z0-9_-]{1,64})$"
        case .localeTag: return "^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$"
        case .httpsURL: return "^https://[^\\s]+$"
        case .hexColor: return "^" + Self.hexPattern + "$"
        case .color: return "^(" + Self.hexPattern + "|\\$" + Self.tokenNamePattern + ")$"
        case .tokenName: return "^" + Self.tokenNamePattern + "$"
        case .tokenReference: return "^\\$" + Self.tokenNamePattern + "$"
        case .fontFamily: return "^(\\$" + Self.tokenNamePattern + "|[^$][\\s\\S]*)$"
        case .dateTime:
            return "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
        }
    }

    public var minLength: Int? { self == .nonEmpty ? 1 : nil }

    /// The validator's error code for a string that does not match.
    public var errorCode: String {
        switch self {
        case .any: return "type_mismatch"
        case .nonEmpty: return "empty_string"
        case .id, .slotReference: return "invalid_id"
        case .localeTag: return "invalid_locale_tag"
        case .httpsURL: return "non_https_url"
        case .hexColor: return "invalid_hex_color"
        case .color: return "invalid_color"
        case .tokenName: return "invalid_token_name"
        case .tokenReference: return "invalid_token_reference"
        case .fontFamily: return "invalid_font_family"
        case .dateTime: return "invalid_date_time"
        }
    }

    /// Human description for messages and docs.
    public var summary: String {
        switch self {
        case .any: return "string"
        case .nonEmpty: return "non-empty string"
        case .id: return "id ([A-Za-z0-9_-]{1,64})"
        case .slotReference: return "slot id or \"$selected\""
        case .localeTag: return "locale tag (en, de-AT, zh-Hans)"
        case .httpsURL: return "https URL"
        case .hexColor: return "hex colour (#RGB, #RGBA, #RRGGBB, #RRGGBBAA)"
        case .color: return "colour (hex or $token)"
        case .tokenName: return "token name"
        case .tokenReference: return "$token"
        case .fontFamily: return "font family or $token"
        case .dateTime: return "RFC 3339 date-time"
        }
    }

    public func matches(_ s: String) -> Bool {
        switch self {
        case .any: return true
        case .nonEmpty: return !s.isEmpty
        case .id: return Self.isID(s.utf8)
        case .slotReference: return s == "$selected" || Self.isID(s.utf8)
        case .localeTag: return Self.isLocaleTag(s)
        case .httpsURL:
            guard s.utf8.count > 8, s.hasPrefix("https://") else { return false }
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                return !s.utf8.contains { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
            }
            return !s.unicodeScalars.contains { $0.properties.isWhitespace }
        case .hexColor: return Self.isHexColor(s.utf8)
        case .color: return Self.isHexColor(s.utf8) || Self.isTokenReference(s.utf8)
        case .tokenName: return Self.isTokenName(s.utf8[...])
        case .tokenReference: return Self.isTokenReference(s.utf8)
        case .fontFamily:
            guard let first = s.utf8.first else { return false }
            return first == UInt8(ascii: "$") ? Self.isTokenReference(s.utf8) : true
        case .dateTime: return Self.isDateTime(Array(s.utf8))
        }
    }

    static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isHex(_ b: UInt8) -> Bool { isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66) }

    static func isID(_ s: String.UTF8View) -> Bool {
        let n = s.count
        return n >= 1 && n <= 64 && s.allSatisfy { isAlpha($0) || isDigit($0) || $0 == 0x5F || $0 == 0x2D }
    }

    static func isTokenName(_ s: Substring.UTF8View) -> Bool {
        guard let first = s.first, isAlpha(first), s.count <= 64 else { return false }
        return s.allSatisfy { isAlpha($0) || isDigit($0) || $0 == 0x5F || $0 == 0x2D }
    }

    static func isTokenReference(_ s: String.UTF8View) -> Bool {
        guard s.first == UInt8(ascii: "$") else { return false }
        return isTokenName(Substring(s.dropFirst()).utf8)
    }

    static func isHexColor(_ s: String.UTF8View) -> Bool {
        guard s.first == UInt8(ascii: "#") else { return false }
        let digits = s.dropFirst()
        return [3, 4, 6, 8].contains(digits.count) && digits.allSatisfy(isHex)
    }

    /// `language(-Script)?(-REGION|-NNN)?` with the casing of the pattern, on bytes (no allocation).
    static func isLocaleTag(_ s: String) -> Bool {
        var u = s.utf8[...]
        func take(_ n: Int, _ ok: (UInt8) -> Bool) -> Bool {
            guard u.count >= n, u.prefix(n).allSatisfy(ok) else { return false }
            u = u.dropFirst(n)
            return true
        }
        func subtagLength() -> Int { u.firstIndex(of: 0x2D).map { u.distance(from: u.startIndex, to: $0) } ?? u.count }
        let isLower = { (b: UInt8) in b >= 0x61 && b <= 0x7A }
        let isUpper = { (b: UInt8) in b >= 0x41 && b <= 0x5A }
        let language = subtagLength()
        guard (2...3).contains(language), take(language, isLower) else { return false }
        if u.first == 0x2D {
            u = u.dropFirst()
            if subtagLength() == 4 {
                guard take(1, isUpper), take(3, isLower) else { return false }
                guard u.first == 0x2D else { return u.isEmpty }
                u = u.dropFirst()
            }
            switch subtagLength() {
            case 2: guard take(2, isUpper) else { return false }
            case 3: guard take(3, isDigit) else { return false }
            default: return false
            }
        }
        return u.isEmpty
    }

    static func isDateTime(_ u: [UInt8]) -> Bool {
        // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
        guard u.count >= 20 else { return false }
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { isDigit(u[$0]) } }
        guard digits(0..<4), u[4] == 0x2D, digits(5..<7), u[7] == 0x2D, digits(8..<10), u[10] == 0x54,
            digits(11..<13), u[13] == 0x3A, digits(14..<16), u[16] == 0x3A, digits(17..<19)
        else { return false }
        var i = 19
        if u[i] == 0x2E {
            i += 1
            let start = i
            while i < u.count, isDigit(u[i]) { i += 1 }
            guard i > start else { return false }
        }
        guard i < u.count else { return false }
        if u[i] == 0x5A { return i + 1 == u.count }
        guard u[i] == 0x2B || u[i] == 0x2D, u.count == i + 6 else { return false }
        return digits((i + 1)..<(i + 3)) && u[i + 3] == 0x3A && digits((i + 4)..<(i + 6))
    }
}
