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
    /// key get the same answer, so the cache can stand in for either.
    var cacheKey: String {
        var parts = [
            "v1", placement, format.rawValue, String(schemaVersion), locale ?? "", colorScheme?.rawValue ?? "",
            subscriberId ?? "",
        ]
        parts += context.keys.sorted().map { "\($0)=\(context[$0]?.queryValue ?? "")" }
        return parts.map { $0.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "|", with: "%7C") }
            .joined(separator: "|")
    }

    func url(base: URL) -> URL? {
        let path = "v1/sdk/placements/\(PaywallRequest.pathSegment(placement))/paywall"
        guard var components = URLComponents(url: base.appendingPathComponent(""), resolvingAgainstBaseURL: false)
        else { return nil }
        components.percentEncodedPath =
            (components.percentEncodedPath.hasSuffix("/")
                ? components.percentEncodedPath : components.percentEncodedPath + "/") + path
        var items: [URLQueryItem] = []
        if let locale { items.append(URLQueryItem(name: "locale", value: locale)) }
        if let colorScheme { items.append(URLQueryItem(name: "colorScheme", value: colorScheme.rawValue)) }
        if let subscriberId { items.append(URLQueryItem(name: "subscriberId", value: subscriberId)) }
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

    /// The answer this response stands for, or why it cannot be understood.
    func answer(request: PaywallRequest, source: Paywall.Source) throws -> PaywallAnswer {
        if status == 204 {
            guard let experimentId = headers["x-xizor-holdout"] else {
                throw XizorError.invalidResponse("204 without X-Xizor-Holdout")
            }
            return .holdout(experimentId: experimentId)
        }
        guard status == 200 else { throw XizorError.invalidResponse("status \(status) is not an answer") }
        switch request.format {
        case .document:
            let value: JSONValue
            do { value = try JSONValue.decode(body) } catch {
                throw XizorError.invalidResponse("the body is not JSON: \(error)")
            }
            guard let paywallId = value["paywallId"]?.stringValue, let version = value["version"]?.intValue,
                let schemaVersion = value["schemaVersion"]?.intValue, let document = value["document"]
            else {
                throw XizorError.invalidResponse("the answer lacks paywallId, version, schemaVersion or document")
            }
            var experiment: Experiment?
            if let raw = value["experiment"], raw != .null {
                experiment = try? JSONDecoder().decode(Experiment.self, from: raw.jsonData())
            }
            return .paywall(
                Paywall(
                    placement: value["placement"]?.stringValue ?? request.placement, paywallId: paywallId,
                    version: version, schemaVersion: schemaVersion,
                    locale: value["locale"]?.stringValue ?? headers["content-language"] ?? "",
                    content: .document(document), experiment: experiment, source: source, etag: etag))
        case .page:
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
            return .paywall(
                Paywall(
                    placement: request.placement, paywallId: paywallId, version: version,
                    schemaVersion: schemaVersion, locale: headers["content-language"] ?? "",
                    content: .page(html), experiment: experiment, source: source, etag: etag))
        }
    }
}
