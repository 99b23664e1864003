/// The tolerant reader for renderers. It never throws: unknown node types are replaced by their
/// fallback (recursively) or dropped and reported; unknown properties are ignored; unknown enum values
/// and ill-typed optional values read as the documented default (fade / no loop / cover …).
public enum PaywallReader {
    /// A node type the reader did not know; the renderer reports it as `paywall_unknown_node`.
    public struct UnknownNode: Sendable, Hashable {
        public var path: String
        public var type: String
        /// True when the fallback was rendered instead, false when the node was skipped.
        public var usedFallback: Bool

        public init(path: String, type: String, usedFallback: Bool) {
            self.path = path
            self.type = type
            self.usedFallback = usedFallback
        }
    }

    public struct Result: Sendable {
        public var document: PaywallDocument
        public var unknownNodes: [UnknownNode]
        /// False when `schemaVersion` is missing or not supported: such a document must not be rendered.
        public var isSupportedVersion: Bool
    }

    /// Reads any JSON value as a document. Check `schemaVersion` against `SchemaVersions.supported`
    /// first: an unsupported version must not be rendered.
    public static func read(_ json: JSONValue) -> Result {
        var context = ReadContext()
        let document = context.document(json)
        let version = json["schemaVersion"]?.intValue
        return Result(
            document: document, unknownNodes: context.unknownNodes,
            isSupportedVersion: version.map(SchemaVersions.supported.contains) ?? false)
    }
}

struct ReadContext {
    var unknownNodes: [PaywallReader.UnknownNode] = []

    mutating func document(_ j: JSONValue) -> PaywallDocument {
        let locales = (j["locales"]?.arrayValue ?? []).compactMap(\.stringValue)
        let defaultLocale = j["defaultLocale"]?.stringValue ?? locales.first ?? "en"
        return PaywallDocument(
            schemaVersion: j["schemaVersion"]?.intValue ?? 1,
            id: j["id"]?.stringValue ?? "",
            name: j["name"]?.stringValue ?? "",
            locales: locales.isEmpty ? [defaultLocale] : locales,
            defaultLocale: defaultLocale,
            theme: theme(j["theme"]),
            products: (j["products"]?.arrayValue ?? []).compactMap { p in
                var ids: [ProductStore: String] = [:]
                for store in ProductStore.allCases { ids[store] = p["storeProductIds"]?[store.rawValue]?.stringValue }
                guard let slot = p["slot"]?.stringValue,
                    let id = p["storeProductId"]?.stringValue ?? ids[.appStore] ?? ids[.googlePlay]
                else { return nil }
                return ProductSlot(
                    slot: slot, storeProductId: id, preselected: p["preselected"]?.boolValue ?? false,
                    storeProductIds: ids)
            },
            settings: settings(j["settings"]),
            root: j["root"].flatMap { node($0, path: WalkPath.root.appending("root")) })
    }

    func theme(_ j: JSONValue?) -> Theme {
        var colors: [String: ThemeColor] = [:]
        for (name, value) in j?["colors"]?.objectValue ?? [:] {
            if let hex = value.stringValue {
                colors[name] = ThemeColor(hex)
            } else if let light = value["light"]?.stringValue, let dark = value["dark"]?.stringValue {
                colors[name] = ThemeColor(light: light, dark: dark)
            }
        }
        var fonts: [String: ThemeFont] = [:]
        for (name, value) in j?["fonts"]?.objectValue ?? [:] {
            if let family = value["family"]?.stringValue {
                fonts[name] = ThemeFont(family: family, weight: value["weight"]?.intValue)
            }
        }
        var radii: [String: Double] = [:]
        for (name, value) in j?["radii"]?.objectValue ?? [:] { if let r = value.doubleValue { radii[name] = r } }
        return Theme(colors: colors, fonts: fonts, radii: radii)
    }

    func settings(_ j: JSONValue?) -> PaywallSettings {
        PaywallSettings(
            dismissable: j?["dismissable"]?.boolValue ?? true,
            safeArea: enumValue(j?["safeArea"], .all),
            background: background(j?["background"]),
            dismissDelayMs: max(0, j?["dismissDelayMs"]?.intValue ?? 0))
    }

