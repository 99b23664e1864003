/// A paywall document in typed form, as renderers consume it. Built by `PaywallReader` (tolerant) or
/// returned by `PaywallValidator` for a valid document. Absent optional fields keep their documented
/// defaults; texts stay locale maps so the renderer picks per request.
public struct PaywallDocument: Sendable, Hashable {
    public var schemaVersion: Int
    public var id: String
    public var name: String
    public var locales: [String]
    public var defaultLocale: String
    public var theme: Theme
    public var products: [ProductSlot]
    public var settings: PaywallSettings
    public var root: PaywallNode?
}

public typealias LocalizedText = [String: String]

public struct Theme: Sendable, Hashable {
    /// Token → colour; in version 2 a colour may differ per appearance.
    public var colors: [String: ThemeColor]
    public var fonts: [String: ThemeFont]
    public var radii: [String: Double]
}

public struct ThemeColor: Sendable, Hashable {
    public var light: String
    public var dark: String
    public init(light: String, dark: String) {
        self.light = light
        self.dark = dark
    }
    public init(_ hex: String) { self.init(light: hex, dark: hex) }
    public func resolved(for scheme: ColorScheme) -> String { scheme == .dark ? dark : light }
}

public enum ColorScheme: String, Sendable, Hashable, CaseIterable {
    case light
    case dark
}

public struct ThemeFont: Sendable, Hashable {
    public var family: String
    public var weight: Int?
}

public struct ProductSlot: Sendable, Hashable {
    public var slot: String
    /// The id a client that names no store uses: version 1–2's only id; in version 3 the App
    /// Store's, else Google Play's.
    public var storeProductId: String
    public var preselected: Bool
    /// Version 3's id per store (empty before version 3).
    public var storeProductIds: [ProductStore: String] = [:]

    /// The id in `store`: its own, else the slot's other id (a version 1–2 slot has one for both).
    public func productID(in store: ProductStore) -> String { storeProductIds[store] ?? storeProductId }
}

public struct PaywallSettings: Sendable, Hashable {
    public enum SafeArea: String, Sendable, Hashable { case all, top, bottom, none }
    public var dismissable: Bool
    public var safeArea: SafeArea
    public var background: Background
    public var dismissDelayMs: Int
}

public enum Background: Sendable, Hashable {
    case color(String)
    case gradient(Gradient)
    case image(src: String, blurhash: String?)
    case video(src: String, poster: String?, loop: Bool, muted: Bool, overlay: Gradient?)
}

public struct Gradient: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case linear, radial }
    public struct Stop: Sendable, Hashable {
        public var color: String
        public var position: Double
    }
    public var kind: Kind
    /// Degrees, 0 = up, 90 = right (linear only).
    public var angle: Double
    public var stops: [Stop]
}

public enum Padding: Sendable, Hashable {
    case uniform(Double)
    case edges(top: Double?, right: Double?, bottom: Double?, left: Double?, horizontal: Double?, vertical: Double?)

    /// Resolved (top, right, bottom, left): specific edges win over horizontal/vertical.
    public var insets: (top: Double, right: Double, bottom: Double, left: Double) {
        switch self {
        case .uniform(let v): return (v, v, v, v)
        case .edges(let t, let r, let b, let l, let h, let v):
            return (t ?? v ?? 0, r ?? h ?? 0, b ?? v ?? 0, l ?? h ?? 0)
        }
    }
}

/// A colour or gradient fill (`style.background`).
public enum Fill: Sendable, Hashable {
    case color(String)
    case gradient(Gradient)
}

/// A length that is either points or "fill the available space".
public enum Length: Sendable, Hashable {
    case points(Double)
    case fill
}

public struct Style: Sendable, Hashable {
    public enum TextAlign: String, Sendable, Hashable { case leading, center, trailing }
    public enum Radius: Sendable, Hashable { case points(Double), token(String) }
    public struct Font: Sendable, Hashable {
        public var family: String?
        public var size: Double?
        public var weight: Int?
        public var italic: Bool
        public var lineHeight: Double?
        public var letterSpacing: Double?
    }
    public struct Border: Sendable, Hashable {
        public var width: Double
        public var color: String
    }
    public struct Shadow: Sendable, Hashable {
        public var color: String
        public var radius: Double
        public var x: Double
        public var y: Double
    }

    public var padding: Padding?
    public var margin: Padding?
    public var background: Fill?
    public var color: String?
    public var font: Font?
    public var textAlign: TextAlign?
    public var borderRadius: Radius?
    public var border: Border?
    public var shadow: Shadow?
    public var opacity: Double?
    public var width: Length?
    public var height: Length?
    public var maxWidth: Double?

    public init() {}
}

public enum Easing: Sendable, Hashable {
    public enum Preset: String, Sendable, Hashable, CaseIterable {
        case linear, ease, ease_in, ease_out, ease_in_out, spring
    }
    case preset(Preset)
    case cubicBezier(Double, Double, Double, Double)
}

public struct Animation: Sendable, Hashable {
    public struct Entrance: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case fade, slide_up, slide_down, slide_left, slide_right, scale, none
        }
        public var kind: Kind
        public var delayMs: Int
        public var durationMs: Int
        public var easing: Easing
    }
    public struct Loop: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable { case pulse, shimmer, float, bounce, rotate, none }
        public var kind: Kind
        public var durationMs: Int
    }
    public var entrance: Entrance?
    public var loop: Loop?
}

