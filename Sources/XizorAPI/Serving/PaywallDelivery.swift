import Foundation
import HTTP
import PaywallFormat
import XizorDomain

/// The SDK's paywall endpoint as a function from request to representation: resolution through
/// the one resolver, locale negotiation, the schema form for the client, then a cached encoding,
/// signed (`AnswerSigning`) and marked for shared caches when nothing of the subscriber decided it
/// (`EdgeCaching`).
public final class PaywallDelivery: Sendable {
    /// Which endpoint asked.
    public enum Surface: Sendable {
        /// `/v1/sdk/placements/{key}/paywall`, the key in `Authorization`: `no-cache`, and the
        /// server assigns experiment variants.
        case authenticated
        /// `/v1/sdk/apps/{publicKey}/placements/{key}/paywall`: what does not depend on the
        /// subscriber is marked for shared caches, and experiments publish their allocation.
        case edge
    }

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
    let signing: AnswerSigning
    public let edge: EdgeCaching
    /// Experiments' published allocations (`PaywallDelivery+Allocation`), and holdouts' 204s.
    let allocations = AnswerMemo<AllocationKey, Representation>()
    let holdouts = AnswerMemo<HoldoutKey, HTTPResponse>()

    public init(
        serving: ServingState, signing: AnswerSigning, cache: RepresentationCache = RepresentationCache(),
        renderGate: RenderGate = RenderGate(), edge: EdgeCaching = EdgeCaching(),
        assetLocation: AssetLocation = AssetLocation(publicOrigin: nil), countryHeader: String? = nil,
        renderPage: (@Sendable (PageInput) throws -> [UInt8])? = nil
    ) {
        self.serving = serving
        self.signing = signing
        self.countryHeader = countryHeader
        self.assetLocation = assetLocation
        self.cache = cache
        self.renderGate = renderGate
        self.edge = edge
        self.renderPage = renderPage
    }

    public enum Delivery: Sendable {
        case paywall(Representation)
        /// The subscriber is in an experiment's holdout: the app shows nothing.
        case holdout(HTTPResponse)
    }