    func background(_ j: JSONValue?) -> Background {
        switch j?["kind"]?.stringValue {
        case "gradient": if let g = gradient(j?["gradient"]) { return .gradient(g) }
        case "image":
            if let src = j?["src"]?.stringValue { return .image(src: src, blurhash: j?["blurhash"]?.stringValue) }
        case "video":
            if let src = j?["src"]?.stringValue {
                return .video(
                    src: src, poster: j?["poster"]?.stringValue, loop: j?["loop"]?.boolValue ?? true,
                    muted: j?["muted"]?.boolValue ?? true, overlay: gradient(j?["overlay"]))
            }
        default: break
        }
        return .color(j?["color"]?.stringValue ?? "#000000")
    }

    func gradient(_ j: JSONValue?) -> Gradient? {
        guard let j, let stops = j["stops"]?.arrayValue else { return nil }
        let parsed = stops.compactMap { s -> Gradient.Stop? in
            guard let c = s["color"]?.stringValue, let p = s["position"]?.doubleValue else { return nil }
            return Gradient.Stop(color: c, position: p)
        }
        guard parsed.count >= 2 else { return nil }
        return Gradient(kind: enumValue(j["kind"], .linear), angle: j["angle"]?.doubleValue ?? 180, stops: parsed)
    }

    func enumValue<E: RawRepresentable>(_ j: JSONValue?, _ fallback: E) -> E where E.RawValue == String {
        j?.stringValue.flatMap(E.init(rawValue:)) ?? fallback
    }

    func text(_ j: JSONValue?) -> LocalizedText? {
        guard let object = j?.objectValue else { return nil }
        let map = object.compactMapValues(\.stringValue)
        return map.isEmpty ? nil : map
    }

    func padding(_ j: JSONValue?) -> Padding? {
        guard let j else { return nil }
        if let v = j.doubleValue { return .uniform(v) }
        guard j.objectValue != nil else { return nil }
        return .edges(
            top: j["top"]?.doubleValue, right: j["right"]?.doubleValue, bottom: j["bottom"]?.doubleValue,
            left: j["left"]?.doubleValue, horizontal: j["horizontal"]?.doubleValue, vertical: j["vertical"]?.doubleValue
        )
    }

    func length(_ j: JSONValue?) -> Length? {
        if let v = j?.doubleValue { return .points(v) }
        return j?.stringValue == "fill" ? .fill : nil
    }

    func style(_ j: JSONValue?) -> Style? {
        guard let j, j.objectValue != nil else { return nil }
        var s = Style()
        s.padding = padding(j["padding"])
        s.margin = padding(j["margin"])
        if let c = j["background"]?.stringValue {
            s.background = .color(c)
        } else if let g = gradient(j["background"]) {
            s.background = .gradient(g)
        }
        s.color = j["color"]?.stringValue
        if let f = j["font"], f.objectValue != nil {
            s.font = Style.Font(
                family: f["family"]?.stringValue, size: f["size"]?.doubleValue, weight: f["weight"]?.intValue,
                italic: f["italic"]?.boolValue ?? false, lineHeight: f["lineHeight"]?.doubleValue,
                letterSpacing: f["letterSpacing"]?.doubleValue)
        }
        s.textAlign = j["textAlign"]?.stringValue.flatMap(Style.TextAlign.init(rawValue:))
        if let r = j["borderRadius"]?.doubleValue {
            s.borderRadius = .points(r)
        } else if let t = j["borderRadius"]?.stringValue, t.hasPrefix("$") {
            s.borderRadius = .token(String(t.dropFirst()))
        }
        if let b = j["border"], let w = b["width"]?.doubleValue, let c = b["color"]?.stringValue {
            s.border = Style.Border(width: w, color: c)
        }
        if let sh = j["shadow"], let c = sh["color"]?.stringValue {
            s.shadow = Style.Shadow(
                color: c, radius: sh["radius"]?.doubleValue ?? 0, x: sh["x"]?.doubleValue ?? 0,
                y: sh["y"]?.doubleValue ?? 0)
        }
        s.opacity = j["opacity"]?.doubleValue.map { min(1, max(0, $0)) }
        s.width = length(j["width"])
        s.height = length(j["height"])
        s.maxWidth = j["maxWidth"]?.doubleValue
        return s
    }

