import PaywallFormat

/// Media nodes: video and Lottie (images: `image`).
extension PageBuilder {
    mutating func videoNode(
        src: String, poster: String?, loop: Bool, muted: Bool, autoplay: Bool, lazy: Bool, aspectRatio: Double?,
        fit: Fit, _ element: NodeElement
    ) {
        let classes = element.classes
        var style = element.style
        let attributes = element.attributes
        let label = element.label
        style.insert("aspect-ratio:" + CSSValue.number(aspectRatio ?? 16.0 / 9.0), at: 0)
        open("div", classes + ["xz-media"], style: style, attributes)
        var v: [(String, String)] = [("preload", "none")]
        if let url = media(src) { v.append(("data-src", url)) }
        if let url = poster.flatMap({ media($0) }) {
            if !lazy && preloads.isEmpty { preloads.append(url) }
            v.append((lazy ? "data-poster" : "poster", url))
        }
        if !lazy { v.append(("data-eager", "1")) }
        if autoplay { v.append(("data-autoplay", "1")) } else { v.append(("controls", "")) }
        if let label { v.append(("aria-label", label)) }
        if fit != .cover { v.append(("style", "object-fit:" + fit.rawValue)) }
        out += "<video playsinline" + (muted ? " muted" : "") + (loop ? " loop" : "")
        for (name, value) in v { out += " " + name + "=\"" + HTML.attribute(value) + "\"" }
        out += "></video></div>"
    }

    mutating func lottieNode(
        src: String, loop: Bool, speed: Double, autoplay: Bool, aspectRatio: Double?, fallback: PaywallNode?,
        scope: String?, _ element: NodeElement
    ) {
        var classes = element.classes
        var style = element.style
        var attributes = element.attributes
        let label = element.label
        if let ratio = aspectRatio { style.insert("aspect-ratio:" + CSSValue.number(ratio), at: 0) }
        if lottiePlayer != nil, let url = media(src) {
            fetchesAnimations = true
            attributes += [("data-lottie", url), ("data-speed", CSSValue.number(speed))]
            if loop { attributes.append(("data-loop", "1")) }
            if autoplay { attributes.append(("data-autoplay", "1")) }
            if let label { attributes += [("role", "img"), ("aria-label", label)] }
            open("div", classes, style: style, attributes)
            out += "<div class=\"xz-lottie-stage\" aria-hidden=\"true\"></div>"
        } else {
            classes.append("xz-lottie-none")
            open("div", classes, style: style, attributes)
        }
        if let fallback {
            out += "<div class=\"xz-lottie-fb\">"
            self.node(fallback, parent: .vertical, scope: scope)
            out += "</div>"
        }
        out += "</div>"
    }
}
