import PaywallFormat

/// Controls: the purchase and restore buttons and the footer links (buttons, carousels and selectors: `button`, `carousel`, `selector`).
extension PageBuilder {
    mutating func purchaseButtonNode(
        slot: String, labelText: LocalizedText, sublabel: LocalizedText?, _ element: NodeElement
    ) {
        var classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        let bound: String? =
            slot == "$selected" ? (hasSelector ? "$selected" : document.products.first?.slot) : slot
        classes.append("xz-btn")
        if let bound, bound == "$selected" || slots[bound] != nil {
            attributes += [("type", "button"), ("data-a", "purchase"), ("data-slot", bound)]
        } else {
            attributes += [("type", "button"), ("disabled", "")]
        }
        if let label { attributes.append(("aria-label", label)) }
        open("button", classes, style: style, attributes)
        textElement("span", ["xz-label"], labelText, scope: bound)
        if sublabel != nil { textElement("span", ["xz-sublabel"], sublabel, scope: bound) }
        out += "</button>"
    }

    mutating func restoreButtonNode(labelText: LocalizedText?, scope: String?, _ element: NodeElement) {
        let classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        attributes += [("type", "button"), ("data-a", "restore")]
        if let label { attributes.append(("aria-label", label)) }
        open("button", classes + ["xz-btn"], style: style, attributes)
        textElement("span", ["xz-label"], labelText ?? DefaultStrings.restorePurchases, scope: scope)
        out += "</button>"
    }

    mutating func footerLinksNode(
        privacyUrl: String?, termsUrl: String?, showRestore: Bool, privacyLabel: LocalizedText?,
        termsLabel: LocalizedText?, restoreLabel: LocalizedText?, _ element: NodeElement
    ) {
        let classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        attributes.append(("aria-label", label ?? pick(DefaultStrings.legal) ?? "Legal"))
        open("nav", classes, style: style, attributes)
        var first = true
        func separator(_ b: inout PageBuilder) {
            if !first { b.out += "<span class=\"xz-sep\" aria-hidden=\"true\">·</span>" }
            first = false
        }
        if let url = privacyUrl.flatMap(URLPolicy.link) {
            separator(&self)
            open("a", [], [("href", url), ("data-a", "open_url"), ("target", "_blank"), ("rel", "noopener")])
            out += HTML.text(pick(privacyLabel) ?? pick(DefaultStrings.privacy) ?? "") + "</a>"
        }
        if let url = termsUrl.flatMap(URLPolicy.link) {
            separator(&self)
            open("a", [], [("href", url), ("data-a", "open_url"), ("target", "_blank"), ("rel", "noopener")])
            out += HTML.text(pick(termsLabel) ?? pick(DefaultStrings.terms) ?? "") + "</a>"
        }
        if showRestore {
            separator(&self)
            out +=
                "<button type=\"button\" data-a=\"restore\">"
                + HTML.text(pick(restoreLabel) ?? pick(DefaultStrings.restore) ?? "") + "</button>"
        }
        out += "</nav>"
    }
}