    func easing(_ j: JSONValue?, _ fallback: Easing.Preset) -> Easing {
        if let a = j?.arrayValue, a.count == 4, let x1 = a[0].doubleValue, let y1 = a[1].doubleValue,
            let x2 = a[2].doubleValue, let y2 = a[3].doubleValue
        {
            return .cubicBezier(x1, y1, x2, y2)
        }
        return .preset(enumValue(j, fallback))
    }

    func animation(_ j: JSONValue?) -> Animation? {
        guard let j, j.objectValue != nil else { return nil }
        var a = Animation()
        if let e = j["entrance"], e.objectValue != nil {
            a.entrance = Animation.Entrance(
                kind: enumValue(e["kind"], .fade), delayMs: max(0, e["delayMs"]?.intValue ?? 0),
                durationMs: max(0, e["durationMs"]?.intValue ?? 350), easing: easing(e["easing"], .ease_out))
        }
        if let l = j["loop"], l.objectValue != nil {
            a.loop = Animation.Loop(
                kind: enumValue(l["kind"], .none), durationMs: max(1, l["durationMs"]?.intValue ?? 2000))
        }
        return a
    }

    func action(_ j: JSONValue?) -> Action {
        let slot = j?["productSlot"]?.stringValue
        switch j?["type"]?.stringValue {
        case "close": return .close
        case "restore": return .restore
        case "purchase": if let slot { return .purchase(productSlot: slot) }
        case "select_product": if let slot { return .selectProduct(productSlot: slot) }
        case "open_url": if let url = j?["url"]?.stringValue { return .openURL(url) }
        case "custom": if let name = j?["name"]?.stringValue { return .custom(name: name, payload: j?["payload"]) }
        case let other?: return .unknown(other)
        case nil: break
        }
        return .unknown(j?["type"]?.stringValue ?? "")
    }

    mutating func nodes(_ j: JSONValue?, path: WalkPath) -> [PaywallNode] {
        guard let items = j?.arrayValue else { return [] }
        var result: [PaywallNode] = []
        for (i, item) in items.enumerated() { if let n = node(item, path: path.appending(i)) { result.append(n) } }
        return result
    }

    /// The node at `path`, its fallback when the type is unknown, or nil (skipped, reported).
    mutating func node(_ j: JSONValue, path: WalkPath) -> PaywallNode? {
        guard j.objectValue != nil else { return nil }
        let common = NodeCommon(
            id: j["id"]?.stringValue, style: style(j["style"]), animation: animation(j["animation"]),
            accessibilityLabel: text(j["accessibilityLabel"]), source: NodeSource(walk: path))
        let type = j["type"]?.stringValue ?? ""
        if let kind = kind(type, j, path: path) { return PaywallNode(common: common, kind: kind) }
        let fallback = j["fallback"].flatMap { node($0, path: path.appending("fallback")) }
        unknownNodes.append(
            PaywallReader.UnknownNode(path: path.jsonPath.description, type: type, usedFallback: fallback != nil))
        return fallback
    }

