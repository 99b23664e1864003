import PaywallFormat
import PaywallRenderer

/// How the API layer turns documents into pages: the SDK endpoint's production pages (context
/// resolved on the server, the presentation's placement/version/experiment passed to the bridge)
/// and the dashboard's previews (placeholders kept).
public struct PageRendering: Sendable {
    /// The operator's Lottie player script URL (`renderer.lottiePlayerURL`); nil shows fallbacks.
    public let lottiePlayerURL: String?
    /// Where pages may load media from (`renderer.mediaOrigins`, the CSP's media sources).
    public let mediaOrigins: [String]
    /// Where failed renders are counted.
    let activity: ServiceActivity
    /// Where this server's media are reached from a page (its own origin without `server.publicURL`).
    let assetLocation: AssetLocation

    public init(
        lottiePlayerURL: String?, mediaOrigins: [String] = RenderOptions.defaultMediaOrigins,
        activity: ServiceActivity = ServiceActivity(),
        assetLocation: AssetLocation = AssetLocation(publicOrigin: nil)
    ) {
        self.lottiePlayerURL = lottiePlayerURL
        self.mediaOrigins = mediaOrigins
        self.activity = activity
        self.assetLocation = assetLocation
    }

    /// The production page; a render failure is thrown (and counted), never served as an empty
    /// page with a strong ETag.
    package func production(_ input: PageInput) throws -> [UInt8] {
        var delivery: [String: JSONValue] = ["placement": .string(input.resolution.placement)]
        if let version = input.resolution.version {
            delivery["paywallId"] = .string(version.paywallID)
            delivery["version"] = .number(version.version)
        }
        if let experiment = input.resolution.experiment {
            delivery["experimentId"] = .string(experiment.experimentID)
            delivery["variant"] = experiment.variant.map { .string($0) } ?? .null
        }
        let media = assetLocation.forPages(input.document, appID: input.appID)
        let options = RenderOptions(
            locale: input.locale, colorScheme: input.colorScheme, mode: .production,
            context: input.context.mapValues(\.json), lottiePlayerURL: lottiePlayerURL, delivery: delivery,
            mediaOrigins: mediaOrigins, servedMediaPath: media.servedMediaPath)
        do { return try PaywallRenderer.render(media.document, options: options).html } catch {
            throw DataFailure.recorded(
                .pageRender, "placement '\(input.resolution.placement)' (\(input.locale)): \(error)", in: activity)
        }
    }

    /// A preview of any document (a draft may be invalid: the tolerant reader renders what it can),
    /// starting with `products` (samples and the caller's values) and `context`.
    func preview(
        _ document: JSONValue, appID: String, locale: String?, colorScheme: ColorScheme,
        context: [String: JSONValue] = [:],
        products: [String: JSONValue] = [:]
    ) throws -> RenderedPage {
        let media = assetLocation.forPages(document, appID: appID)
        let options = RenderOptions(
            locale: locale, colorScheme: colorScheme, mode: .preview, context: context,
            lottiePlayerURL: lottiePlayerURL, mediaOrigins: mediaOrigins, initialProducts: products,
            servedMediaPath: media.servedMediaPath)
        do { return try PaywallRenderer.render(media.document, options: options) } catch {
            let code =
                switch error {
                case .unsupportedSchemaVersion: "unsupported_schema_version"
                case .budgetExceeded: "render_budget_exceeded"
                }
            throw ServiceError(.unprocessable, code, "This document cannot be rendered: \(error).")
        }
    }
}

/// What a production page is rendered from: the version's document as served, and how it was asked
/// for (the SDK surface fills it from the request and its resolution).
public struct PageInput: Sendable {
    public let appID: String
    public let document: JSONValue
    public let locale: String
    public let colorScheme: ColorScheme
    public let context: PresentationContext
    public let resolution: Resolution

    public init(
        appID: String, document: JSONValue, locale: String, colorScheme: ColorScheme, context: PresentationContext,
        resolution: Resolution
    ) {
        self.appID = appID
        self.document = document
        self.locale = locale
        self.colorScheme = colorScheme
        self.context = context
        self.resolution = resolution
    }
}
