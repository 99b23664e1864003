extension DocumentLimits {
    /// A valid document that sits at every limit at once: `products` slots, `locales` locales, every text
    /// in every locale, one text of `textLength` characters, nodes nested `depth` deep, and a selector whose
    /// option repeats so the page renders `expandedNodes` nodes with `nodes - 1` nodes written (both
    /// cannot be met exactly at once). The renderer's tests and `make bench` render every form of it: it
    /// is the largest page a valid document can ask for.
    public static func exampleAtEveryLimit() -> JSONValue {
        let localeTags = exampleLocales()
        func text(_ words: String) -> JSONValue {
            .object(Dictionary(uniqueKeysWithValues: localeTags.map { ($0, JSONValue.string("\(words) (\($0))")) }))
        }
        func textNode(_ words: String) -> JSONValue { ["type": "text", "text": text(words)] }
        func stack(_ children: [JSONValue]) -> JSONValue {
            ["type": "stack", "direction": "vertical", "children": .array(children)]
        }

        let long = String(repeating: "Cancel anytime in Settings. ", count: textLength / 28 + 1).prefix(textLength)
        let longText: JSONValue = [
            "type": "text",
            "text": .object(Dictionary(uniqueKeysWithValues: localeTags.map { ($0, JSONValue.string(String(long))) })),
        ]
        // Depth: the root (1) holds a chain whose innermost node is at `depth`.
        var deepest = textNode("Deep")
        for _ in 0..<(depth - 2) { deepest = stack([deepest]) }
        // The option renders once per product: `optionNodes` × `products` rendered nodes.
        let optionNodes = (expandedNodes - nodes) / (products - 1) + 1
        let option = stack(
            (0..<(optionNodes - 1)).map { i in textNode("{{product.price}} per {{product.period}} \(i)") })
        let selector: JSONValue = ["type": "product_selector", "layout": "list", "option": option]
        let written = 1 + (depth - 1) + 1 + optionNodes + 1  // root, the chain, the selector, its option, the long text
        let expandedSoFar = written - optionNodes + optionNodes * products
        let fillers = min(nodes - 1 - written, expandedNodes - expandedSoFar)
        let children = [deepest, selector, longText] + (0..<max(0, fillers)).map { textNode("Feature \($0)") }

        return [
            "schemaVersion": 2, "id": "pw_limits", "name": "At every limit",
            "locales": .array(localeTags.map(JSONValue.string)), "defaultLocale": "en",
            "theme": ["colors": ["bg": "#FFFFFF", "text": "#111111"]],
            "products": .array(
                (0..<products).map { i in
                    [
                        "slot": .string("p\(i)"), "storeProductId": .string("com.example.p\(i)"),
                        "preselected": .bool(i == 0),
                    ]
                }),
            "settings": ["dismissable": false, "safeArea": "all", "background": ["kind": "color", "color": "$bg"]],
            "root": stack(children),
        ]
    }

    /// `locales` valid tags, `en` first.
    static func exampleLocales() -> [String] {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var tags = ["en"]
        for a in letters {
            for b in letters where tags.count < locales && "\(a)\(b)" != "en" { tags.append("\(a)\(b)") }
        }
        return tags
    }
}
