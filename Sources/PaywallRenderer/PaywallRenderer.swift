import PaywallFormat

/// Whether end users or editors see the page: production removes variables that have no value
/// (end users never see `{{…}}`), preview keeps them as written (dashboard, `xizor render --preview`).
public enum RenderMode: String, Sendable, Hashable, CaseIterable {
    case production
    case preview

    var missingPolicy: MissingVariablePolicy { self == .production ? .empty : .keep }
}

/// What a page depends on besides the document. Equal options and an equal document give equal bytes,
/// so a cache key or ETag can be derived from (document, options).
public struct RenderOptions: Sendable, Hashable {
    /// The requested locale (nil = the document's default); texts are picked with `pickLocalizedText`.
    public var locale: String?
    public var colorScheme: ColorScheme
    public var mode: RenderMode
    /// Presentation context (`{{context.KEY}}`), typed as the SDK endpoint parses it.
    public var context: [String: JSONValue]
    /// The operator's Lottie player script (an `https:` URL of lottie-web or an API-compatible player).
    /// Nil: Lottie nodes show their fallback.
    public var lottiePlayerURL: String?
    /// Known starts of duration timers, node id → milliseconds since 1970 (e.g. from `POST /v1/sdk/timers`).
    /// Timers without one ask the app (`timer_start`) and count from the page's open until it answers.
    public var timerStarts: [String: Int64]
    /// What the server decided for this presentation (placement, version, experiment, variant):
    /// added to the bridge's `ready` message and to every funnel `event`, so the app can attribute
    /// the events it forwards to `POST /v1/sdk/events`.
    public var delivery: [String: JSONValue]
    /// What one page may cost; past it the render stops and throws `RenderError.budgetExceeded`.
    public var budget: RenderBudget
    /// Where the page may load images, video and Lottie animations from (CSP sources such as
    /// `https:` or `https://cdn.example.com`); `renderer.mediaOrigins`.
    public var mediaOrigins: [String]
    /// Product values the page starts with, slot → fields (`SampleProducts` in previews, with any
    /// the caller set); production pages start with none and wait for the bridge's `products`.
    /// A value marked `sample: true` makes the preview say that its prices are samples.
    public var initialProducts: [String: JSONValue]
    /// Media the page loads from its own origin: path-absolute URLs under this prefix (the
    /// server's assets, `/v1/assets/`) are kept and the CSP admits `'self'`. Nil: only `https:` URLs.
    public var servedMediaPath: String?

    public init(
        locale: String? = nil, colorScheme: ColorScheme = .light, mode: RenderMode = .production,
        context: [String: JSONValue] = [:], lottiePlayerURL: String? = nil, timerStarts: [String: Int64] = [:],
        delivery: [String: JSONValue] = [:], budget: RenderBudget = .standard,
        mediaOrigins: [String] = RenderOptions.defaultMediaOrigins, initialProducts: [String: JSONValue] = [:],
        servedMediaPath: String? = nil
    ) {
        self.locale = locale
        self.colorScheme = colorScheme
        self.mode = mode
        self.context = context
        self.lottiePlayerURL = lottiePlayerURL
        self.timerStarts = timerStarts
        self.delivery = delivery
        self.budget = budget
        self.mediaOrigins = mediaOrigins.isEmpty ? RenderOptions.defaultMediaOrigins : mediaOrigins
        self.initialProducts = initialProducts
        self.servedMediaPath = servedMediaPath
    }

    public static let defaultMediaOrigins = ["https:"]

    /// Whether `source` may be a media origin: `https:`, or `https://host[:port]` with nothing after
    /// it (no path, no quote, no space or `;` that would end or extend the policy).
    public static func isValidMediaOrigin(_ source: String) -> Bool {
        if source == "https:" { return true }
        guard source.hasPrefix("https://") else { return false }
        let rest = source.dropFirst("https://".count)
        return !rest.isEmpty
            && rest.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || "-.:*".contains($0) }
    }

    /// Context given as strings (the simple case).
    public init(
        locale: String? = nil, colorScheme: ColorScheme = .light, mode: RenderMode = .production,
        stringContext: [String: String], lottiePlayerURL: String? = nil
    ) {
        self.init(
            locale: locale, colorScheme: colorScheme, mode: mode, context: stringContext.mapValues { .string($0) },
            lottiePlayerURL: lottiePlayerURL)
    }
}

