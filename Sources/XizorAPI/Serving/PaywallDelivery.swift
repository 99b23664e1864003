import Foundation
import HTTP
import PaywallFormat
import XizorDomain

/// What an SDK request asks for, read from its query and headers.
public struct DeliveryRequest: Sendable {
    public var placement: String
    public var locale: String?
    public var acceptLanguage: String?
    public var schemaVersion: Int
    public var colorScheme: ColorScheme
    public var context: PresentationContext
    public var subscriberID: String?
    public var kind: RepresentationKey.Kind

    /// Reads the SDK parameters; 400 for a malformed `X-Xizor-Schema-Version` or colour scheme.
    public init(_ request: HTTPRequest, placement: String) throws {
        self.placement = placement
        locale = request.query("locale")
        acceptLanguage = request.header("Accept-Language")
        schemaVersion = try DeliveryRequest.schemaVersion(header: request.header("X-Xizor-Schema-Version"))
        // The client hint is a structured-field string: `"dark"`.
        let schemeText =
            request.query("colorScheme")
            ?? request.header("Sec-CH-Prefers-Color-Scheme").map {
                $0.hasPrefix("\"") && $0.hasSuffix("\"") && $0.count >= 2 ? String($0.dropFirst().dropLast()) : $0
            }
        if let schemeText {
            guard let scheme = ColorScheme(rawValue: schemeText) ?? ColorScheme(rawValue: schemeText.lowercased())
            else {
                throw ServiceError(
                    .badRequest, "invalid_color_scheme", "colorScheme is 'light' or 'dark', not '\(schemeText)'.")
            }
            colorScheme = scheme
        } else {
            colorScheme = .light
        }
        context = request.presentationContext
        subscriberID = request.query("subscriberId")
        kind = DeliveryRequest.prefersHTML(request.header("Accept")) ? .html : .json
    }

    /// The schema version to serve for an `X-Xizor-Schema-Version` value: absent means 1 (the SDKs
    /// that predate the header), a version newer than the server's is served the newest it has.
    /// Only ASCII digits are a version (the documented `^[0-9]+$`; `Int("+2")` would take a sign);
    /// 0, empty or anything else is a 400 rather than a guess. The HTTP parser already stripped the
    /// field value's surrounding whitespace.
    static func schemaVersion(header raw: String?) throws -> Int {
        guard let raw else { return 1 }
        var value = 0
        for byte in raw.utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                value = 0
                break
            }
            // Saturates instead of overflowing: any version past the newest is served the newest.
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), SchemaVersions.latest + 1)
        }
        guard value >= 1 else {
            throw ServiceError(
                .badRequest, "invalid_schema_version",
                "X-Xizor-Schema-Version must be a positive integer, not '\(raw)'.")
        }
        return min(value, SchemaVersions.latest)
    }

    /// `text/html` ranked above `application/json` in `Accept` asks for the page. Parsed only when
    /// the header mentions html, so the common JSON request costs a byte scan.
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept, containsHTML(accept.utf8) else { return false }
        var html = 0.0
        var json = 0.0
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if type == "text/html" { html = max(html, q) }
            if type == "application/json" || type == "application/*" { json = max(json, q) }
        }
        return html > 0 && html > json
    }

    private static func containsHTML(_ bytes: String.UTF8View) -> Bool {
        var matched = 0
        let needle = Array("html".utf8)
        for byte in bytes {
            matched = (byte | 0x20) == needle[matched] ? matched + 1 : ((byte | 0x20) == needle[0] ? 1 : 0)
            if matched == needle.count { return true }
        }
        return false
    }
}

/// The SDK's paywall endpoint as a function from request to representation: resolution through
/// the one resolver, locale negotiation, the schema form for the client, then a cached encoding.
public final class PaywallDelivery: Sendable {
    /// Every request header the answer depends on (Accept-Encoding is added by the HTTP layer).
    /// The request attributes' headers are named whether or not a rule reads them: a cache must not
    /// serve one platform's answer to another (docs/targeting.md).
    public static let vary =
        (["Accept", "Accept-Language", "X-Xizor-Schema-Version", "Sec-CH-Prefers-Color-Scheme"]
        + RequestAttributes.varyHeaders).joined(separator: ", ")

    private let serving: ServingState
    public let cache: RepresentationCache
    private let renderPage: (@Sendable (PageInput) throws -> [UInt8])?
    /// Limits per app the pages rendered past the cache's context-variant cap.
    public let renderGate: RenderGate

    /// What the page renderer needs (nil renderer: pages are not offered).
    /// Where this server's media are reached: the SDK's JSON names them at `server.publicURL`.
    private let assetLocation: AssetLocation
    /// The header a trusted proxy sets to the client's country (`targeting.countryHeader`).
    private let countryHeader: String?