public enum Action: Sendable, Hashable {
    case close
    case restore
    case purchase(productSlot: String)
    case selectProduct(productSlot: String)
    case openURL(String)
    case custom(name: String, payload: JSONValue?)
    /// An action type this reader does not know (renderers do nothing).
    case unknown(String)
}

/// What every node carries besides its kind.
public struct NodeCommon: Sendable, Hashable {
    public var id: String?
    public var style: Style?
    public var animation: Animation?
    public var accessibilityLabel: LocalizedText?
    /// Where the reader found the node in the document (previews tag elements with it).
    public var source: NodeSource = .unknown
}

/// The JSON path a node was read from (`$.root.children[2]`), so a preview's element can name the node
/// an editor selects. Not part of the node's value: two nodes equal in content are equal wherever they
/// were read, and the path is only spelled out when asked (readers run on every publish and load).
public struct NodeSource: Sendable, Hashable {
    let walk: WalkPath?

    public static let unknown = NodeSource(walk: nil)

    /// `$.root.children[2]`, as validation issues spell paths; nil for a node not read from JSON.
    public var jsonPath: String? { walk.map { $0.jsonPath.description } }

    public static func == (lhs: NodeSource, rhs: NodeSource) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

public enum Fit: String, Sendable, Hashable { case cover, contain, fill }

public struct FeatureItem: Sendable, Hashable {
    public var icon: String?
    public var text: LocalizedText
}

/// One node of the tree. Unknown node types never reach this enum: the reader substitutes their
/// fallback or drops them (and reports it).
public struct PaywallNode: Sendable, Hashable {
    public var common: NodeCommon
    public var kind: Kind

    public indirect enum Kind: Sendable, Hashable {
        public enum Direction: String, Sendable, Hashable { case vertical, horizontal, layered }
        public enum Alignment: String, Sendable, Hashable { case start, center, end, stretch }
        public enum Distribution: String, Sendable, Hashable {
            case start, center, end, space_between, space_around, space_evenly
        }
        public enum TimerKind: String, Sendable, Hashable { case duration, deadline }
        public enum TimerFormat: String, Sendable, Hashable {
            case hhmmss = "hh:mm:ss", mmss = "mm:ss", ddhhmmss = "dd:hh:mm:ss"
        }
        public enum TimerExpiry: String, Sendable, Hashable { case hide, show_zero }
        public enum Indicator: String, Sendable, Hashable { case dots, none }
        public enum BadgeVariant: String, Sendable, Hashable { case filled, outline }
        public enum SelectorLayout: String, Sendable, Hashable { case cards, segments, list }

        case stack(
            direction: Direction, children: [PaywallNode], gap: Double, padding: Padding?, alignment: Alignment,
            distribution: Distribution, scroll: Bool)
        case text(LocalizedText)
        case image(src: String, blurhash: String?, aspectRatio: Double?, fit: Fit, lazy: Bool, alt: LocalizedText?)
        case video(
            src: String, poster: String?, loop: Bool, muted: Bool, autoplay: Bool, lazy: Bool, aspectRatio: Double?,
            fit: Fit)
        case lottie(
            src: String, loop: Bool, speed: Double, autoplay: Bool, aspectRatio: Double?, fallback: PaywallNode?)
        case button(label: LocalizedText, action: Action)
        case purchaseButton(productSlot: String, label: LocalizedText, sublabel: LocalizedText?)
        case restoreButton(label: LocalizedText?)
        case carousel(pages: [PaywallNode], autoAdvanceMs: Int?, loop: Bool, indicator: Indicator, lazyRender: Bool)
        case timer(
            kind: TimerKind, durationSeconds: Int?, endsAt: String?, format: TimerFormat, onExpire: TimerExpiry,
            label: LocalizedText?)
        case featureList(items: [FeatureItem], iconColor: String?)
        /// `size` nil and `flex` nil = flexible spacer with weight 1.
        case spacer(size: Double?, flex: Double?)
        case divider(thickness: Double, color: String?, inset: Double)
        case badge(text: LocalizedText, variant: BadgeVariant)
        case productSelector(slots: [String]?, layout: SelectorLayout, option: PaywallNode?)
        case footerLinks(
            privacyUrl: String?, termsUrl: String?, showRestore: Bool, privacyLabel: LocalizedText?,
            termsLabel: LocalizedText?, restoreLabel: LocalizedText?)
    }

    /// The `type` string of this node.
    public var type: String {
        switch kind {
        case .stack: return "stack"
        case .text: return "text"
        case .image: return "image"
        case .video: return "video"
        case .lottie: return "lottie"
        case .button: return "button"
        case .purchaseButton: return "purchase_button"
        case .restoreButton: return "restore_button"
        case .carousel: return "carousel"
        case .timer: return "timer"
        case .featureList: return "feature_list"
        case .spacer: return "spacer"
        case .divider: return "divider"
        case .badge: return "badge"
        case .productSelector: return "product_selector"
        case .footerLinks: return "footer_links"
        }
    }
}
