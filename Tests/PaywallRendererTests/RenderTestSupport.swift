import PaywallFormat

@testable import PaywallRenderer

/// A minimal valid document around `children` (a vertical root stack), for tests that need one node.
func document(
    _ children: [JSONValue], products: [JSONValue]? = nil, settings: JSONValue? = nil,
    theme: JSONValue? = nil, locales: [JSONValue] = ["en"], name: String = "Test"
) -> JSONValue {
    [
        "schemaVersion": 1, "id": "pw_test", "name": .string(name), "locales": .array(locales), "defaultLocale": "en",
        "theme": theme ?? [
            "colors": ["bg": "#FFFFFF", "text": "#111111", "accent": "#2563EB"], "radii": ["card": 16],
        ],
        "products": .array(
            products ?? [
                ["slot": "yearly", "storeProductId": "com.example.yearly", "preselected": true],
                ["slot": "monthly", "storeProductId": "com.example.monthly"],
            ]),
        "settings": settings ?? [
            "dismissable": true, "safeArea": "all", "background": ["kind": "color", "color": "$bg"],
        ],
        "root": ["type": "stack", "direction": "vertical", "children": .array(children)],
    ]
}

func html(_ doc: JSONValue, _ options: RenderOptions = RenderOptions()) throws -> String {
    String(decoding: try PaywallRenderer.render(doc, options: options).html, as: UTF8.self)
}

/// The page without its runtime script and config (what the document put into HTML).
func markup(_ page: String) -> String {
    guard let start = page.range(of: "<main"), let end = page.range(of: "</main>") else { return page }
    return String(page[start.lowerBound..<end.upperBound])
}

/// The inner HTML of the first element carrying `data-id="id"` up to its first closing tag.
func content(of id: String, in page: String) -> String? {
    guard let attr = page.range(of: "data-id=\"\(id)\"") else { return nil }
    let rest = page[attr.upperBound...]
    guard let open = rest.firstIndex(of: ">") else { return nil }
    let after = rest[rest.index(after: open)...]
    guard let close = after.range(of: "</") else { return nil }
    return String(after[..<close.lowerBound])
}

extension String {
    func occurrences(of needle: String) -> Int {
        var count = 0
        var search = startIndex..<endIndex
        while let r = range(of: needle, range: search) {
            count += 1
            search = r.upperBound..<endIndex
        }
        return count
    }
}

/// The text a reader sees in the markup: tags removed (attribute values are escaped, so `>` ends a tag).
func visibleText(_ page: String) -> String {
    var out = ""
    var inTag = false
    for c in markup(page) {
        if c == "<" { inTag = true } else if c == ">" { inTag = false } else if !inTag { out.append(c) }
    }
    return out
}
