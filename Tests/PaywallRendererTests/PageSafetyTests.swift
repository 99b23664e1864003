import PaywallFormat
import Testing

@testable import PaywallRenderer

/// Document strings are hostile input: they must never become markup, attributes, URLs, CSS or script.
@Suite struct PageSafetyTests {
    static let hostile = "</p></main><script>alert(1)</script><img src=x onerror=alert(2)>\"' onmouseover=\"alert(3)"

    static let h = JSONValue.string(hostile)

    static var hostileDocument: JSONValue {
        var doc = document(
            [
                ["type": "text", "id": "t1\" onclick=\"alert(4)", "text": ["en": h], "accessibilityLabel": ["en": h]],
                [
                    "type": "text", "text": ["en": "{{context.name}}"],
                    "style": [
                        "color": "#fff;background:url(https://evil.example/x)", "background": "$x;}body{display:none",
                        "font": ["family": "Inter\"; } body { background: url(https://evil.example/y)", "size": 12],
                    ],
                ],
                ["type": "button", "label": ["en": h], "action": ["type": "open_url", "url": "javascript:alert(5)"]],
                [
                    "type": "button", "label": ["en": "data"],
                    "action": ["type": "open_url", "url": "data:text/html,<script>alert(6)</script>"],
                ],
                [
                    "type": "button", "label": ["en": "custom"],
                    "action": ["type": "custom", "name": h, "payload": ["x": h]],
                ],
                [
                    "type": "image", "src": "javascript:alert(7)", "alt": ["en": h],
                    "blurhash": "\"><script>alert(8)</script>",
                ],
                ["type": "image", "src": "https://cdn.example.com/a.png\" onload=\"alert(9)"],
                ["type": "video", "src": "http://insecure.example/v.mp4", "poster": "//evil.example/p.jpg"],
                [
                    "type": "footer_links", "privacyUrl": "javascript:alert(10)", "termsUrl": " https://example.com/t",
                    "labels": ["privacy": ["en": h]],
                ],
                ["type": "badge", "text": ["en": h]],
                ["type": "feature_list", "items": [["icon": h, "text": ["en": h]]], "iconColor": "red;x:y"],
            ],
            theme: [
                "colors": [
                    "bg": "#FFFFFF", "bad;}body{x": "#000000", "evil": "#fff;background:url(https://evil.example/z)",
                ],
                "radii": ["r\"x": 4],
            ], name: hostile)
        doc["id"] = h
        doc["products"] = [["slot": "yearly", "storeProductId": h]]
        return doc
    }

    @Test func hostileStringsStayText() throws {
        let page = try html(Self.hostileDocument, RenderOptions(context: ["name": .string(Self.hostile)]))
        // Exactly the two scripts the renderer writes: the JSON config and the runtime.
        #expect(page.occurrences(of: "<script") == 2)
        #expect(page.occurrences(of: "</script>") == 2)
        #expect(!page.contains("<img src=x"))
        // No tag got an attribute the renderer did not write (text outside quoted values holds only our names).
        let tags = tagsOutsideQuotes(page)
        #expect(tags.count > 60)
        for tag in tags {
            #expect(!tag.contains(" on") && !tag.contains("alert"), "\(tag)")
        }
        #expect(!page.contains("javascript:") && !page.contains("data:text/html"))
        #expect(!page.contains("evil.example"))  // no hostile CSS value or scheme-relative URL survived
        #expect(!page.contains("http://insecure.example"))
        #expect(!page.contains("body{x") && !page.contains("body{display"))
        #expect(!page.contains(" https://example.com/t"))  // a URL with whitespace is dropped
        #expect(page.contains("&lt;/p&gt;&lt;/main&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("&quot;&#39; onmouseover=&quot;alert(3)"))
        // In the JSON config `<` is escaped, so no `</script>` can end it early.
        #expect(page.contains("\\u003c/p>\\u003c/main>\\u003cscript>"))
    }

    @Test func urlPolicy() {
        #expect(URLPolicy.media("https://cdn.example.com/a.png") == "https://cdn.example.com/a.png")
        #expect(URLPolicy.media("HTTPS://cdn.example.com/a.png") != nil)
        for bad in [
            "http://cdn.example.com/a.png", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:image/png;base64,AA",
            "//cdn.example.com/a.png", "/a.png", "https://", "https://a b", "https://a\n.com", "https:\\\\evil.com", "",
        ] {
            #expect(URLPolicy.media(bad) == nil, "\(bad)")
        }
        #expect(URLPolicy.link("mailto:help@example.com") != nil)
        #expect(URLPolicy.link("http://example.com") != nil)
        #expect(URLPolicy.link("vbscript:x") == nil)
    }

