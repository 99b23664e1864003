import PaywallFormat
import Testing

@testable import PaywallRenderer

@Suite struct NodeRenderingTests {
    static let everyNode: [JSONValue] = [
        [
            "type": "stack", "direction": "horizontal", "gap": 8, "alignment": "center",
            "distribution": "space_between",
            "children": [["type": "spacer", "size": 12], ["type": "divider", "thickness": 2, "color": "$accent"]],
        ],
        [
            "type": "stack", "direction": "layered",
            "children": [["type": "badge", "text": ["en": "NEW"], "variant": "outline"]],
        ],
        ["type": "spacer", "flex": 2],
        ["type": "divider", "inset": 16],
        ["type": "text", "id": "headline", "text": ["en": "Go **Pro** *now*"]],
        [
            "type": "image", "src": "https://cdn.example.com/a.png", "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            "aspectRatio": 1.5,
        ],
        ["type": "video", "src": "https://cdn.example.com/v.mp4", "poster": "https://cdn.example.com/p.jpg"],
        [
            "type": "lottie", "src": "https://cdn.example.com/l.json",
            "fallback": ["type": "text", "text": ["en": "static"]],
        ],
        ["type": "button", "label": ["en": "Close"], "action": ["type": "close"]],
        [
            "type": "purchase_button", "productSlot": "$selected", "label": ["en": "Buy {{product.price}}"],
            "sublabel": ["en": "then"],
        ],
        ["type": "restore_button"],
        [
            "type": "carousel",
            "pages": [["type": "text", "text": ["en": "one"]], ["type": "text", "text": ["en": "two"]]],
            "autoAdvanceMs": 3000,
        ],
        [
            "type": "timer", "id": "offer", "kind": "duration", "durationSeconds": 3725, "format": "hh:mm:ss",
            "label": ["en": "Ends in {{timer.remaining}}"],
        ],
        [
            "type": "feature_list", "items": [["icon": "★", "text": ["en": "One"]], ["text": ["en": "Two"]]],
            "iconColor": "$accent",
        ],
        ["type": "badge", "text": ["en": "BEST"]],
        ["type": "product_selector", "layout": "segments"],
        ["type": "footer_links", "privacyUrl": "https://example.com/p", "termsUrl": "https://example.com/t"],
    ]

