import Digest
import PaywallFormat

/// Builds one page: head (CSP, theme variables, stylesheet), the background layer, the node tree, the
/// page config (JSON) and the runtime script. Everything iterates in a fixed order (sorted keys), so the
/// same input gives the same bytes.
struct PageBuilder {
    let document: PaywallDocument
    let options: RenderOptions
    let unknownNodes: [PaywallReader.UnknownNode]
    let requestedLocale: String
    let documentLocale: String
    let styleCSS: StyleCSS
    /// `{"context": {...}}`: what the server resolves; product and timer values come from the runtime.
    let serverTextContext: JSONValue
    /// Slot → the fields `{{product.*}}` reads, from `options.initialProducts` (as the runtime's
    /// `productContext` builds them, so the first paint and the runtime agree).
    let initialProductContext: [String: JSONValue]
    let slots: [String: ProductSlot]
    /// The slot `product` means outside a slot context: the selection if a selector exists, else the first.
    let defaultScope: String?
    let hasSelector: Bool
    let initialSelection: String?
    let lottiePlayer: String?

    var motion = Motion()
    var out = ""
    var preloads: [String] = []
    var timerCount = 0
    /// Nodes rendered so far, and the first budget the render ran out of (rendering stops there).
    var nodesRendered = 0
    /// A Lottie node will be played: lottie-web fetches its animation JSON, which needs `connect-src`.
    var fetchesAnimations = false
    var exhausted: RenderError?

    init(document: PaywallDocument, options: RenderOptions, unknownNodes: [PaywallReader.UnknownNode]) {
        self.document = document
        self.options = options
        self.unknownNodes = unknownNodes
        let requested = options.locale.flatMap { $0.isEmpty ? nil : $0 } ?? document.defaultLocale
        requestedLocale = requested
        var localeMap: [String: String] = [:]
        for l in document.locales { localeMap[l] = l }
        documentLocale =
            pickLocalizedText(localeMap, locale: requested, defaultLocale: document.defaultLocale)
            ?? document.defaultLocale
        styleCSS = StyleCSS(theme: document.theme)
        var productContext: [String: JSONValue] = [:]
        for (slot, value) in options.initialProducts {
            guard case .object(let fields) = value else { continue }
            var kept = fields.filter { SampleProducts.fields.contains($0.key) }
            if fields["introEligible"] == false {
                kept["introPrice"] = nil
                kept["introPeriod"] = nil
                kept["trialDays"] = nil
            }
            productContext[slot] = .object(kept)
        }
        initialProductContext = productContext
        serverTextContext = ["context": .object(options.context), "products": .object(productContext)]
        var slots: [String: ProductSlot] = [:]
        for p in document.products where slots[p.slot] == nil { slots[p.slot] = p }
        self.slots = slots
        let selector = document.root.flatMap(PageBuilder.firstSelector)
        hasSelector = selector != nil
        if case .productSelector(let selectorSlots, _, _)? = selector?.kind {
            let offered = PageBuilder.offeredSlots(selectorSlots, products: document.products)
            initialSelection = offered.first(where: { slots[$0]?.preselected == true }) ?? offered.first
        } else {
            initialSelection = nil
        }
        defaultScope = hasSelector ? "$selected" : document.products.first?.slot
        lottiePlayer = options.lottiePlayerURL.flatMap(URLPolicy.media)
    }

    static func firstSelector(_ node: PaywallNode) -> PaywallNode? {
        switch node.kind {
        case .productSelector: return node
        case .stack(_, let children, _, _, _, _, _): return children.lazy.compactMap(firstSelector).first
        case .carousel(let pages, _, _, _, _): return pages.lazy.compactMap(firstSelector).first
        case .lottie(_, _, _, _, _, let fallback?): return firstSelector(fallback)
        default: return nil
        }
    }

    static func offeredSlots(_ slots: [String]?, products: [ProductSlot]) -> [String] {
        let known = products.map(\.slot)
        guard let slots else { return known }
        var seen = Set<String>()
        return slots.filter { known.contains($0) && seen.insert($0).inserted }
    }

    // MARK: The page

