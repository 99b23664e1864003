/// The definitions of one schema version: every object of the format, by name. The single source from
/// which the validator's structural checks, the JSON Schema and the field tables of docs/schema.md come.
public struct SchemaDefinitions: Sendable {
    public let version: Int
    /// Definition name → shape. The root is `PaywallDocument`.
    public let definitions: [String: Shape]
    /// Definition names in documentation order.
    public let order: [String]

    public static let rootName = "PaywallDocument"

    /// The definitions of `version`, or nil when the version is not supported.
    public static func forVersion(_ version: Int) -> SchemaDefinitions? {
        switch version {
        case 1: return v1
        case 2: return v2
        case 3: return v3
        default: return nil
        }
    }

    static let v1 = SchemaDefinitions(version: 1)
    static let v2 = SchemaDefinitions(version: 2)
    static let v3 = SchemaDefinitions(version: 3)

    /// The node types of the format, in documentation order, with their definition names.
    public static let nodeTypes: [(value: String, definition: String)] = [
        ("stack", "StackNode"), ("text", "TextNode"), ("image", "ImageNode"), ("video", "VideoNode"),
        ("lottie", "LottieNode"), ("button", "ButtonNode"), ("purchase_button", "PurchaseButtonNode"),
        ("restore_button", "RestoreButtonNode"), ("carousel", "CarouselNode"), ("timer", "TimerNode"),
        ("feature_list", "FeatureListNode"), ("spacer", "SpacerNode"), ("divider", "DividerNode"),
        ("badge", "BadgeNode"), ("product_selector", "ProductSelectorNode"), ("footer_links", "FooterLinksNode"),
    ]

    public static let entranceKinds = ["fade", "slide_up", "slide_down", "slide_left", "slide_right", "scale", "none"]
    public static let loopKinds = ["pulse", "shimmer", "float", "bounce", "rotate", "none"]
    public static let easingPresets = ["linear", "ease", "ease_in", "ease_out", "ease_in_out", "spring"]
    public static let fits = ["cover", "contain", "fill"]