    /// `http` is the request `request` was read from: its request attributes are read from it only
    /// when the placement's rules need them, and its platform only when the form depends on it.
    /// `signer` is the verified public key and `credential` reads its text from the request (only to
    /// sign a new answer): a function of the request, so the caller's closure captures nothing (one
    /// capturing the request retained it on every request).
    public func deliver(
        appID: String, _ request: borrowing DeliveryRequest, from http: HTTPRequest, surface: Surface,
        signer: VerifiedKey,
        credential credentialOf: (HTTPRequest) -> String
    ) throws -> Delivery {
        func credential() -> String { credentialOf(http) }
        var facts = RequestFacts(context: request.context, subscriberID: request.subscriberID)
        let targeting: ExperimentTargeting =
            surface == .edge ? .clientBuckets(chosen: request.chosenVariant) : .serverAssigns
        let resolution = try signer.withApp(for: appID) { app in
            try serving.resolve(
                app: app, placement: request.placementName, facts: &facts, experiments: targeting,
                device: {
                    try RequestAttributes(
                        header: { http.header($0) }, countryQuery: http.query("country"), countryHeader: countryHeader)
                })
        }
        var answer = EdgeCaching.Answer(
            surface: surface, consulted: facts.consulted, nonce: request.nonce,
            nextScheduleChange: resolution.nextScheduleChange, now: serving.clock.now(), policy: edge)
        if let experiment = resolution.allocation {
            return .paywall(
                try allocationRepresentation(
                    appID: appID, experiment, request: request, answer: answer, signer: signer, credential: credential))
        }
        guard let served = resolution.served else {
            guard let assignment = resolution.experiment else {
                throw ServiceError(
                    .notFound, "no_published_paywall", "Placement '\(request.placement)' has nothing to serve.")
            }
            return .holdout(
                try holdout(
                    assignment, appID: appID, request: request, answer: answer, signer: signer, credential: credential))
        }
        // The platform closure is written in the call (non-escaping): kept in a local, it would
        // be an escaping context holding a copy of the request.
        let formKey = served.forms.key(
            clientVersion: request.schemaVersion, colorScheme: request.colorScheme,
            store: { ProductStore(platform: http.header(RequestAttributes.Name.platform.header ?? "")) })
        let schemaVersion = formKey.schemaVersion
        let locale = LocaleNegotiation.choose(
            parameter: request.locale, acceptLanguage: request.acceptLanguage,
            locales: served.locales, defaultLocale: served.defaultLocale)
        let kind: RepresentationKey.Kind = request.kind == .html && renderPage != nil ? .html : .json
        answer.negotiated(
            locale: !request.localeInURL && served.locales.count > 1,
            colorScheme: !request.colorSchemeInURL && (kind == .html || formKey.colorScheme != nil),
            platform: formKey.store != nil)
        // Pages resolve context variables on the server: only the keys the document uses matter.
        let usedContext = kind == .html ? request.context.filter { served.contextKeys.contains($0.key) } : [:]
        // "" (no context value the page uses) is the one page every client without values shares.
        let pageContext = usedContext.isEmpty ? "" : PaywallDelivery.contextKey(usedContext)
        let key = RepresentationKey(
            served: served, placement: request.placementName, locale: locale, form: formKey, kind: kind,
            pageColorScheme: kind == .html ? request.colorScheme : nil, context: pageContext,
            experiment: resolution.experiment, signer: signer, headerBits: answer.bits,
            signingGeneration: signing.generation)
        func build() throws -> Representation {
            // Read only for an answer being built: a kept one was built from it.
            let document: JSONValue
            do { document = try served.forms.document(formKey) } catch {
                throw DataFailure.recorded(
                    .storedDocument, "\(served.published.paywallID) v\(served.published.version): \(error)",
                    in: serving.activity)
            }
            var headers: HTTPHeaders = [
                "Content-Type": kind == .json ? "application/json" : "text/html; charset=utf-8",
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
            let body: [UInt8]
            switch kind {
            case .json:
                var object: [String: JSONValue] = [
                    "placement": .string(request.placement), "paywallId": .string(served.published.paywallID),
                    "version": .number(served.published.version), "schemaVersion": .number(schemaVersion),
                    "locale": .string(locale), "document": self.assetLocation.forSDK(document, appID: appID),
                ]
                if let experiment = resolution.experiment { object["experiment"] = experiment.json }
                body = JSONValue.object(object).canonicalBytes
            case .html:
                // A page that fails to render throws: nothing is cached, the request answers 500.
                body =
                    try self.renderPage?(
                        PageInput(
                            appID: appID, document: document, locale: locale, colorScheme: request.colorScheme,
                            context: usedContext, resolution: resolution)) ?? []
            }
            try self.finish(
                &headers, appID: appID, placement: request.placement, status: 200, body: body, answer: answer,
                credential: credential())
            return Representation(body: body, headers: headers)
        }
        // The gate read in the closure, which is never escaping: copied to a local first, it was
        // retained and released on every request, rendered or not.
        let representation = try cache.representation(
            for: key, served: served, signer: signer, build: build,
            uncached: { build in try self.renderGate.run(appID: appID, build) })
        return .paywall(
            try signed(representation, nonce: request.nonce, placement: request.placement, credential: credential))
    }

    /// The holdout's answer: nothing to show, signed like any answer (once per experiment, placement,
    /// key, header set and signing keys: a subscriber in the holdout costs a lookup, not a signature).
    private func holdout(
        _ assignment: ExperimentAssignment, appID: String, request: borrowing DeliveryRequest,
        answer: EdgeCaching.Answer,
        signer: VerifiedKey, credential: () -> String
    ) throws -> HTTPResponse {
        func build() throws -> HTTPResponse {
            var headers: HTTPHeaders = [
                "X-Xizor-Holdout": assignment.experimentID, "X-Xizor-Experiment": assignment.experimentID,
            ]
            try finish(
                &headers, appID: appID, placement: request.placement, status: 204, body: [], answer: answer,
                credential: credential())
            return HTTPResponse(status: .noContent, headers: headers)
        }
        let response = try holdouts.value(
            for: HoldoutKey(
                experimentID: assignment.experimentID, placement: request.placement, signer: signer, bits: answer.bits,
                signingGeneration: signing.generation),
            build: build)
        guard let nonce = request.nonce else { return response }
        var own = response
        own.headers["X-Xizor-Signature"] = try signing.signature(
            credential: credential(), placement: request.placement, status: 204, body: [], nonce: nonce)
        return own
    }

    /// A nonce makes the signature the request's own: the kept answer (built once, `private` for a
    /// request with a nonce) signed again over the nonce. Its body is not rebuilt, so a nonce costs
    /// one signature, never a render.
    func signed(
        _ representation: Representation, nonce: String?, placement: String, credential: () -> String
    ) throws -> Representation {
        guard let nonce else { return representation }
        var headers = representation.headers
        headers["X-Xizor-Signature"] = try signing.signature(
            credential: credential(), placement: placement, status: 200, body: representation.body, nonce: nonce)
        return Representation(representation, headers: headers)
    }

    /// The headers every answer gets: caching, `Vary`, the purge tags of a shared answer, the signature.
    func finish(
        _ headers: inout HTTPHeaders, appID: String, placement: String, status: Int, body: [UInt8],
        answer: EdgeCaching.Answer, credential: String
    ) throws {
        headers["Cache-Control"] = answer.cacheControl
        headers["Vary"] = answer.vary(countryHeader: countryHeader)
        if answer.surface == .edge {
            headers["X-Xizor-App"] = appID
            headers["X-Xizor-Placement"] = placement
        }
        headers["X-Xizor-Signature"] = try signing.signature(
            credential: credential, placement: placement, status: status, body: body, nonce: nil)
    }

    /// Pages resolve context variables on the server, so their cache key carries the context.
    static func contextKey(_ context: PresentationContext) -> String {
        JSONValue.object(context.mapValues(\.json)).canonicalString
    }
}

/// What a holdout's 204 is kept by (`PaywallDelivery.holdouts`).
struct HoldoutKey: Hashable, Sendable {
    let experimentID: String
    let placement: String
    /// Held, so its identity is not reused while the entry lives.
    let signer: VerifiedKey
    let bits: UInt32
    let signingGeneration: Int

    static func == (a: HoldoutKey, b: HoldoutKey) -> Bool {
        a.signer === b.signer && a.experimentID == b.experimentID && a.placement == b.placement && a.bits == b.bits
            && a.signingGeneration == b.signingGeneration
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(experimentID)
        hasher.combine(placement)
    }
}