/// One rendered page: a complete HTML5 document with its CSS and JavaScript inline.
public struct RenderedPage: Sendable {
    /// UTF-8 bytes of the page.
    public var html: [UInt8]
    /// Node types the reader did not know (fallback rendered or node skipped); the page also posts a
    /// `paywall_unknown_node` event for each through the bridge.
    public var unknownNodes: [PaywallReader.UnknownNode]
    /// The document locale the page is in (its `lang`).
    public var locale: String
    /// The policy the page's `<meta http-equiv="Content-Security-Policy">` carries, for a server
    /// that also sends it as a header with directives a meta policy cannot hold (`frame-ancestors`).
    public var contentSecurityPolicy: String
}

/// The most one page may cost. The validator's limits keep valid documents far below it; the budget is
/// what protects the process from everything else: drafts (previews render invalid documents), versions
/// stored before the limits existed, and context values. The render stops as soon as it is spent, so a
/// hostile document costs at most the budget, not what it describes.
public struct RenderBudget: Sendable, Hashable {
    /// Nodes rendered, counted as `DocumentLimits.expandedNodes` counts them.
    public var maxNodes: Int
    /// UTF-8 bytes of the finished page.
    public var maxBytes: Int

    public init(maxNodes: Int, maxBytes: Int) {
        self.maxNodes = maxNodes
        self.maxBytes = maxBytes
    }

    /// `DocumentLimits.expandedNodes` nodes and 4 MiB: a page at every document limit stays under both.
    public static let standard = RenderBudget(maxNodes: DocumentLimits.expandedNodes, maxBytes: 4 << 20)
}

public enum RenderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document's `schemaVersion` is not one this server reads; it must not be rendered.
    case unsupportedSchemaVersion(Int)
    /// The page would exceed `RenderBudget` (which limit, and the limit).
    case budgetExceeded(Budget, limit: Int)

    public enum Budget: String, Sendable, Hashable {
        case nodes
        case bytes
    }

    public var description: String {
        switch self {
        case .unsupportedSchemaVersion(let v):
            return
                "unsupported schemaVersion \(v) (supported: \(SchemaVersions.supported.map(String.init).joined(separator: ", ")))"
        case .budgetExceeded(.nodes, let limit): return "the page would render more than \(limit) nodes"
        case .budgetExceeded(.bytes, let limit): return "the page would be larger than \(limit) bytes"
        }
    }
}

/// Turns a stored paywall document into the self-contained page the SDKs load into a WebView. Pure:
/// no I/O; the only things the page fetches are the document's own media (and the operator's Lottie
/// player, when configured).
public enum PaywallRenderer {
    /// Renders `document` (read with the tolerant `PaywallReader`).
    public static func render(_ document: JSONValue, options: RenderOptions = RenderOptions()) throws(RenderError)
        -> RenderedPage
    {
        let version = document["schemaVersion"]?.intValue ?? 1
        guard SchemaVersions.supported.contains(version) else { throw .unsupportedSchemaVersion(version) }
        let read = PaywallReader.read(document)
        return try render(read.document, unknownNodes: read.unknownNodes, options: options)
    }

    /// Renders an already-read document.
    public static func render(
        _ document: PaywallDocument, unknownNodes: [PaywallReader.UnknownNode] = [],
        options: RenderOptions = RenderOptions()
    ) throws(RenderError) -> RenderedPage {
        var builder = PageBuilder(document: document, options: options, unknownNodes: unknownNodes)
        let html = try builder.page()
        return RenderedPage(
            html: Array(html.utf8), unknownNodes: unknownNodes, locale: builder.documentLocale,
            contentSecurityPolicy: builder.contentSecurityPolicy)
    }

    /// Renders every form the SDK endpoint serves a published version in — each locale, light and dark,
    /// production mode, no context — and throws the first that fails. Publishing calls this, so a
    /// version that is stored is a version that renders.
    public static func checkEveryForm(_ document: JSONValue, lottiePlayerURL: String? = nil) throws(RenderError) {
        let version = document["schemaVersion"]?.intValue ?? 1
        guard SchemaVersions.supported.contains(version) else { throw .unsupportedSchemaVersion(version) }
        let read = PaywallReader.read(document)
        for locale in read.document.locales.isEmpty ? [read.document.defaultLocale] : read.document.locales {
            for scheme in ColorScheme.allCases {
                let options = RenderOptions(
                    locale: locale, colorScheme: scheme, mode: .production, lottiePlayerURL: lottiePlayerURL)
                _ = try render(read.document, unknownNodes: read.unknownNodes, options: options)
            }
        }
    }

    /// The page's JavaScript runtime, byte for byte as embedded (the Node tests load exactly this).
    public static var runtimeJavaScript: String { RuntimeScript.source }
}