    mutating func kind(_ type: String, _ j: JSONValue, path: WalkPath) -> PaywallNode.Kind? {
        let label = text(j["label"])
        switch type {
        case "stack":
            return .stack(
                direction: enumValue(j["direction"], .vertical),
                children: nodes(j["children"], path: path.appending("children")),
                gap: max(0, j["gap"]?.doubleValue ?? 0), padding: padding(j["padding"]),
                alignment: enumValue(j["alignment"], .stretch), distribution: enumValue(j["distribution"], .start),
                scroll: j["scroll"]?.boolValue ?? false)
        case "text":
            return .text(text(j["text"]) ?? [:])
        case "image":
            guard let src = j["src"]?.stringValue else { return nil }
            return .image(
                src: src, blurhash: j["blurhash"]?.stringValue, aspectRatio: positive(j["aspectRatio"]),
                fit: enumValue(j["fit"], .cover), lazy: j["lazy"]?.boolValue ?? true, alt: text(j["alt"]))
        case "video":
            guard let src = j["src"]?.stringValue else { return nil }
            return .video(
                src: src, poster: j["poster"]?.stringValue, loop: j["loop"]?.boolValue ?? true,
                muted: j["muted"]?.boolValue ?? true,
                autoplay: j["autoplay"]?.boolValue ?? true, lazy: j["lazy"]?.boolValue ?? true,
                aspectRatio: positive(j["aspectRatio"]), fit: enumValue(j["fit"], .cover))
        case "lottie":
            guard let src = j["src"]?.stringValue else { return nil }
            let fallback = j["fallback"].flatMap { node($0, path: path.appending("fallback")) }
            return .lottie(
                src: src, loop: j["loop"]?.boolValue ?? true, speed: positive(j["speed"]) ?? 1,
                autoplay: j["autoplay"]?.boolValue ?? true, aspectRatio: positive(j["aspectRatio"]), fallback: fallback)
        case "button":
            return .button(label: label ?? [:], action: action(j["action"]))
        case "purchase_button":
            return .purchaseButton(
                productSlot: j["productSlot"]?.stringValue ?? "$selected", label: label ?? [:],
                sublabel: text(j["sublabel"]))
        case "restore_button":
            return .restoreButton(label: label)
        case "carousel":
            return .carousel(
                pages: nodes(j["pages"], path: path.appending("pages")),
                autoAdvanceMs: j["autoAdvanceMs"]?.intValue.map { max(500, $0) },
                loop: j["loop"]?.boolValue ?? false, indicator: enumValue(j["indicator"], .dots),
                lazyRender: j["lazyRender"]?.boolValue ?? true)
        case "timer":
            return .timer(
                kind: enumValue(j["kind"], .duration), durationSeconds: j["durationSeconds"]?.intValue,
                endsAt: j["endsAt"]?.stringValue,
                format: enumValue(j["format"], .hhmmss), onExpire: enumValue(j["onExpire"], .show_zero), label: label)
        case "feature_list":
            let items = (j["items"]?.arrayValue ?? []).compactMap { item -> FeatureItem? in
                guard let t = text(item["text"]) else { return nil }
                return FeatureItem(icon: item["icon"]?.stringValue, text: t)
            }
            return .featureList(items: items, iconColor: j["iconColor"]?.stringValue)
        case "spacer":
            let size = j["size"]?.doubleValue.map { max(0, $0) }
            return .spacer(size: size, flex: size == nil ? positive(j["flex"]) : nil)
        case "divider":
            return .divider(
                thickness: max(0, j["thickness"]?.doubleValue ?? 1), color: j["color"]?.stringValue,
                inset: max(0, j["inset"]?.doubleValue ?? 0))
        case "badge":
            return .badge(text: text(j["text"]) ?? [:], variant: enumValue(j["variant"], .filled))
        case "product_selector":
            let slots = j["slots"]?.arrayValue.map { $0.compactMap(\.stringValue) }
            return .productSelector(
                slots: slots, layout: enumValue(j["layout"], .cards),
                option: j["option"].flatMap { node($0, path: path.appending("option")) })
        case "footer_links":
            let labels = j["labels"]
            return .footerLinks(
                privacyUrl: j["privacyUrl"]?.stringValue, termsUrl: j["termsUrl"]?.stringValue,
                showRestore: j["showRestore"]?.boolValue ?? true, privacyLabel: text(labels?["privacy"]),
                termsLabel: text(labels?["terms"]), restoreLabel: text(labels?["restore"]))
        default:
            return nil
        }
    }

    func positive(_ j: JSONValue?) -> Double? {
        guard let v = j?.doubleValue, v > 0 else { return nil }
        return v
    }
}
