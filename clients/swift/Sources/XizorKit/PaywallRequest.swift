import Foundation

/// One presentation's request: what is sent, and what identifies its answer in the cache.
struct PaywallRequest: Sendable, Hashable {
    var placement: String
    var format: PaywallFormat
    var locale: String?
    var colorScheme: ColorScheme?
    var subscriberId: String?
    var context: [String: ContextValue]
    var schemaVersion: Int

    /// Everything the server's answer depends on, in a stable order: two requests with the same
    /// key get the same answer, so the cache can stand in for either. The subscriber stays in it
    /// although the URL no longer carries it: a subscriber-dependent answer must not stand in for
    /// another subscriber's.
    var cacheKey: String { key(variant: nil) }

    /// The key of an experiment variant's paywall fetched for this request after an allocation. Its
    /// first part differs from every request key's, so the two kinds never collide whatever the
    /// context holds.
    func variantCacheKey(experimentId: String, variant: String) -> String {
        key(variant: (experimentId, variant))
    }

    private func key(variant: (experimentId: String, name: String)?) -> String {
        var parts = [
            variant == nil ? "v1" : "v1+variant", placement, format.rawValue, String(schemaVersion), locale ?? "",
            colorScheme?.rawValue ?? "", subscriberId ?? "",
        ]
        parts += context.keys.sorted().map { "\($0)=\(context[$0]?.queryValue ?? "")" }
        if let variant { parts += [variant.experimentId, variant.name] }
        return parts.map { $0.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "|", with: "%7C") }
            .joined(separator: "|")
    }

    /// The cacheable path form (docs/sdk.md): the app's public key in the path and nothing of the
    /// subscriber in the URL, so a CDN keeps one copy per app, placement and query for everybody. The
    /// subscriber goes in `X-Xizor-Subscriber-Id` (`headers`).
    func url(base: URL, publicKey: String) -> URL? {
        let path =
            "v1/sdk/apps/\(PaywallRequest.pathSegment(publicKey))/placements/\(PaywallRequest.pathSegment(placement))"
            + "/paywall"
        guard var components = URLComponents(url: base.appendingPathComponent(""), resolvingAgainstBaseURL: false)
        else { return nil }
        components.percentEncodedPath =
            (components.percentEncodedPath.hasSuffix("/")
                ? components.percentEncodedPath : components.percentEncodedPath + "/") + path
        var items: [URLQueryItem] = []
        if let locale { items.append(URLQueryItem(name: "locale", value: locale)) }
        if let colorScheme { items.append(URLQueryItem(name: "colorScheme", value: colorScheme.rawValue)) }
        if let subscriberId, !subscriberId.isEmpty, !subscriberFitsAHeader {
            items.append(URLQueryItem(name: "subscriberId", value: subscriberId))
        }
        for key in context.keys.sorted() {
            items.append(URLQueryItem(name: "context.\(key)", value: context[key]?.queryValue))
        }
        if !items.isEmpty {
            components.percentEncodedQuery = items.map {
                "\(Self.queryEscape($0.name))=\(Self.queryEscape($0.value ?? ""))"
            }
            .joined(separator: "&")
        }
        return components.url
    }

    /// `url` plus `experiment` and `variant`, last (the spec's order, so every device asks the same
    /// URL for a variant and a CDN keeps one copy of it).
    static func variantURL(_ url: URL, experimentId: String, variant: String) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let added = "experiment=\(queryEscape(experimentId))&variant=\(queryEscape(variant))"
        components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + added } ?? added
        return components.url
    }

    /// The request headers: the format wanted and, when there is one, the subscriber (a header, not a
    /// query parameter, so it never makes the URL unique).
    var headers: [String: String] {
        var headers = ["Accept": accept]
        if let subscriberId, !subscriberId.isEmpty, subscriberFitsAHeader {
            headers["X-Xizor-Subscriber-Id"] = subscriberId
        }
        return headers
    }

    /// A header value is visible ASCII and spaces, not at its ends (HTTP trims those). An id with
    /// anything else (non-ASCII, a line break) goes in the `subscriberId` query parameter instead,
    /// percent-encoded and exact, which the server still reads (at the price of a URL of its own).
    private var subscriberFitsAHeader: Bool {
        guard let subscriberId else { return true }
        return subscriberId.utf8.allSatisfy { (0x20...0x7e).contains($0) } && subscriberId.first != " "
            && subscriberId.last != " "
    }

    var accept: String { format == .page ? "text/html" : "application/json" }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Strict escaping (`+`, `&`, `=` and `/` included), so a value never changes the URL's shape.
    static func queryEscape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static func pathSegment(_ value: String) -> String { queryEscape(value) }
}

