import PaywallFormat

/// Document values turned into CSS. Nothing passes through: colours must be hex or a well-formed token,
/// font families keep only letters, digits, spaces, `-` and `_`, numbers are formatted here. An invalid
/// value yields nil and the declaration is left out (the renderer is tolerant, never crashes).
enum CSSValue {
    /// `12`, `0.5`, `-1.25`: at most three decimals, no exponent for sane values.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        let r = (d * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return "\(r)"
    }

    static func px(_ d: Double) -> String { d == 0 ? "0" : number(d) + "px" }

    /// Points to rem, relative to the body text size the reader chose (`--xz-b` is 16, or 17 where
    /// `-apple-system-body` follows Dynamic Type), so text follows the reader's text-size setting.
    static func rem(_ points: Double) -> String { "calc(\(number(points))rem/var(--xz-b))" }

    /// A token name safe inside a custom-property name.
    static func tokenName(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64,
            name.utf8.allSatisfy({ isAlnum($0) || $0 == 0x5F || $0 == 0x2D })
        else { return nil }
        return name
    }

    /// `#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA` (CSS reads all four), lower-cased.
    static func hex(_ s: String) -> String? {
        let u = Array(s.utf8)
        guard let first = u.first, first == 0x23, [4, 5, 7, 9].contains(u.count),
            u.dropFirst().allSatisfy(isHexDigit)
        else { return nil }
        return s.lowercased()
    }

    /// A colour reference: `$token` → `var(--c-token)`, hex → itself.
    static func color(_ s: String) -> String? {
        if s.hasPrefix("$") { return tokenName(String(s.dropFirst())).map { "var(--c-\($0))" } }
        return hex(s)
    }

    static func gradient(_ g: Gradient) -> String? {
        let stops = g.stops.compactMap { stop in
            color(stop.color).map { "\($0) \(number(min(1, max(0, stop.position)) * 100))%" }
        }
        guard stops.count >= 2 else { return nil }
        switch g.kind {
        // The schema's angle: 0 = up, 90 = right — the same convention as CSS.
        case .linear: return "linear-gradient(\(number(g.angle))deg,\(stops.joined(separator: ",")))"
        case .radial: return "radial-gradient(circle,\(stops.joined(separator: ",")))"
        }
    }

    static func fill(_ f: Fill) -> String? {
        switch f {
        case .color(let c): return color(c)
        case .gradient(let g): return gradient(g)
        }
    }

    /// A quoted family followed by the system stack (no web fonts are fetched: a family is used when
    /// the device has it, as SwiftUI would).
    static func fontFamily(_ family: String) -> String? {
        let clean = String(
            family.unicodeScalars.filter { c in
                c.isASCII ? (isAlnum(UInt8(c.value)) || c == " " || c == "-" || c == "_") : c.properties.isAlphabetic
            })
        let trimmed = clean.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        return "\"\(trimmed)\",var(--xz-font)"
    }

    static func padding(_ p: Padding) -> String {
        let i = p.insets
        if i.top == i.right, i.right == i.bottom, i.bottom == i.left { return px(i.top) }
        return "\(px(i.top)) \(px(i.right)) \(px(i.bottom)) \(px(i.left))"
    }

    static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
    static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
