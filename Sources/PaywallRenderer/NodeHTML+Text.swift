import PaywallFormat

/// Text nodes: text, badges, timers and feature lists.
extension PageBuilder {
    mutating func textNode(_ text: LocalizedText, scope: String?, _ element: NodeElement) {
        let classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        let template = pick(text) ?? ""
        attributes += dynamicAttributes(template, scope: scope)
        open("p", classes, style: style, attributes)
        if let label {
            out +=
                "<span aria-hidden=\"true\">" + textContent(template, scope: scope)
                + "</span><span class=\"xz-sr\">" + HTML.text(label) + "</span></p>"
        } else {
            out += textContent(template, scope: scope) + "</p>"
        }
    }

    mutating func badgeNode(
        _ text: LocalizedText, variant: PaywallNode.Kind.BadgeVariant, scope: String?, _ element: NodeElement
    ) {
        var classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        classes.append("xz-badge-" + variant.rawValue)
        let template = pick(text) ?? ""
        attributes += dynamicAttributes(template, scope: scope)
        if let label { attributes.append(("aria-label", label)) }
        open("span", classes, style: style, attributes)
        out += textContent(template, scope: scope) + "</span>"
    }

    mutating func timerNode(
        kind: PaywallNode.Kind.TimerKind, durationSeconds: Int?, endsAt: String?, format: PaywallNode.Kind.TimerFormat,
        onExpire: PaywallNode.Kind.TimerExpiry, labelText: LocalizedText?, node: PaywallNode, scope: String?,
        _ element: NodeElement
    ) {
        let classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        timerCount += 1
        let template = pick(labelText) ?? "{{timer.remaining}}"
        attributes += [
            ("data-timer", kind.rawValue), ("data-fmt", format.rawValue), ("data-expire", onExpire.rawValue),
            ("data-tid", node.common.id ?? "timer\(timerCount)"), ("role", "timer"),
        ]
        if kind == .duration { attributes.append(("data-secs", String(max(0, durationSeconds ?? 0)))) }
        if let endsAt { attributes.append(("data-ends", endsAt)) }
        attributes.append(("data-t", template))
        if let scope, extractVariables(template).contains(where: { $0.hasPrefix("product.") }) {
            attributes.append(("data-s", scope))
        }
        if let label { attributes.append(("aria-label", label)) }
        let initial =
            kind == .duration
            ? PageBuilder.formatRemaining(max(0, durationSeconds ?? 0), format)
            : PageBuilder.unknownRemaining(format)
        open("p", classes, style: style, attributes)
        out +=
            textContent(template, scope: scope, extraContext: ["timer": ["remaining": .string(initial)]]) + "</p>"
    }

    mutating func featureListNode(
        items: [FeatureItem], iconColor: String?, scope: String?, _ element: NodeElement
    ) {
        let classes = element.classes
        let style = element.style
        var attributes = element.attributes
        let label = element.label
        if let label { attributes.append(("aria-label", label)) }
        open("ul", classes, style: style, attributes)
        let iconStyle =
            iconColor.flatMap(CSSValue.color).map { " style=\"" + HTML.attribute("color:" + $0) + "\"" } ?? ""
        for item in items {
            out +=
                "<li><span class=\"xz-icon\" aria-hidden=\"true\"\(iconStyle)>" + HTML.text(item.icon ?? "✓")
                + "</span>"
            textElement("span", [], item.text, scope: scope)
            out += "</li>"
        }
        out += "</ul>"
    }
}