/// An answer as the server sent it (status, the headers that matter, body), kept on disk so a
/// cached answer is understood by exactly the code that understands a fresh one.
struct StoredResponse: Codable, Sendable, Equatable {
    var key: String
    var status: Int
    var etag: String?
    /// Lower-cased names: `content-language` and the `x-xizor-*` headers.
    var headers: [String: String]
    var body: Data
    /// Seconds since 1970 when the server last produced or confirmed it.
    var confirmedAt: TimeInterval

    static func keptHeaders(_ all: [String: String]) -> [String: String] {
        all.reduce(into: [:]) { kept, pair in
            let name = pair.key.lowercased()
            if name == "content-language" || name.hasPrefix("x-xizor-") { kept[name] = pair.value }
        }
    }

    /// What a stored response means: an answer to present, or an allocation that says which variant's
    /// paywall to fetch next.
    enum Meaning: Sendable, Equatable {
        case answer(PaywallAnswer)
        case allocation(ExperimentAllocation)
    }

    /// The signature the server sent with this response (a later 304's replaces it).
    var signature: String? { headers["x-xizor-signature"] }

    /// What this response means, or why it cannot be understood. An allocation is recognised by its
    /// body (`{"allocation": …}`), for pages too: it is JSON whatever the format asked.
    func meaning(
        request: PaywallRequest, source: Paywall.Source, verification: Paywall.Verification
    ) throws -> Meaning {
        if status == 204 {
            guard let experimentId = headers["x-xizor-holdout"] else {
                throw XizorError.invalidResponse("204 without X-Xizor-Holdout")
            }
            return .answer(.holdout(experimentId: experimentId))
        }
        guard status == 200 else { throw XizorError.invalidResponse("status \(status) is not an answer") }
        let json: JSONValue?
        if request.format == .document || headers["x-xizor-allocation"] != nil || startsLikeJSON {
            do { json = try JSONValue.decode(body) } catch {
                throw XizorError.invalidResponse("the body is not JSON: \(error)")
            }
        } else {
            json = nil
        }
        if let allocation = json?["allocation"], allocation != .null {
            return .allocation(try ExperimentAllocation(allocation))
        }
        switch (request.format, json) {
        case (.document, let value?):
            guard let paywallId = value["paywallId"]?.stringValue, let version = value["version"]?.intValue,
                let schemaVersion = value["schemaVersion"]?.intValue, let document = value["document"]
            else {
                throw XizorError.invalidResponse("the answer lacks paywallId, version, schemaVersion or document")
            }
            var experiment: Experiment?
            if let raw = value["experiment"], raw != .null {
                experiment = try? JSONDecoder().decode(Experiment.self, from: raw.jsonData())
            }
            return .answer(
                .paywall(
                    Paywall(
                        placement: value["placement"]?.stringValue ?? request.placement, paywallId: paywallId,
                        version: version, schemaVersion: schemaVersion,
                        locale: value["locale"]?.stringValue ?? headers["content-language"] ?? "",
                        content: .document(document), experiment: experiment, source: source, etag: etag,
                        verification: verification)))
        case (.document, nil), (.page, _?):
            throw XizorError.invalidResponse("a JSON answer that is neither a paywall nor an allocation")
        case (.page, nil):
            guard let paywallId = headers["x-xizor-paywall"],
                let version = headers["x-xizor-version"].flatMap(Int.init),
                let schemaVersion = headers["x-xizor-schema-version"].flatMap(Int.init)
            else {
                throw XizorError.invalidResponse(
                    "the page lacks X-Xizor-Paywall, X-Xizor-Version or X-Xizor-Schema-Version")
            }
            guard let html = String(data: body, encoding: .utf8) else {
                throw XizorError.invalidResponse("the page is not UTF-8")
            }
            let experiment = headers["x-xizor-experiment"].map {
                Experiment(
                    id: $0, variant: headers["x-xizor-variant"].flatMap { $0.isEmpty ? nil : $0 }, holdout: false,
                    assignment: nil)
            }
            return .answer(
                .paywall(
                    Paywall(
                        placement: request.placement, paywallId: paywallId, version: version,
                        schemaVersion: schemaVersion, locale: headers["content-language"] ?? "",
                        content: .page(html), experiment: experiment, source: source, etag: etag,
                        verification: verification)))
        }
    }

    /// A page is HTML; a JSON object here is an allocation even if its header was lost on the way.
    private var startsLikeJSON: Bool {
        body.first { ![0x20, 0x09, 0x0a, 0x0d].contains($0) } == UInt8(ascii: "{")
    }
}