    @Test func everyNodeTypeRenders() throws {
        let page = markup(try html(document(Self.everyNode)))
        for cls in [
            "xz-col", "xz-row", "xz-layer", "xz-spacer", "xz-divider", "xz-text", "xz-image", "xz-video", "xz-lottie",
            "xz-button", "xz-purchase-button", "xz-restore-button", "xz-carousel", "xz-timer", "xz-feature-list",
            "xz-badge", "xz-product-selector", "xz-footer-links",
        ] {
            #expect(
                page.contains("class=\"\(cls)") || page.contains(" \(cls) ") || page.contains(" \(cls)\""),
                "missing \(cls)")
        }
        #expect(page.contains("<p class=\"xz-text\" data-id=\"headline\">Go <strong>Pro</strong> <em>now</em></p>"))
        #expect(page.contains("flex:0 0 12px"))  // fixed spacer
        #expect(page.contains("flex:2 1 0"))  // weighted spacer
        // A divider in a row is vertical.
        #expect(page.contains("width:2px") && page.contains("background:var(--c-accent)"))
        #expect(page.contains("margin-inline:16px"))
        #expect(page.contains("justify-content:space-between") && page.contains("align-items:center"))
        #expect(page.contains("--xz-ph:#"))  // blurhash average colour
        #expect(page.contains("data-bh=\"LEHV6nWB2yk8pyo0adR*.7kCMdnj\""))
        #expect(page.contains("data-src=\"https://cdn.example.com/a.png\""))
        #expect(page.contains("<video playsinline muted loop"))
        #expect(page.contains("data-a=\"close\"") && page.contains("data-a=\"restore\""))
        #expect(page.contains("data-a=\"purchase\" data-slot=\"$selected\""))
        #expect(page.contains("role=\"radiogroup\"") && page.contains("aria-checked=\"true\" data-slot=\"yearly\""))
        #expect(page.contains("aria-checked=\"false\" data-slot=\"monthly\""))
        #expect(page.contains("Ends in 01:02:05"))  // the timer's full duration before the runtime counts
        #expect(page.contains("role=\"timer\""))
        #expect(page.contains(">★</span>") && page.contains(">✓</span>"))
        #expect(
            page.contains("href=\"https://example.com/p\"") && page.contains(">Privacy</a>")
                && page.contains(">Restore</button>"))
        #expect(page.contains("aria-roledescription=\"carousel\"") && page.contains("data-auto=\"3000\""))
        #expect(page.contains(">Restore purchases</span>"))
    }

    @Test func unknownNodesRenderTheirFallbackOrNothingAndAreReported() throws {
        let doc = document([
            ["type": "hologram", "fallback": ["type": "text", "id": "fb", "text": ["en": "Fallback text"]]],
            ["type": "teleporter", "power": 9000],
            ["type": "text", "text": ["en": "After"]],
        ])
        let page = try PaywallRenderer.render(doc)
        let text = String(decoding: page.html, as: UTF8.self)
        #expect(page.unknownNodes.map(\.type) == ["hologram", "teleporter"])
        #expect(page.unknownNodes.map(\.usedFallback) == [true, false])
        #expect(page.unknownNodes.map(\.path) == ["$.root.children[0]", "$.root.children[1]"])
        #expect(content(of: "fb", in: text) == "Fallback text")
        #expect(!markup(text).contains("teleporter") && !markup(text).contains("hologram"))
        // The page reports them through the bridge.
        #expect(text.contains(#""unknownNodes":[{"path":"$.root.children[0]","type":"hologram","usedFallback":true}"#))
    }

    @Test func lottieUsesTheConfiguredPlayerOrShowsItsFallback() throws {
        let doc = document([
            [
                "type": "lottie", "id": "mascot", "src": "https://cdn.example.com/m.json", "speed": 1.5,
                "fallback": ["type": "image", "src": "https://cdn.example.com/m.png"],
            ]
        ])
        let without = try html(doc)
        #expect(!without.contains("data-lottie="))
        #expect(without.contains("xz-lottie-none") && without.contains("data-src=\"https://cdn.example.com/m.png\""))
        #expect(without.contains("\"lottiePlayer\":null"))
        let with = try html(
            doc, RenderOptions(lottiePlayerURL: "https://players.example.net/lottie/lottie_light.min.js"))
        #expect(with.contains("data-lottie=\"https://cdn.example.com/m.json\"") && with.contains("data-speed=\"1.5\""))
        #expect(with.contains("script-src &#39;\(PageBuilder.runtimeHash)&#39; https://players.example.net;"))
        #expect(with.contains("connect-src https:;"))  // lottie-web fetches the animation JSON
        #expect(with.contains("xz-lottie-fb"))  // the fallback stays until the player has drawn
        let hostile = try html(doc, RenderOptions(lottiePlayerURL: "javascript:alert(1)"))
        #expect(!hostile.contains("data-lottie=") && !hostile.contains("javascript:"))
    }

    @Test func mediaIsLazyExceptTheFirstVisibleOnes() throws {
        let doc = document([
            ["type": "image", "src": "https://cdn.example.com/hero.png", "lazy": false],
            ["type": "image", "src": "https://cdn.example.com/later.png"],
            [
                "type": "carousel",
                "pages": [
                    ["type": "text", "text": ["en": "a"]],
                    [
                        "type": "video", "src": "https://cdn.example.com/v.mp4",
                        "poster": "https://cdn.example.com/vp.jpg",
                    ],
                ],
            ],
        ])
        let page = try html(doc)
        #expect(page.contains("<link rel=\"preload\" as=\"image\" href=\"https://cdn.example.com/hero.png\""))
        #expect(page.contains("src=\"https://cdn.example.com/hero.png\" fetchpriority=\"high\""))
        #expect(
            page.contains("data-src=\"https://cdn.example.com/later.png\"")
                && !page.contains(" src=\"https://cdn.example.com/later.png\""))
        #expect(
            page.contains("data-poster=\"https://cdn.example.com/vp.jpg\"")
                && !page.contains(" poster=\"https://cdn.example.com/vp.jpg\""))
        #expect(page.contains("data-lazy=\"1\""))
    }

    @Test func backgroundVideoShowsItsPosterAndLeavesThePlayerToTheRuntime() throws {
        let settings: JSONValue = [
            "dismissable": true, "safeArea": "all",
            "background": [
                "kind": "video", "src": "https://cdn.example.com/bg.mp4", "poster": "https://cdn.example.com/bg.jpg",
                "overlay": [
                    "kind": "linear", "angle": 180,
                    "stops": [["color": "#00000000", "position": 0], ["color": "#000000", "position": 1]],
                ],
            ],
        ]
        let page = try html(document([], settings: settings))
        #expect(page.contains("<link rel=\"preload\" as=\"image\" href=\"https://cdn.example.com/bg.jpg\""))
        #expect(page.contains("data-video=\"https://cdn.example.com/bg.mp4\" data-loop=\"1\" data-muted=\"1\""))
        #expect(!page.contains("<video"))  // created after first paint
        #expect(page.contains("linear-gradient(180deg,#00000000 0%,#000000 100%)"))
        #expect(page.contains("html.xz-light{background:#000}"))  // overscroll shows black, not white
    }

    @Test func themeTokensFollowTheRequestedAppearance() throws {
        let theme: JSONValue = [
            "colors": ["bg": ["light": "#FFFFFF", "dark": "#0B0B0C"], "text": "#111111"], "radii": ["card": 20],
            "fonts": ["heading": ["family": "Source Serif 4", "weight": 600]],
        ]
        var doc = document(
            [
                [
                    "type": "text", "text": ["en": "Hi"],
                    "style": ["font": ["family": "$heading", "size": 30], "borderRadius": "$card", "color": "$text"],
                ]
            ], theme: theme)
        doc["schemaVersion"] = 2
        let light = try html(doc)
        let dark = try html(doc, RenderOptions(colorScheme: .dark))
        #expect(light.contains("--c-bg:#ffffff") && dark.contains("--c-bg:#0b0b0c"))
        #expect(light.contains("color-scheme:light") && dark.contains("color-scheme:dark"))
        #expect(light.contains("--r-card:20px") && light.contains("border-radius:var(--r-card)"))
        #expect(
            light.contains("font-family:&quot;Source Serif 4&quot;,var(--xz-font)") && light.contains("font-weight:600")
        )
        #expect(light.contains("font-size:calc(30rem/var(--xz-b))"))  // rem: follows the reader's text size
    }

    @Test func localeAndDirection() throws {
        let doc = document(
            [["type": "text", "id": "t", "text": ["en": "Hello", "de": "Hallo", "ar": "مرحبا"]]],
            locales: ["en", "de", "ar"])
        let de = try html(doc, RenderOptions(locale: "de-AT"))
        #expect(de.contains("<html lang=\"de\"") && content(of: "t", in: de) == "Hallo")
        let ar = try html(doc, RenderOptions(locale: "ar"))
        #expect(ar.contains("lang=\"ar\" dir=\"rtl\""))
        let fallback = try html(doc, RenderOptions(locale: "fr"))
        #expect(fallback.contains("<html lang=\"en\"") && content(of: "t", in: fallback) == "Hello")
    }

    @Test func dismissSettings() throws {
        let closeButton: JSONValue = ["type": "button", "label": ["en": "x"], "action": ["type": "close"]]
        let delayed = try html(
            document(
                [closeButton],
                settings: [
                    "dismissable": true, "safeArea": "top", "dismissDelayMs": 1500,
                    "background": ["kind": "color", "color": "#000"],
                ]))
        #expect(delayed.contains("data-a=\"close\" data-delay=\"\"") && delayed.contains("\"dismissDelayMs\":1500"))
        #expect(delayed.contains("xz-safe-top"))
        let undismissable = try html(
            document(
                [closeButton],
                settings: [
                    "dismissable": false, "safeArea": "none",
                    "background": ["kind": "color", "color": "#000"],
                ]))
        #expect(!markup(undismissable).contains("data-a=\"close\""))
    }

    @Test func unsupportedSchemaVersionIsATypedError() {
        var doc = document([])
        doc["schemaVersion"] = 99
        #expect(throws: RenderError.unsupportedSchemaVersion(99)) { try PaywallRenderer.render(doc) }
    }

    @Test func everyTemplateRendersInBothSchemes() throws {
        for (name, doc) in try PaywallTemplates.all() {
            for scheme in ColorScheme.allCases {
                let page = try PaywallRenderer.render(doc, options: RenderOptions(colorScheme: scheme))
                #expect(page.unknownNodes.isEmpty, "\(name)")
                let text = String(decoding: page.html, as: UTF8.self)
                #expect(text.hasPrefix("<!DOCTYPE html><html lang=\"en\""), "\(name)")
                #expect(!visibleText(text).contains("{{"), "\(name): production shows no placeholders")
                #expect(page.html.count < 64_000, "\(name): \(page.html.count) bytes")
            }
        }
    }
}