    mutating func page() throws(RenderError) -> String {
        out.reserveCapacity(16_384)
        let background = backgroundLayer()
        var body = ""
        swap(&body, &out)
        if let root = document.root { node(root, parent: .vertical, scope: defaultScope, extraClasses: ["xz-root"]) }
        swap(&body, &out)
        if let exhausted { throw exhausted }

        var page = "<!DOCTYPE html><html lang=\"\(HTML.attribute(documentLocale))\""
        if PageBuilder.isRightToLeft(documentLocale) { page += " dir=\"rtl\"" }
        page +=
            " class=\"xz-\(options.colorScheme.rawValue) xz-\(options.mode.rawValue)\"><head><meta charset=\"utf-8\">"
        page += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1,viewport-fit=cover\">"
        page += "<meta name=\"color-scheme\" content=\"\(options.colorScheme.rawValue)\">"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(HTML.attribute(contentSecurityPolicy))\">"
        page += "<title>\(HTML.text(document.name))</title>"
        for url in preloads {
            page += "<link rel=\"preload\" as=\"image\" href=\"\(HTML.attribute(url))\" fetchpriority=\"high\">"
        }
        page += "<style>" + themeCSS + BaseStylesheet.css + canvasCSS + motion.keyframesCSS + "</style></head><body>"
        page += background
        page += "<main class=\"xz-page xz-safe-\(document.settings.safeArea.rawValue)\">" + body + "</main>"
        if options.mode == .preview, options.initialProducts.values.contains(where: { $0["sample"] == true }) {
            // Styled inline: only previews carry it, so production pages do not pay for its CSS.
            page +=
                "<p class=\"xz-sample-note\" role=\"note\" style=\"position:fixed;left:8px;bottom:8px;margin:0;padding:2px 8px;"
                + "border-radius:6px;background:#0009;color:#fff;font:600 11px/1.6 system-ui,sans-serif;pointer-events:none;z-index:10\">"
                + "Sample prices</p>"
        }
        page += "<script type=\"application/json\" id=\"xz-config\">" + HTML.scriptJSON(config) + "</script>"
        page += "<script>" + RuntimeScript.source + "</script>"
        if options.mode == .preview { page += "<script>" + RuntimeScript.editorBridge + "</script>" }
        page += "</body></html>"
        guard page.utf8.count <= options.budget.maxBytes else {
            throw .budgetExceeded(.bytes, limit: options.budget.maxBytes)
        }
        return page
    }

    /// Charges `nodes` rendered nodes; false (and the render winds down without output) once the node
    /// or byte budget is spent. Checked before each node, so the work past the budget is one node's.
    mutating func spend(nodes: Int) -> Bool {
        guard exhausted == nil else { return false }
        nodesRendered += nodes
        if nodesRendered > options.budget.maxNodes {
            exhausted = .budgetExceeded(.nodes, limit: options.budget.maxNodes)
        } else if out.utf8.count > options.budget.maxBytes {
            exhausted = .budgetExceeded(.bytes, limit: options.budget.maxBytes)
        }
        return exhausted == nil
    }

