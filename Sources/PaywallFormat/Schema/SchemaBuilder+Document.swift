extension SchemaBuilder {
    /// The document, its settings, products, styles, animations and actions.
    mutating func documentAndValues() {
        def(
            SchemaDefinitions.rootName,
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
                        Field("kind", .enumeration(SchemaDefinitions.entranceKinds), required: true),
                        Field("delayMs", .number(.nonNegativeInteger), default: 0),
                        Field("durationMs", .number(.nonNegativeInteger), default: 350),
                        Field("easing", .ref("Easing"), default: "ease_out"),
                    ], doc: "Played once on appear.")))
        def(
            "Loop",
            .object(
                ObjectShape(
                    [
                        Field("kind", .enumeration(SchemaDefinitions.loopKinds), required: true),
                        Field("durationMs", .number(.positiveInteger), default: 2000),
                    ], doc: "Endless, starting when the entrance ends.")))
        def(
            "Easing",
            .alternatives([
                .enumeration(SchemaDefinitions.easingPresets),
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

    }
}
