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
        var builder = SchemaBuilder(version: version)
        builder.documentAndValues()
        builder.nodes()
        var map: [String: Shape] = [:]
        for (name, shape) in builder.definitions { map[name] = shape }
        self.definitions = map
        self.order = builder.definitions.map(\.0)
    }
}
