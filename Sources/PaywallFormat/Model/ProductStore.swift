/// The stores a product slot names its product in (schema version 3: `storeProductIds`).
public enum ProductStore: String, Sendable, CaseIterable, Hashable {
    case appStore, googlePlay

    var documentation: String {
        switch self {
        case .appStore: "The App Store product id (iOS, iPadOS, macOS, tvOS, watchOS, visionOS)."
        case .googlePlay: "The Google Play product id (Android)."
        }
    }

    /// The store a client platform buys from (the `X-Xizor-Platform` request attribute): Android
    /// buys from Google Play; Apple's platforms — and a platform not named, or not known — from the
    /// App Store, the format's default since version 1.
    public init(platform: String?) {
        switch platform?.lowercased() {
        case "android": self = .googlePlay
        default: self = .appStore
        }
    }

    /// The other store: where a slot's id is taken from when it names none in this one.
    public var other: ProductStore { self == .appStore ? .googlePlay : .appStore }
}
