extension SchemaBuilder {
    /// The node kinds (`PaywallNode`, a union tagged by `type`) and what only nodes use.
    mutating func nodes() {
        def(
            "PaywallNode",
            .union(TaggedUnion(tag: "type", variants: SchemaDefinitions.nodeTypes, unknownCode: "unknown_node_type")))
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
        let fit = Field("fit", .enumeration(SchemaDefinitions.fits), default: "cover")
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
    }
}
