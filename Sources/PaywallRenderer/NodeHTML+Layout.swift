import PaywallFormat

/// Layout nodes: stacks, spacers and dividers.
extension PageBuilder {
    mutating func stackNode(
        direction: Direction, children: [PaywallNode], gap: Double, padding: Padding?,
        alignment: PaywallNode.Kind.Alignment,
        distribution: PaywallNode.Kind.Distribution, scroll: Bool, node: PaywallNode, scope: String?,
        _ element: NodeElement
    ) {
        var classes = element.classes
        var style = element.style
        var attributes = element.attributes
        let label = element.label
        classes[0] = direction == .vertical ? "xz-col" : direction == .horizontal ? "xz-row" : "xz-layer"
        if let padding = padding ?? node.common.style?.padding {
            style.insert("padding:" + CSSValue.padding(padding), at: 0)
        }
        if gap > 0 { style.append("gap:" + CSSValue.px(gap)) }
        if direction == .layered {
            // Stretch: children fill the layer; a row keeps its own height at the top (an HStack in a ZStack).
            if alignment != .stretch {
                style.append("place-items:" + PageBuilder.flexValue(alignment.rawValue))
            } else {
                classes.append("xz-layer-fill")
            }
        } else {
            if alignment != .stretch { style.append("align-items:" + PageBuilder.flexValue(alignment.rawValue)) }
            if distribution != .start {
                style.append("justify-content:" + PageBuilder.flexValue(distribution.rawValue))
            }
        }
        if scroll { classes.append(direction == .horizontal ? "xz-scroll-x" : "xz-scroll-y") }
        if let label { attributes += [("role", "group"), ("aria-label", label)] }
        open("div", classes, style: style, attributes)
        for child in children { self.node(child, parent: direction, scope: scope) }
        out += "</div>"
    }

    mutating func spacerNode(size: Double?, flex: Double?, parent: Direction, _ element: NodeElement) {
        let classes = element.classes
        var style = element.style
        var attributes = element.attributes
        if let size {
            style.append(parent == .layered ? "height:" + CSSValue.px(size) : "flex:0 0 " + CSSValue.px(size))
        } else {
            style.append("flex:" + CSSValue.number(flex ?? 1) + " 1 0")
        }
        attributes.append(("aria-hidden", "true"))
        open("div", classes, style: style, attributes)
        out += "</div>"
    }

    mutating func dividerNode(
        thickness: Double, color: String?, inset: Double, parent: Direction, _ element: NodeElement
    ) {
        let classes = element.classes
        var style = element.style
        let attributes = element.attributes
        if parent == .horizontal {
            style += ["width:" + CSSValue.px(thickness), "margin-block:" + CSSValue.px(inset)]
        } else {
            style += ["height:" + CSSValue.px(thickness), "margin-inline:" + CSSValue.px(inset)]
        }
        if let c = color.flatMap(CSSValue.color) { style.append("background:" + c) }
        open("hr", classes, style: style, attributes)
    }
}
