import PaywallFormat

typealias Direction = PaywallNode.Kind.Direction

/// What every node's element starts from: the class list, inline style and attributes its common
/// fields give, and its accessibility label. Each kind's method (`NodeHTML+*.swift`) adds its own.
struct NodeElement {
    let classes: [String]
    let style: [String]
    let attributes: [(String, String)]
    let label: String?
}

/// Every node type, 1:1, as HTML: `node` applies what all nodes share and hands the rest to one
/// method per kind (`NodeHTML+Layout`, `+Text`, `+Media`, `+Controls`). Each node is one element (class `xz-<type>`) carrying its style and
/// motion inline; behaviour is declared with `data-*` attributes the runtime reads (`data-a` actions,
/// `data-t` texts with product or timer variables, `data-src` lazy media).
extension PageBuilder {
    /// Opens an element. Attribute values are escaped here; names are constants.
    mutating func open(_ tag: String, _ classes: [String], style: [String] = [], _ attributes: [(String, String)] = [])
    {
        out += "<" + tag
        if !classes.isEmpty { out += " class=\"" + HTML.attribute(classes.joined(separator: " ")) + "\"" }
        if !style.isEmpty { out += " style=\"" + HTML.attribute(style.joined(separator: ";")) + "\"" }
        for (name, value) in attributes { out += " " + name + "=\"" + HTML.attribute(value) + "\"" }
        out += ">"
    }

    func pick(_ text: LocalizedText?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return pickLocalizedText(text, locale: requestedLocale, defaultLocale: document.defaultLocale)
    }

    /// Renders a template: markdown-lite first, then variables per run (a value is never read as markup).
    /// Context and a preview's initial products are resolved here; elements that need product or timer
    /// values also get `data-t` (the template) and `data-s` (its product scope) for the runtime.
    func textContent(_ template: String, scope: String?, extraContext: [String: JSONValue] = [:]) -> String {
        var context = serverTextContext
        let slot = scope == "$selected" ? initialSelection : scope
        if let slot, let product = initialProductContext[slot] { context["product"] = product }
        for (k, v) in extraContext { context[k] = v }
        var html = ""
        for span in parseMarkdownLite(template) {
            let resolved = HTML.text(resolveText(span.text, context: context, onMissing: options.mode.missingPolicy))
            switch (span.bold, span.italic) {
            case (true, true): html += "<strong><em>" + resolved + "</em></strong>"
            case (true, false): html += "<strong>" + resolved + "</strong>"
            case (false, true): html += "<em>" + resolved + "</em>"
            case (false, false): html += resolved
            }
        }
        return html
    }

    /// `data-t`/`data-s` for a template the runtime must finish, or none.
    func dynamicAttributes(_ template: String, scope: String?) -> [(String, String)] {
        let variables = extractVariables(template)
        guard variables.contains(where: { !$0.hasPrefix("context.") }) else { return [] }
        var attributes = [("data-t", template)]
        if let scope, variables.contains(where: { $0.hasPrefix("product.") }) { attributes.append(("data-s", scope)) }
        return attributes
    }

    /// A `<span>` (or other tag) holding a localized text.
    mutating func textElement(_ tag: String, _ classes: [String], _ text: LocalizedText?, scope: String?) {
        let template = pick(text) ?? ""
        open(tag, classes, dynamicAttributes(template, scope: scope))
        out += textContent(template, scope: scope) + "</" + tag + ">"
    }

    // MARK: Nodes