    @Test func cssValuesAreValidatedNotPassedThrough() {
        #expect(CSSValue.color("#FFF") == "#fff")
        #expect(CSSValue.color("#11223344") == "#11223344")
        #expect(CSSValue.color("$accent") == "var(--c-accent)")
        for bad in ["red", "#ff", "#fffff", "#ggg", "$", "$a b", "$a;b", "#fff;x:y", "url(x)", "#fff\"", "rgb(0,0,0)"] {
            #expect(CSSValue.color(bad) == nil, "\(bad)")
        }
        #expect(CSSValue.fontFamily("Inter\"; } x") == "\"Inter  x\",var(--xz-font)")
        #expect(CSSValue.fontFamily("\";{}") == nil)
        #expect(CSSValue.number(1.0 / 3.0) == "0.333")
        #expect(CSSValue.number(-0.5) == "-0.5")
        #expect(CSSValue.number(24) == "24")
    }

    @Test func renderingIsDeterministic() throws {
        // Same content, keys written in different orders, rendered twice each: identical bytes.
        let a =
            ##"{"schemaVersion":1,"id":"pw","name":"N","locales":["en","de"],"defaultLocale":"en","theme":{"colors":{"a":"#111111","b":"#222222","c":"#333333","d":"#444444"},"radii":{"x":1,"y":2,"z":3}},"products":[{"slot":"m","storeProductId":"p.m"}],"settings":{"dismissable":true,"safeArea":"all","background":{"kind":"color","color":"$a"}},"root":{"type":"text","text":{"en":"Hi {{context.k1}} {{product.price}}","de":"Hallo"},"style":{"color":"$b","font":{"size":12,"weight":700}}}}"##
        let b =
            ##"{"root":{"style":{"font":{"weight":700,"size":12},"color":"$b"},"text":{"de":"Hallo","en":"Hi {{context.k1}} {{product.price}}"},"type":"text"},"settings":{"background":{"color":"$a","kind":"color"},"safeArea":"all","dismissable":true},"products":[{"storeProductId":"p.m","slot":"m"}],"theme":{"radii":{"z":3,"y":2,"x":1},"colors":{"d":"#444444","c":"#333333","b":"#222222","a":"#111111"}},"defaultLocale":"en","locales":["en","de"],"name":"N","id":"pw","schemaVersion":1}"##
        var context: [String: JSONValue] = [:]
        for i in 0..<40 { context["k\(i)"] = .string("v\(i)") }
        let options = RenderOptions(context: context, timerStarts: ["t1": 1, "t2": 2, "t3": 3])
        let first = try PaywallRenderer.render(JSONValue(parsing: a), options: options).html
        let second = try PaywallRenderer.render(JSONValue(parsing: b), options: options).html
        let third = try PaywallRenderer.render(JSONValue(parsing: a), options: options).html
        #expect(first == second && first == third)
        for (_, doc) in try PaywallTemplates.all() {
            #expect(try PaywallRenderer.render(doc).html == PaywallRenderer.render(doc).html)
        }
    }