    /// A media URL the page may load: `https:`, or a path under `options.servedMediaPath` (media
    /// served by the page's own origin); nil drops the media.
    func media(_ url: String) -> String? {
        if let allowed = URLPolicy.media(url) { return allowed }
        guard let prefix = options.servedMediaPath, url.hasPrefix(prefix), url.utf8.count <= 4096,
            url.utf8.allSatisfy({
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "\"")
                    && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "'")
            }),
            !url.contains("..")
        else { return nil }
        return url
    }

    /// Nothing runs but the runtime (by its hash, so an injected `<script>` cannot), a preview's editor
    /// bridge and the operator's Lottie player; media loads only from the configured origins; the page
    /// fetches nothing unless it plays a Lottie animation (lottie-web loads the animation JSON from
    /// those origins); no forms, no `<base>`.
    var contentSecurityPolicy: String {
        var script = "'\(PageBuilder.runtimeHash)'"
        if options.mode == .preview { script += " '\(RuntimeScript.editorBridgeHash)'" }
        if let player = lottiePlayer { script += " " + PageBuilder.origin(player) }
        let media = ((options.servedMediaPath == nil ? [] : ["'self'"]) + options.mediaOrigins).joined(separator: " ")
        var policy = "default-src 'none'; img-src \(media) data: blob:; media-src \(media) blob:; "
        if fetchesAnimations { policy += "connect-src \(media); " }
        return policy + "style-src 'unsafe-inline'; script-src \(script); base-uri 'none'; form-action 'none'"
    }

    /// `sha256-…` of the runtime script exactly as embedded.
    static let runtimeHash = RuntimeScript.hash

    static func origin(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(url[..<schemeEnd.upperBound]) + host
    }

    static func isRightToLeft(_ locale: String) -> Bool {
        let language =
            locale.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        return ["ar", "he", "fa", "ur", "ps", "yi", "dv", "ckb", "sd", "ug"].contains(language)
    }

    /// Theme tokens as custom properties for the requested appearance (schema v2 pairs resolved here).
    var themeCSS: String {
        var d: [String] = ["color-scheme:\(options.colorScheme.rawValue)"]
        for name in document.theme.colors.keys.sorted() {
            guard let token = CSSValue.tokenName(name), let color = document.theme.colors[name],
                let hex = CSSValue.hex(color.resolved(for: options.colorScheme))
            else { continue }
            d.append("--c-\(token):\(hex)")
        }
        for name in document.theme.radii.keys.sorted() {
            guard let token = CSSValue.tokenName(name), let r = document.theme.radii[name] else { continue }
            d.append("--r-\(token):\(CSSValue.px(max(0, r)))")
        }
        return ":root{" + d.joined(separator: ";") + "}"
    }

    /// Comes after the base stylesheet so it overrides the scheme's default canvas.
    var canvasCSS: String {
        canvasColor.map { "html.xz-\(options.colorScheme.rawValue){background:\($0)}" } ?? ""
    }

    /// What shows where the page overscrolls (iOS rubber-banding): the background's own colour, a
    /// gradient's first stop, a blurhash's average colour, black behind a video.
    var canvasColor: String? {
        switch document.settings.background {
        case .color(let c): return CSSValue.color(c)
        case .gradient(let g): return g.stops.first.flatMap { CSSValue.color($0.color) }
        case .image(_, let blurhash): return blurhash.flatMap(Blurhash.averageColor)
        case .video: return "#000"
        }
    }

    /// The page background: colour and gradient on the layer itself; an image shows at once; a video
    /// shows its poster at once and gets its player from the runtime after first paint.
    mutating func backgroundLayer() -> String {
        var style: [String] = []
        var inner = ""
        var attributes = ""
        switch document.settings.background {
        case .color(let c):
            if let v = CSSValue.color(c) { style.append("background:" + v) }
        case .gradient(let g):
            if let v = CSSValue.gradient(g) { style.append("background:" + v) }
        case .image(let src, let blurhash):
            if let color = blurhash.flatMap(Blurhash.averageColor) { style.append("background:" + color) }
            if let bh = blurhash, Blurhash.isWellFormed(bh) {
                inner +=
                    "<canvas class=\"xz-bh\" width=\"32\" height=\"32\" data-bh=\"\(HTML.attribute(bh))\"></canvas>"
            }
            if let url = media(src) {
                preloads.append(url)
                inner += "<img class=\"xz-bg-media\" src=\"\(HTML.attribute(url))\" alt=\"\" fetchpriority=\"high\">"
            }
        case .video(let src, let poster, let loop, let muted, let overlay):
            style.append("background:#000")
            if let url = poster.flatMap({ media($0) }) {
                preloads.append(url)
                inner += "<img class=\"xz-bg-media\" src=\"\(HTML.attribute(url))\" alt=\"\" fetchpriority=\"high\">"
            }
            if let url = media(src) {
                attributes +=
                    " data-video=\"\(HTML.attribute(url))\"" + (loop ? " data-loop=\"1\"" : "")
                    + (muted ? " data-muted=\"1\"" : "")
            }
            if let overlay, let v = CSSValue.gradient(overlay) {
                inner += "<div class=\"xz-bg-overlay\" style=\"\(HTML.attribute("background:" + v))\"></div>"
            }
        }
        let styleAttribute = style.isEmpty ? "" : " style=\"\(HTML.attribute(style.joined(separator: ";")))\""
        return "<div class=\"xz-bg\" aria-hidden=\"true\"\(styleAttribute)\(attributes)>\(inner)</div>"
    }

    /// What the runtime needs; read from `#xz-config`.
    var config: JSONValue {
        var products: [JSONValue] = []
        for p in document.products {
            var product: JSONValue = ["slot": .string(p.slot), "storeProductId": .string(p.storeProductId)]
            // Version 3: the host picks its store's id from these (the page cannot know its platform).
            if !p.storeProductIds.isEmpty {
                product["storeProductIds"] = .object(
                    Dictionary(
                        uniqueKeysWithValues: p.storeProductIds.map { ($0.key.rawValue, JSONValue.string($0.value)) }))
            }
            products.append(product)
        }
        var starts: [String: JSONValue] = [:]
        for (id, ms) in options.timerStarts { starts[id] = .number(.integer(ms)) }
        var config: JSONValue = [
            "v": 1,
            "paywallId": .string(document.id),
            "schemaVersion": .number(document.schemaVersion),
            "locale": .string(requestedLocale),
            "defaultLocale": .string(document.defaultLocale),
            "mode": .string(options.mode.rawValue),
            "context": .object(options.context),
            "products": .array(products),
            "selected": initialSelection.map(JSONValue.string) ?? .null,
            "defaultScope": defaultScope.map(JSONValue.string) ?? .null,
            "dismissable": .bool(document.settings.dismissable),
            "dismissDelayMs": .number(document.settings.dismissDelayMs),
            "lottiePlayer": lottiePlayer.map(JSONValue.string) ?? .null,
            "timerStarts": .object(starts),
            "delivery": .object(options.delivery),
            "unknownNodes": .array(
                unknownNodes.map {
                    ["path": .string($0.path), "type": .string($0.type), "usedFallback": .bool($0.usedFallback)]
                }),
        ]
        // Only previews start with products: production pages carry no empty member for them.
        if !options.initialProducts.isEmpty { config["initialProducts"] = .object(options.initialProducts) }
        return config
    }
}