    mutating func node(_ node: PaywallNode, parent: Direction, scope: String?, extraClasses: [String] = []) {
        var items = 0
        if case .featureList(let list, _) = node.kind { items = list.count }
        guard spend(nodes: 1 + items) else { return }
        let role: StyleCSS.Role = {
            switch node.kind {
            case .text, .badge, .timer, .featureList: return .text
            default: return .box
            }
        }()
        // A stack's own `padding` and `style.padding` are one value (the field wins); emitted below.
        var isStack = false
        if case .stack = node.kind { isStack = true }
        let styled = styleCSS.css(node.common.style, role: role, skipPadding: isStack)
        let moved = motion.node(node.common.animation)
        let classes = ["xz-" + node.type.replacingAll("_", with: "-")] + extraClasses + styled.classes + moved.classes
        let style = styled.declarations + moved.declarations
        var attributes: [(String, String)] = []
        if let id = node.common.id { attributes.append(("data-id", id)) }
        // Previews name each element's node, so the console's editor can select it by a click in the canvas.
        if options.mode == .preview, let path = node.common.source.jsonPath {
            attributes.append(("data-xz-path", path))
        }
        let label = pick(node.common.accessibilityLabel)

        let element = NodeElement(classes: classes, style: style, attributes: attributes, label: label)

        switch node.kind {
        case .stack(let direction, let children, let gap, let padding, let alignment, let distribution, let scroll):
            stackNode(
                direction: direction, children: children, gap: gap, padding: padding, alignment: alignment,
                distribution: distribution, scroll: scroll, node: node, scope: scope, element)

        case .text(let text):
            textNode(text, scope: scope, element)

        case .image(let src, let blurhash, let aspectRatio, let fit, let lazy, let alt):
            image(
                src: src, blurhash: blurhash, aspectRatio: aspectRatio, fit: fit, lazy: lazy,
                alt: pick(alt) ?? label ?? "", classes: classes + ["xz-media"], style: style, attributes: attributes)

        case .video(let src, let poster, let loop, let muted, let autoplay, let lazy, let aspectRatio, let fit):
            videoNode(
                src: src, poster: poster, loop: loop, muted: muted, autoplay: autoplay, lazy: lazy,
                aspectRatio: aspectRatio, fit: fit, element)

        case .lottie(let src, let loop, let speed, let autoplay, let aspectRatio, let fallback):
            lottieNode(
                src: src, loop: loop, speed: speed, autoplay: autoplay, aspectRatio: aspectRatio, fallback: fallback,
                scope: scope, element)

        case .button(let labelText, let action):
            button(
                labelText, action: action, classes: classes + ["xz-btn"], style: style, attributes: attributes,
                label: label, scope: scope)

        case .purchaseButton(let slot, let labelText, let sublabel):
            purchaseButtonNode(slot: slot, labelText: labelText, sublabel: sublabel, element)

        case .restoreButton(let labelText):
            restoreButtonNode(labelText: labelText, scope: scope, element)

        case .carousel(let pages, let autoAdvanceMs, let loop, let indicator, let lazyRender):
            carousel(
                pages, autoAdvanceMs: autoAdvanceMs, loop: loop, indicator: indicator, lazyRender: lazyRender,
                classes: classes, style: style, attributes: attributes, label: label, scope: scope)

        case .timer(let kind, let durationSeconds, let endsAt, let format, let onExpire, let labelText):
            timerNode(
                kind: kind, durationSeconds: durationSeconds, endsAt: endsAt, format: format, onExpire: onExpire,
                labelText: labelText, node: node, scope: scope, element)

        case .featureList(let items, let iconColor):
            featureListNode(items: items, iconColor: iconColor, scope: scope, element)

        case .spacer(let size, let flex):
            spacerNode(size: size, flex: flex, parent: parent, element)

        case .divider(let thickness, let color, let inset):
            dividerNode(thickness: thickness, color: color, inset: inset, parent: parent, element)

        case .badge(let text, let variant):
            badgeNode(text, variant: variant, scope: scope, element)

        case .productSelector(let selectorSlots, let layout, let option):
            selector(
                selectorSlots, layout: layout, option: option, classes: classes, style: style, attributes: attributes,
                label: label)

        case .footerLinks(
            let privacyUrl, let termsUrl, let showRestore, let privacyLabel, let termsLabel, let restoreLabel):
            footerLinksNode(
                privacyUrl: privacyUrl, termsUrl: termsUrl, showRestore: showRestore, privacyLabel: privacyLabel,
                termsLabel: termsLabel, restoreLabel: restoreLabel, element)
        }
    }

    static func flexValue(_ v: String) -> String {
        switch v {
        case "start": return "flex-start"
        case "end": return "flex-end"
        case "space_between": return "space-between"
        case "space_around": return "space-around"
        case "space_evenly": return "space-evenly"
        default: return v
        }
    }

    mutating func image(
        src: String, blurhash: String?, aspectRatio: Double?, fit: Fit, lazy: Bool, alt: String,
        classes: [String], style: [String], attributes: [(String, String)]
    ) {
        var style = style
        if let ratio = aspectRatio { style.insert("aspect-ratio:" + CSSValue.number(ratio), at: 0) }
        // The placeholder: the blurhash's average colour at once, the decoded blurhash from the runtime.
        if let color = blurhash.flatMap(Blurhash.averageColor) { style.append("--xz-ph:" + color) }
        open("div", classes, style: style, attributes)
        if let bh = blurhash, Blurhash.isWellFormed(bh) {
            out +=
                "<canvas class=\"xz-bh\" width=\"32\" height=\"32\" data-bh=\"\(HTML.attribute(bh))\" aria-hidden=\"true\"></canvas>"
        }
        var img: [(String, String)] = [("alt", alt), ("decoding", "async")]
        if let url = media(src) {
            if lazy {
                img.append(("data-src", url))
            } else {
                if preloads.isEmpty { preloads.append(url) }
                img += [("src", url), ("fetchpriority", "high")]
            }
        }
        if fit != .cover { img.append(("style", "object-fit:" + fit.rawValue)) }
        if aspectRatio == nil { img.append(("class", "xz-natural")) }
        out += "<img"
        for (name, value) in img { out += " " + name + "=\"" + HTML.attribute(value) + "\"" }
        out += "></div>"
    }