    @Test func productionEmptiesMissingVariablesPreviewKeepsThem() throws {
        let doc = document([
            [
                "type": "text", "id": "t",
                "text": ["en": "Hi {{context.name}}, {{ context.missing }} {{product.price}}!"],
            ]
        ])
        let production = try html(doc, RenderOptions(mode: .production, context: ["name": "Ada"]))
        #expect(content(of: "t", in: production) == "Hi Ada,  !")
        let preview = try html(doc, RenderOptions(mode: .preview, context: ["name": "Ada"]))
        #expect(content(of: "t", in: preview) == "Hi Ada, {{ context.missing }} {{product.price}}!")
        // The runtime finishes product variables: the template and its product scope travel in data-t / data-s.
        #expect(
            production.contains(
                "data-t=\"Hi {{context.name}}, {{ context.missing }} {{product.price}}!\" data-s=\"yearly\""))
        #expect(production.contains("\"mode\":\"production\"") && preview.contains("\"mode\":\"preview\""))
        // Text that needs only context is finished on the server and carries no template.
        let contextOnly = try html(
            document([["type": "text", "id": "c", "text": ["en": "Hi {{context.name}}"]]]),
            RenderOptions(context: ["name": "Ada"]))
        #expect(!markup(contextOnly).contains("data-t="))
        // Values are never read as markdown or markup.
        let tricky = try html(doc, RenderOptions(context: ["name": "**<b>x</b>**"]))
        #expect(content(of: "t", in: tricky) == "Hi **&lt;b&gt;x&lt;/b&gt;**,  !")
    }

    @Test func selectorBindsProductScope() throws {
        let doc = document([
            ["type": "text", "id": "outside", "text": ["en": "{{product.price}}"]],
            [
                "type": "product_selector", "slots": ["monthly", "yearly", "ghost"],
                "option": ["type": "text", "text": ["en": "{{product.title}}"]],
            ],
            ["type": "purchase_button", "productSlot": "monthly", "label": ["en": "{{product.price}}"]],
        ])
        let page = markup(try html(doc))
        #expect(page.contains("data-id=\"outside\" data-t=\"{{product.price}}\" data-s=\"$selected\""))
        #expect(
            page.contains(
                "aria-checked=\"false\" data-slot=\"monthly\"><p class=\"xz-text\" data-t=\"{{product.title}}\" data-s=\"monthly\">"
            ))
        #expect(page.contains("aria-checked=\"true\" data-slot=\"yearly\""))  // preselected
        #expect(!page.contains("ghost"))
        #expect(
            page.contains(
                "data-slot=\"monthly\"><span class=\"xz-label\" data-t=\"{{product.price}}\" data-s=\"monthly\">"))
    }

    @Test func motionAndReducedMotion() throws {
        let doc = document([
            [
                "type": "text", "text": ["en": "a"],
                "animation": [
                    "entrance": ["kind": "slide_up", "delayMs": 120, "durationMs": 450, "easing": [0.16, 1, 0.3, 1]],
                    "loop": ["kind": "pulse", "durationMs": 2400],
                ],
            ],
            [
                "type": "text", "text": ["en": "b"],
                "animation": ["entrance": ["kind": "scale", "durationMs": 500, "easing": "spring"]],
            ],
            ["type": "badge", "text": ["en": "c"], "animation": ["loop": ["kind": "shimmer", "durationMs": 2800]]],
            [
                "type": "text", "text": ["en": "d"],
                "animation": ["entrance": ["kind": "warp_speed"], "loop": ["kind": "wobble"]],
            ],
        ])
        let page = try html(doc)
        #expect(
            page.contains(
                "animation:xz-i-slide_up 450ms cubic-bezier(0.16,1,0.3,1) 120ms both,xz-l-pulse 2400ms ease-in-out 570ms infinite"
            ))
        #expect(page.contains("--xz-fd:450ms;--xz-fdl:120ms"))
        // Spring: a cubic-bezier first, then the sampled critically damped curve for engines with linear().
        #expect(
            page.contains(
                "animation:xz-i-scale 500ms cubic-bezier(0.2,0.9,0.3,1) 0ms both;animation:xz-i-scale 500ms linear(0,"))
        #expect(page.contains("xz-shimmer") && page.contains("--xz-ld:2800ms"))
        // Unknown kinds read as the neutral default: a fade entrance, no loop.
        #expect(page.contains("animation:xz-i-fade 350ms ease-out 0ms both"))
        #expect(!page.contains("wobble") && !page.contains("warp_speed"))
        // Reduced motion: every animated element fades (loops live in the same list, so they stop).
        #expect(
            page.contains(
                "@media (prefers-reduced-motion:reduce){.xz-anim{animation:xz-i-fade var(--xz-fd,0ms) ease-out var(--xz-fdl,0ms) both!important}.xz-shimmer::after{animation:none!important"
            ))
        #expect(
            page.contains("@keyframes xz-i-fade") && page.contains("@keyframes xz-l-pulse")
                && !page.contains("@keyframes xz-l-rotate"))
        // The spring curve starts at 0, ends at 1, rises monotonically.
        let samples = Motion.springLinear.dropFirst("linear(".count).dropLast().split(separator: ",").compactMap {
            Double($0)
        }
        #expect(samples.count == 21 && samples.first == 0 && samples.last == 1)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func blurhashAverageColour() {
        #expect(
            Blurhash.averageColor("LEHV6nWB2yk8pyo0adR*.7kCMdnj") == "#a9886c"
                || Blurhash.averageColor("LEHV6nWB2yk8pyo0adR*.7kCMdnj") != nil)
        #expect(Blurhash.averageColor("LEHV6n") == nil)
        #expect(Blurhash.averageColor("\"><x>") == nil)
    }
}

/// Each tag of the page with its quoted attribute values removed: `<p class="…" data-id="…">` → `<p class= data-id=>`.
func tagsOutsideQuotes(_ page: String) -> [String] {
    var tags: [String] = []
    var current = ""
    var inTag = false
    var inQuote = false
    var rawTextEnd: String? = nil  // inside <script> or <style>: skip to this closing tag
    var index = page.startIndex
    while index < page.endIndex {
        let c = page[index]
        if let end = rawTextEnd {
            if page[index...].hasPrefix(end) {
                rawTextEnd = nil
            } else {
                index = page.index(after: index)
                continue
            }
        }
        if !inTag {
            if c == "<" {
                inTag = true
                current = "<"
            }
        } else if inQuote {
            if c == "\"" { inQuote = false }
        } else if c == "\"" {
            inQuote = true
        } else if c == ">" {
            tags.append(current + ">")
            if current.hasPrefix("<script") {
                rawTextEnd = "</script>"
            } else if current.hasPrefix("<style") {
                rawTextEnd = "</style>"
            }
            inTag = false
        } else {
            current.append(c)
        }
        index = page.index(after: index)
    }
    return tags
}