    private init(version: Int) {
        self.version = version
        var defs: [(String, Shape)] = []
        func def(_ name: String, _ shape: Shape) { defs.append((name, shape)) }
        let lt = Shape.localizedText
        let url = Shape.string(.httpsURL)
        let color = Shape.string(.color)
        let nonNeg = Shape.number(.nonNegative)

        def(
            Self.rootName,
            .object(
                ObjectShape(
                    [
                        Field(
                            "schemaVersion", .constant(.number(version)), required: true,
                            doc: "The format version of the document."),
                        Field("id", .string(.id), required: true, doc: "Document id (`pw_…` by convention)."),
                        Field("name", .string(.nonEmpty), required: true, doc: "Name shown in the dashboard."),
                        Field(
                            "locales",
                            .array(
                                ArrayShape(
                                    .string(.localeTag), minItems: 1, maxItems: DocumentLimits.locales,
                                    uniqueCode: "duplicate_locale")), required: true,
                            doc: "Every locale the document is written in."),
                        Field(
                            "defaultLocale", .string(.localeTag), required: true,
                            doc: "One of `locales`; every LocalizedText has it."),
                        Field("theme", .ref("Theme"), required: true),
                        Field(
                            "products", .array(ArrayShape(.ref("ProductSlot"), maxItems: DocumentLimits.products)),
                            required: true,
                            doc: "Product slots; nodes reference slot ids, the mapping to store products lives here."),
                        Field("settings", .ref("Settings"), required: true),
                        Field("root", .ref("PaywallNode"), required: true, doc: "The node tree."),
                    ], doc: "The whole document.")))

        let themeColor: Shape =
            version >= 2
            ? .alternatives([.string(.hexColor), .ref("AppearanceColor")])
            : .string(.hexColor)
        def(
            "Theme",
            .object(
                ObjectShape(
                    [
                        Field(
                            "colors", .map(keys: .tokenName, value: themeColor, minProperties: 0), required: true,
                            doc: version >= 2
                                ? "Token name → hex colour, or `{light, dark}` pair of hex colours (version 2)."
                                : "Token name → hex colour (never a token)."),
                        Field(
                            "fonts", .map(keys: .tokenName, value: .ref("ThemeFont"), minProperties: 0),
                            doc: "Token name → font."),
                        Field(
                            "radii", .map(keys: .tokenName, value: nonNeg, minProperties: 0),
                            doc: "Token name → corner radius (points)."),
                    ], doc: "Design tokens, referenced as `$name`.")))
        if version >= 2 {
            def(
                "AppearanceColor",
                .object(
                    ObjectShape(
                        [
                            Field("light", .string(.hexColor), required: true),
                            Field("dark", .string(.hexColor), required: true),
                        ], doc: "A theme colour per appearance (schema version 2).")))
        }
        def(
            "ThemeFont",
            .object(
                ObjectShape([
                    Field("family", .string(.nonEmpty), required: true),
                    Field("weight", .number(NumberRange(integer: true, minimum: 100, maximum: 900, multipleOf: 100))),
                ])))
        let storeIDs =
            version >= 3
            ? Field(
                "storeProductIds", .ref("StoreProductIds"), required: true,
                doc:
                    "The product's id in each store (version 3); older clients get the requesting platform's as `storeProductId`."
            )
            : Field("storeProductId", .string(.nonEmpty), required: true, doc: "App Store / Play product id.")
        def(
            "ProductSlot",
            .object(
                ObjectShape([
                    Field("slot", .string(.id), required: true, doc: "Slot id nodes refer to (`yearly`)."),
                    storeIDs,
                    Field(
                        "preselected", .boolean, default: false, doc: "Initially selected option (at most one slot)."),
                ])))
        if version >= 3 {
            def(
                "StoreProductIds",
                .object(
                    ObjectShape(
                        ProductStore.allCases.map {
                            Field($0.rawValue, .string(.nonEmpty), doc: $0.documentation)
                        }, minProperties: 1, doc: "A product's id per store: at least one (schema version 3).")))
        }
        def(
            "Settings",
            .object(
                ObjectShape([
                    Field("dismissable", .boolean, required: true, doc: "Whether the user may close the paywall."),
                    Field(
                        "safeArea", .enumeration(["all", "top", "bottom", "none"]), required: true,
                        doc: "Edges that respect the safe area."),
                    Field("background", .ref("Background"), required: true),
                    Field(
                        "dismissDelayMs", .number(.nonNegativeInteger), doc: "Delay before the close control appears."),
                ])))
        def(
            "Background",
            .union(
                TaggedUnion(
                    tag: "kind",
                    variants: [
                        ("color", "ColorBackground"), ("gradient", "GradientBackground"), ("image", "ImageBackground"),
                        ("video", "VideoBackground"),
                    ], unknownCode: "unknown_background_kind")))
        def(
            "ColorBackground",
            .object(
                ObjectShape([Field("kind", .constant("color"), required: true), Field("color", color, required: true)]))
        )
        def(
            "GradientBackground",
            .object(
                ObjectShape([
                    Field("kind", .constant("gradient"), required: true),
                    Field("gradient", .ref("Gradient"), required: true),
                ])))
        def(
            "ImageBackground",
            .object(
                ObjectShape([
                    Field("kind", .constant("image"), required: true), Field("src", url, required: true),
                    Field("blurhash", .string(.nonEmpty), doc: "Placeholder shown until the image loads."),
                ])))
        def(
            "VideoBackground",
            .object(
                ObjectShape([
                    Field("kind", .constant("video"), required: true), Field("src", url, required: true),
                    Field("poster", url, doc: "Shown immediately; the player starts after first paint."),
                    Field("loop", .boolean, default: true), Field("muted", .boolean, default: true),
                    Field("overlay", .ref("Gradient"), doc: "Scrim over the video for text contrast."),
                ])))
        def(
            "Gradient",
            .union(
                TaggedUnion(
                    tag: "kind", variants: [("linear", "LinearGradient"), ("radial", "RadialGradient")],
                    unknownCode: "unknown_gradient_kind")))
        let stops = Field("stops", .array(ArrayShape(.ref("GradientStop"), minItems: 2)), required: true)
        def(
            "LinearGradient",
            .object(
                ObjectShape([
                    Field("kind", .constant("linear"), required: true),
                    Field(
                        "angle", .number(NumberRange(minimum: 0, maximum: 360)), default: 180,
                        doc: "Degrees; 0 = up, 90 = right."),
                    stops,
                ])))
        def("RadialGradient", .object(ObjectShape([Field("kind", .constant("radial"), required: true), stops])))
        def(
            "GradientStop",
            .object(
                ObjectShape([
                    Field("color", color, required: true),
                    Field("position", .number(.unit), required: true, doc: "0–1."),
                ])))
        def("Padding", .alternatives([nonNeg, .ref("EdgeInsets")]))
        def(
            "EdgeInsets",
            .object(
                ObjectShape(
                    ["top", "right", "bottom", "left", "horizontal", "vertical"].map { Field($0, nonNeg) },
                    doc: "Per-edge values; `horizontal`/`vertical` set both sides, specific edges win.")))
        let lengthOrFill = Shape.alternatives([nonNeg, .enumeration(["fill"])])
        def(
            "Style",
            .object(
                ObjectShape(
                    [
                        Field("padding", .ref("Padding")), Field("margin", .ref("Padding")),
                        Field("background", .alternatives([color, .ref("Gradient")])),
                        Field("color", color, doc: "Foreground (text) colour."),
                        Field("font", .ref("Font")),
                        Field("textAlign", .enumeration(["leading", "center", "trailing"]), default: "leading"),
                        Field(
                            "borderRadius", .alternatives([nonNeg, .string(.tokenReference)]),
                            doc: "Points or a `theme.radii` token."),
                        Field("border", .ref("Border")), Field("shadow", .ref("Shadow")),
                        Field("opacity", .number(.unit), default: 1),
                        Field("width", lengthOrFill), Field("height", lengthOrFill),
                        Field("maxWidth", nonNeg),
                    ], doc: "A small subset SwiftUI and React Native implement losslessly.")))
        def(
            "Font",
            .object(
                ObjectShape([
                    Field("family", .string(.fontFamily), doc: "Family name or a `theme.fonts` token."),
                    Field("size", .number(.positive)),
                    Field(
                        "weight", .number(NumberRange(integer: true, minimum: 100, maximum: 900, multipleOf: 100)),
                        default: 400),
                    Field("italic", .boolean, default: false),
                    Field("lineHeight", .number(.positive), doc: "Multiple of the font size."),
                    Field("letterSpacing", .number(.any)),
                ])))
        def(
            "Border",
            .object(ObjectShape([Field("width", nonNeg, required: true), Field("color", color, required: true)])))
        def(
            "Shadow",
            .object(
                ObjectShape([
                    Field("color", color, required: true), Field("radius", nonNeg, required: true),
                    Field("x", .number(.any), default: 0), Field("y", .number(.any), default: 0),
                ])))
        def("Animation", .object(ObjectShape([Field("entrance", .ref("Entrance")), Field("loop", .ref("Loop"))])))
        def(
            "Entrance",
            .object(
                ObjectShape(
                    [
                        Field("kind", .enumeration(Self.entranceKinds), required: true),
                        Field("delayMs", .number(.nonNegativeInteger), default: 0),
                        Field("durationMs", .number(.nonNegativeInteger), default: 350),
                        Field("easing", .ref("Easing"), default: "ease_out"),
                    ], doc: "Played once on appear.")))
        def(
            "Loop",
            .object(
                ObjectShape(
                    [
                        Field("kind", .enumeration(Self.loopKinds), required: true),
                        Field("durationMs", .number(.positiveInteger), default: 2000),
                    ], doc: "Endless, starting when the entrance ends.")))
        def(
            "Easing",
            .alternatives([
                .enumeration(Self.easingPresets),
                .array(ArrayShape(.number(.any), minItems: 4, maxItems: 4)),
            ]))
        def(
            "Action",
            .union(
                TaggedUnion(
                    tag: "type",
                    variants: [
                        ("close", "CloseAction"), ("restore", "RestoreAction"), ("purchase", "PurchaseAction"),
                        ("select_product", "SelectProductAction"), ("open_url", "OpenURLAction"),
                        ("custom", "CustomAction"),
                    ], unknownCode: "unknown_action_type")))
        def("CloseAction", .object(ObjectShape([Field("type", .constant("close"), required: true)])))
        def("RestoreAction", .object(ObjectShape([Field("type", .constant("restore"), required: true)])))
        def(
            "PurchaseAction",
            .object(
                ObjectShape([
                    Field("type", .constant("purchase"), required: true),
                    Field("productSlot", .string(.slotReference), required: true),
                ])))
        def(
            "SelectProductAction",
            .object(
                ObjectShape([
                    Field("type", .constant("select_product"), required: true),
                    Field("productSlot", .string(.id), required: true),
                ])))
        def(
            "OpenURLAction",
            .object(
                ObjectShape([Field("type", .constant("open_url"), required: true), Field("url", url, required: true)])))
        def(
            "CustomAction",
            .object(
                ObjectShape([
                    Field("type", .constant("custom"), required: true),
                    Field("name", .string(.nonEmpty), required: true),
                    Field("payload", .anyObject, doc: "Forwarded to the app through the bridge."),
                ])))

        def("PaywallNode", .union(TaggedUnion(tag: "type", variants: Self.nodeTypes, unknownCode: "unknown_node_type")))
        func node(
            _ type: String, _ fields: [Field], conditionals: [ConditionalRequirement] = [], exclusive: [[String]] = [],
            doc: String = ""
        ) -> Shape {
            let common = [
                Field("type", .constant(.string(type)), required: true),
                Field("id", .string(.id), doc: "Unique in the document."),
                Field("style", .ref("Style")), Field("animation", .ref("Animation")),
                Field("fallback", .ref("PaywallNode"), doc: "Rendered by renderers that do not know this node type."),
                Field("accessibilityLabel", lt),
            ]
            return .object(ObjectShape(common + fields, conditionals: conditionals, exclusive: exclusive, doc: doc))
        }
        let aspect = Field("aspectRatio", .number(.positive), doc: "Width / height.")
        let fit = Field("fit", .enumeration(Self.fits), default: "cover")
        def(
            "StackNode",
            node(
                "stack",
                [
                    Field("direction", .enumeration(["vertical", "horizontal", "layered"]), required: true),
                    Field("children", .array(ArrayShape(.ref("PaywallNode"))), required: true),
                    Field("gap", nonNeg, default: 0), Field("padding", .ref("Padding")),
                    Field("alignment", .enumeration(["start", "center", "end", "stretch"]), default: "stretch"),
                    Field(
                        "distribution",
                        .enumeration(["start", "center", "end", "space_between", "space_around", "space_evenly"]),
                        default: "start"),
                    Field("scroll", .boolean, default: false),
                ], doc: "Layout container: vertical = VStack, horizontal = HStack, layered = ZStack."))
        def("TextNode", node("text", [Field("text", lt, required: true)]))
        def(
            "ImageNode",
            node(
                "image",
                [
                    Field("src", url, required: true), Field("blurhash", .string(.nonEmpty)), aspect, fit,
                    Field("lazy", .boolean, default: true), Field("alt", lt),
                ]))
        def(
            "VideoNode",
            node(
                "video",
                [
                    Field("src", url, required: true), Field("poster", url),
                    Field("loop", .boolean, default: true), Field("muted", .boolean, default: true),
                    Field("autoplay", .boolean, default: true), Field("lazy", .boolean, default: true), aspect, fit,
                ]))
        def(
            "LottieNode",
            node(
                "lottie",
                [
                    Field("src", url, required: true, doc: "Lottie JSON."), Field("loop", .boolean, default: true),
                    Field("speed", .number(.positive), default: 1), Field("autoplay", .boolean, default: true), aspect,
                ], doc: "Should set a `fallback` (an image)."))
        def(
            "ButtonNode",
            node("button", [Field("label", lt, required: true), Field("action", .ref("Action"), required: true)]))
        def(
            "PurchaseButtonNode",
            node(
                "purchase_button",
                [
                    Field("productSlot", .string(.slotReference), required: true), Field("label", lt, required: true),
                    Field("sublabel", lt),
                ], doc: "Starts the purchase of the slot; `$selected` buys the product selector's choice."))
        def("RestoreButtonNode", node("restore_button", [Field("label", lt)]))
        def(
            "CarouselNode",
            node(
                "carousel",
                [
                    Field("pages", .array(ArrayShape(.ref("PaywallNode"), minItems: 1)), required: true),
                    Field("autoAdvanceMs", .number(NumberRange(integer: true, minimum: 500))),
                    Field("loop", .boolean, default: false),
                    Field("indicator", .enumeration(["dots", "none"]), default: "dots"),
                    Field("lazyRender", .boolean, default: true),
                ]))
        def(
            "TimerNode",
            node(
                "timer",
                [
                    Field("kind", .enumeration(["duration", "deadline"]), required: true),
                    Field("durationSeconds", .number(.positiveInteger), doc: "Required for `duration`."),
                    Field("endsAt", .string(.dateTime), doc: "Required for `deadline`."),
                    Field("format", .enumeration(["hh:mm:ss", "mm:ss", "dd:hh:mm:ss"]), default: "hh:mm:ss"),
                    Field("onExpire", .enumeration(["hide", "show_zero"]), default: "show_zero"),
                    Field("label", lt, doc: "May use `{{timer.remaining}}`.", allowsTimerVariable: true),
                ],
                conditionals: [
                    ConditionalRequirement(
                        field: "kind", value: "duration", required: ["durationSeconds"], code: "missing_required_field"),
                    ConditionalRequirement(
                        field: "kind", value: "duration", required: ["id"], code: "timer_missing_id"),
                    ConditionalRequirement(
                        field: "kind", value: "deadline", required: ["endsAt"], code: "missing_required_field"),
                ], doc: "Duration timers persist their start per (subscriber, paywall, node id)."))
        def(
            "FeatureListNode",
            node(
                "feature_list",
                [
                    Field("items", .array(ArrayShape(.ref("FeatureItem"), minItems: 1)), required: true),
                    Field("iconColor", color),
                ]))
        def(
            "FeatureItem",
            .object(
                ObjectShape([
                    Field("icon", .string(.nonEmpty), doc: "Icon name or emoji."), Field("text", lt, required: true),
                ])))
        def(
            "SpacerNode",
            node(
                "spacer",
                [
                    Field("size", nonNeg, doc: "Fixed points."),
                    Field("flex", .number(.positive), doc: "Weight; neither = flex 1."),
                ], exclusive: [["size", "flex"]]))
        def(
            "DividerNode",
            node(
                "divider",
                [Field("thickness", nonNeg, default: 1), Field("color", color), Field("inset", nonNeg, default: 0)]))
        def(
            "BadgeNode",
            node(
                "badge",
                [
                    Field("text", lt, required: true),
                    Field("variant", .enumeration(["filled", "outline"]), default: "filled"),
                ]))
        def(
            "ProductSelectorNode",
            node(
                "product_selector",
                [
                    Field(
                        "slots", .array(ArrayShape(.string(.id), minItems: 1, uniqueCode: "duplicate_slot")),
                        doc: "Default: all products, in order."),
                    Field("layout", .enumeration(["cards", "segments", "list"]), default: "cards"),
                    Field(
                        "option", .ref("PaywallNode"),
                        doc: "Content of each option; inside it `product` is the option's slot."),
                ], doc: "The selection is what `purchase_button` with `$selected` buys."))
        def(
            "FooterLinksNode",
            node(
                "footer_links",
                [
                    Field("privacyUrl", url), Field("termsUrl", url),
                    Field("showRestore", .boolean, default: true, doc: "Apple requires a restore entry point."),
                    Field("labels", .ref("FooterLabels")),
                ], doc: "The usual “Privacy · Terms · Restore” row."))
        def("FooterLabels", .object(ObjectShape([Field("privacy", lt), Field("terms", lt), Field("restore", lt)])))

        var map: [String: Shape] = [:]
        for (name, shape) in defs { map[name] = shape }
        self.definitions = map
        self.order = defs.map(\.0)
    }
}
