import PaywallFormat

/// A node's `style` as inline CSS declarations plus layout classes. Only the documented subset exists
/// (no CSS passthrough): every value is re-formatted by `CSSValue`.
struct StyleCSS {
    let theme: Theme

    struct Output {
        var declarations: [String] = []
        var classes: [String] = []
    }

    enum Role { case text, box }

    func css(_ style: Style?, role: Role, skipPadding: Bool = false) -> Output {
        var out = Output()
        guard let style else { return out }
        var d: [String] = []
        if !skipPadding, let p = style.padding { d.append("padding:" + CSSValue.padding(p)) }
        if let m = style.margin { d.append("margin:" + CSSValue.padding(m)) }
        if let bg = style.background, let v = CSSValue.fill(bg) { d.append("background:" + v) }
        if let c = style.color, let v = CSSValue.color(c) { d.append("color:" + v) }
        if let font = style.font { d += fontDeclarations(font) }
        if let a = style.textAlign {
            let v = a == .leading ? "start" : a == .center ? "center" : "end"
            d.append("text-align:" + v)
            out.classes.append("xz-ta-" + v)
        }
        if let r = style.borderRadius, let v = radius(r) { d.append("border-radius:" + v) }
        if let b = style.border, let c = CSSValue.color(b.color) {
            d.append("border:\(CSSValue.px(max(0, b.width))) solid \(c)")
        }
        if let s = style.shadow, let c = CSSValue.color(s.color) {
            let value = "\(CSSValue.px(s.x)) \(CSSValue.px(s.y)) \(CSSValue.px(max(0, s.radius))) \(c)"
            // Text shadows its glyphs (as SwiftUI's .shadow on Text does); boxes shadow their frame.
            d.append((role == .text ? "text-shadow:" : "box-shadow:") + value)
        }
        if let o = style.opacity { d.append("opacity:" + CSSValue.number(min(1, max(0, o)))) }
        switch style.width {
        case .points(let w)?: d += ["width:" + CSSValue.px(max(0, w)), "max-width:100%"]
        case .fill?: out.classes.append("xz-wfill")
        case nil: break
        }
        switch style.height {
        case .points(let h)?: d.append("height:" + CSSValue.px(max(0, h)))
        case .fill?: out.classes.append("xz-hfill")
        case nil: break
        }
        if let m = style.maxWidth { d.append("max-width:" + CSSValue.px(max(0, m))) }
        out.declarations = d
        return out
    }

    func radius(_ r: Style.Radius) -> String? {
        switch r {
        case .points(let p): return CSSValue.px(max(0, p))
        case .token(let t): return CSSValue.tokenName(t).map { "var(--r-\($0))" }
        }
    }

    func fontDeclarations(_ font: Style.Font) -> [String] {
        var d: [String] = []
        var weight = font.weight
        if let family = font.family {
            if family.hasPrefix("$") {
                if let themeFont = theme.fonts[String(family.dropFirst())] {
                    if let f = CSSValue.fontFamily(themeFont.family) { d.append("font-family:" + f) }
                    if weight == nil { weight = themeFont.weight }
                }
            } else if let f = CSSValue.fontFamily(family) {
                d.append("font-family:" + f)
            }
        }
        if let size = font.size, size > 0 { d.append("font-size:" + CSSValue.rem(size)) }
        if let w = weight { d.append("font-weight:\(min(900, max(100, (w / 100) * 100)))") }
        if font.italic { d.append("font-style:italic") }
        if let lh = font.lineHeight, lh > 0 { d.append("line-height:" + CSSValue.number(lh)) }
        if let ls = font.letterSpacing { d.append("letter-spacing:" + CSSValue.rem(ls)) }
        return d
    }
}