    mutating func button(
        _ labelText: LocalizedText, action: Action, classes: [String], style: [String],
        attributes: [(String, String)], label: String?, scope: String?
    ) {
        var attributes = attributes
        var tag = "button"
        var labelScope = scope
        switch action {
        case .close:
            guard document.settings.dismissable else { return }
            attributes += [("type", "button"), ("data-a", "close")]
            if document.settings.dismissDelayMs > 0 { attributes.append(("data-delay", "")) }
        case .restore:
            attributes += [("type", "button"), ("data-a", "restore")]
        case .purchase(let slot):
            attributes += [("type", "button"), ("data-a", "purchase"), ("data-slot", slot)]
            if slots[slot] == nil { attributes.append(("disabled", "")) }
            labelScope = slot
        case .selectProduct(let slot):
            attributes += [("type", "button"), ("data-a", "select"), ("data-slot", slot)]
            labelScope = slot
        case .openURL(let url):
            if let url = URLPolicy.link(url) {
                tag = "a"
                attributes += [("href", url), ("data-a", "open_url"), ("target", "_blank"), ("rel", "noopener")]
            } else {
                attributes += [("type", "button"), ("disabled", "")]
            }
        case .custom(let name, let payload):
            attributes += [("type", "button"), ("data-a", "custom"), ("data-name", name)]
            if let payload { attributes.append(("data-payload", payload.canonicalString)) }
        case .unknown:
            attributes += [("type", "button")]
        }
        if let label { attributes.append(("aria-label", label)) }
        open(tag, classes, style: style, attributes)
        textElement("span", ["xz-label"], labelText, scope: labelScope)
        out += "</" + tag + ">"
    }

    mutating func carousel(
        _ pages: [PaywallNode], autoAdvanceMs: Int?, loop: Bool, indicator: PaywallNode.Kind.Indicator,
        lazyRender: Bool, classes: [String], style: [String], attributes: [(String, String)],
        label: String?, scope: String?
    ) {
        var attributes = attributes + [("role", "region"), ("aria-roledescription", "carousel")]
        if let label { attributes.append(("aria-label", label)) }
        if let ms = autoAdvanceMs { attributes.append(("data-auto", String(ms))) }
        if loop { attributes.append(("data-loop", "1")) }
        if lazyRender { attributes.append(("data-lazy", "1")) }
        open("div", classes, style: style, attributes)
        out += "<div class=\"xz-track\">"
        for (i, page) in pages.enumerated() {
            let position = "\(i + 1) / \(pages.count)"
            open(
                "div", ["xz-slide"],
                [("role", "group"), ("aria-roledescription", "slide"), ("aria-label", position)]
                    + (i == 0 ? [("data-active", "")] : []))
            node(page, parent: .vertical, scope: scope)
            out += "</div>"
        }
        out += "</div>"
        if indicator == .dots, pages.count > 1 {
            out += "<div class=\"xz-dots\">"
            for i in pages.indices {
                out +=
                    "<button type=\"button\" class=\"xz-dot\" data-i=\"\(i)\" aria-label=\"\(i + 1) / \(pages.count)\""
                    + (i == 0 ? " aria-current=\"true\"" : "") + "></button>"
            }
            out += "</div>"
        }
        out += "</div>"
    }

    mutating func selector(
        _ selectorSlots: [String]?, layout: PaywallNode.Kind.SelectorLayout, option: PaywallNode?,
        classes: [String], style: [String], attributes: [(String, String)], label: String?
    ) {
        var attributes = attributes + [("role", "radiogroup")]
        if let label { attributes.append(("aria-label", label)) }
        open("div", classes + ["xz-" + layout.rawValue], style: style, attributes)
        // The option's ring follows the option's own corner radius.
        let ring = option?.common.style?.borderRadius.flatMap(styleCSS.radius).map { ["border-radius:" + $0] } ?? []
        for slot in PageBuilder.offeredSlots(selectorSlots, products: document.products) {
            let selected = slot == initialSelection
            open(
                "div", ["xz-option"], style: ring,
                [
                    ("role", "radio"), ("tabindex", selected ? "0" : "-1"),
                    ("aria-checked", selected ? "true" : "false"), ("data-slot", slot),
                ])
            if let option {
                node(option, parent: .vertical, scope: slot)
            } else {
                out += "<div class=\"xz-opt-default\">"
                textElement("strong", [], ["en": "{{product.title}}"], scope: slot)
                textElement("span", [], ["en": "{{product.price}} / {{product.period}}"], scope: slot)
                out += "</div>"
            }
            out += "</div>"
        }
        out += "</div>"
    }

    static func formatRemaining(_ seconds: Int, _ format: PaywallNode.Kind.TimerFormat) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        switch format {
        case .mmss: return two(seconds / 60) + ":" + two(seconds % 60)
        case .hhmmss: return two(seconds / 3600) + ":" + two(seconds / 60 % 60) + ":" + two(seconds % 60)
        case .ddhhmmss:
            return two(seconds / 86400) + ":" + two(seconds / 3600 % 24) + ":" + two(seconds / 60 % 60) + ":"
                + two(seconds % 60)
        }
    }

    static func unknownRemaining(_ format: PaywallNode.Kind.TimerFormat) -> String {
        switch format {
        case .mmss: return "--:--"
        case .hhmmss: return "--:--:--"
        case .ddhhmmss: return "--:--:--:--"
        }
    }
}
