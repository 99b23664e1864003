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

    public init(locale: String? = nil, colorScheme: ColorScheme = .light, mode: RenderMode = .production,
                context: [String: JSONValue] = [:], lottiePlayerURL: String? = nil, timerStarts: [String: Int64] = [:],
                delivery: [String: JSONValue] = [:]) {
        self.locale = locale
        self.colorScheme = colorScheme
        self.mode = mode
        self.context = context
        self.lottiePlayerURL = lottiePlayerURL
        self.timerStarts = timerStarts
        self.delivery = delivery
    }

    /// Context given as strings (the simple case).
    public init(locale: String? = nil, colorScheme: ColorScheme = .light, mode: RenderMode = .production,
                stringContext: [String: String], lottiePlayerURL: String? = nil) {
        self.init(locale: locale, colorScheme: colorScheme, mode: mode, context: stringContext.mapValues { .string($0) },
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
}

public enum RenderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document's `schemaVersion` is not one this server reads; it must not be rendered.
    case unsupportedSchemaVersion(Int)

    public var description: String {
        switch self {
        case .unsupportedSchemaVersion(let v): return "unsupported schemaVersion \(v) (supported: \(SchemaVersions.supported.map(String.init).joined(separator: ", ")))"
        }
    }
}

/// Turns a stored paywall document into the self-contained page the SDKs load into a WebView. Pure:
/// no I/O; the only things the page fetches are the document's own media (and the operator's Lottie
/// player, when configured).
public enum PaywallRenderer {
    /// Renders `document` (read with the tolerant `PaywallReader`).
    public static func render(_ document: JSONValue, options: RenderOptions = RenderOptions()) throws(RenderError) -> RenderedPage {
        let version = document["schemaVersion"]?.intValue ?? 1
        guard SchemaVersions.supported.contains(version) else { throw .unsupportedSchemaVersion(version) }
        let read = PaywallReader.read(document)
        return render(read.document, unknownNodes: read.unknownNodes, options: options)
    }

    /// Renders an already-read document.
    public static func render(_ document: PaywallDocument, unknownNodes: [PaywallReader.UnknownNode] = [],
                              options: RenderOptions = RenderOptions()) -> RenderedPage {
        var builder = PageBuilder(document: document, options: options, unknownNodes: unknownNodes)
        let html = builder.page()
        return RenderedPage(html: Array(html.utf8), unknownNodes: unknownNodes, locale: builder.documentLocale)
    }

    /// The page's JavaScript runtime, byte for byte as embedded (the Node tests load exactly this).
    public static var runtimeJavaScript: String { RuntimeScript.source }
}