    public init(
        serving: ServingState, cache: RepresentationCache = RepresentationCache(),
        renderGate: RenderGate = RenderGate(),
        assetLocation: AssetLocation = AssetLocation(publicOrigin: nil), countryHeader: String? = nil,
        renderPage: (@Sendable (PageInput) throws -> [UInt8])? = nil
    ) {
        self.serving = serving
        self.countryHeader = countryHeader
        self.assetLocation = assetLocation
        self.cache = cache
        self.renderGate = renderGate
        self.renderPage = renderPage
    }

    public enum Delivery: Sendable {
        case paywall(Representation)
        /// The subscriber is in an experiment's holdout: the app shows nothing.
        case holdout(ExperimentAssignment)
    }

    /// `http` is the request `request` was read from: its request attributes are read from it only
    /// when the placement's rules need them, and its platform only when the form depends on it.
    public func deliver(appID: String, _ request: DeliveryRequest, from http: HTTPRequest) throws -> Delivery {
        var facts = RequestFacts(context: request.context, subscriberID: request.subscriberID)
        let resolution = try serving.resolve(
            appID: appID, placement: request.placement, facts: &facts,
            device: {
                try RequestAttributes(
                    header: { http.header($0) }, countryQuery: http.query("country"), countryHeader: countryHeader)
            })
        guard let served = resolution.served else {
            guard let assignment = resolution.experiment else {
                throw ServiceError(
                    .notFound, "no_published_paywall", "Placement '\(request.placement)' has nothing to serve.")
            }
            return .holdout(assignment)
        }
        let (document, schemaVersion, formKey): (JSONValue, Int, ServedForms.Key)
        // The platform closure is written in the call (non-escaping): kept in a local, it would
        // be an escaping context holding a copy of the request.
        do {
            (document, schemaVersion, formKey) = try served.forms.form(
                clientVersion: request.schemaVersion, colorScheme: request.colorScheme,
                store: { ProductStore(platform: http.header(RequestAttributes.Name.platform.header ?? "")) })
        } catch {
            throw DataFailure.recorded(
                .storedDocument, "\(served.published.paywallID) v\(served.published.version): \(error)",
                in: serving.activity)
        }
        let locale = LocaleNegotiation.choose(
            parameter: request.locale, acceptLanguage: request.acceptLanguage,
            locales: served.locales, defaultLocale: served.defaultLocale)
        let kind: RepresentationKey.Kind = request.kind == .html && renderPage != nil ? .html : .json
        // Pages resolve context variables on the server: only the keys the document uses matter.
        let usedContext = kind == .html ? request.context.filter { served.contextKeys.contains($0.key) } : [:]
        // "" (no context value the page uses) is the one page every client without values shares.
        let pageContext = usedContext.isEmpty ? "" : PaywallDelivery.contextKey(usedContext)
        let key = RepresentationKey(
            served: served, placement: request.placement, locale: locale, form: formKey, kind: kind,
            pageColorScheme: kind == .html ? request.colorScheme : nil, context: pageContext,
            experiment: resolution.experiment)
        let gate = renderGate
        let representation = try cache.representation(
            for: key,
            build: {
                var headers: HTTPHeaders = [
                    "Content-Type": kind == .json ? "application/json" : "text/html; charset=utf-8",
                    "Cache-Control": "no-cache",
                    "Vary": PaywallDelivery.vary,
                    "Content-Language": locale,
                    "X-Xizor-Schema-Version": String(schemaVersion),
                    "Accept-CH": "Sec-CH-Prefers-Color-Scheme",
                    // A page's body is HTML: clients read what was served (for event attribution) here.
                    "X-Xizor-Paywall": served.published.paywallID,
                    "X-Xizor-Version": String(served.published.version),
                ]
                if let experiment = resolution.experiment {
                    headers["X-Xizor-Experiment"] = experiment.experimentID
                    headers["X-Xizor-Variant"] = experiment.variant ?? ""
                }
                switch kind {
                case .json:
                    var body: [String: JSONValue] = [
                        "placement": .string(request.placement), "paywallId": .string(served.published.paywallID),
                        "version": .number(served.published.version), "schemaVersion": .number(schemaVersion),
                        "locale": .string(locale), "document": assetLocation.forSDK(document, appID: appID),
                    ]
                    if let experiment = resolution.experiment { body["experiment"] = experiment.json }
                    let bodyJSON = JSONValue.object(body)
                    return Representation(body: bodyJSON.canonicalBytes, headers: headers)
                case .html:
                    // A page that fails to render throws: nothing is cached, the request answers 500.
                    let page =
                        try renderPage?(
                            PageInput(
                                appID: appID, document: document, locale: locale, colorScheme: request.colorScheme,
                                context: usedContext, resolution: resolution)) ?? []
                    return Representation(body: page, headers: headers)
                }
            }, uncached: { build in try gate.run(appID: appID, build) })
        return .paywall(representation)
    }

    /// Pages resolve context variables on the server, so their cache key carries the context.
    static func contextKey(_ context: PresentationContext) -> String {
        JSONValue.object(context.mapValues(\.json)).canonicalString
    }
}
