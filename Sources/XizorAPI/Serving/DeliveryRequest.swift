import HTTP
import PaywallFormat
import XizorDomain

/// What an SDK request asks for, read from its query and headers. Noncopyable, lent to the delivery
/// (`borrowing`): as a copyable struct of a dozen fields it was copied out of its initialiser (about
/// 330 instructions of every SDK request), and as a class it cost an allocation and a release.
public struct DeliveryRequest: ~Copyable, Sendable {
    /// The placement's key with its hash (from the route memo on the SDK path: `HashedName`).
    public let placementName: HashedName
    public var placement: String { placementName.text }
    public let locale: String?
    public let acceptLanguage: String?
    public let schemaVersion: Int
    public let colorScheme: ColorScheme
    public let context: PresentationContext
    public let subscriberID: String?
    public let kind: RepresentationKey.Kind
    /// Whether the locale and the colour scheme came from the URL: otherwise the headers that chose
    /// them decide the answer, and a shared cache must vary on them.
    public let localeInURL: Bool
    public let colorSchemeInURL: Bool
    /// `X-Xizor-Nonce`: the client's challenge, signed into the answer's signature (which makes the
    /// answer the request's own: never kept by a shared cache).
    public let nonce: String?
    /// `?experiment=…&variant=…`: the variant a client that buckets itself asks for.
    public let chosenVariant: (experimentID: String, variant: String)?

    /// The longest nonce taken.
    public static let maxNonceLength = 128

    /// Reads the SDK parameters; 400 for a malformed `X-Xizor-Schema-Version` or colour scheme.
    public init(_ request: borrowing HTTPRequest, placement: HashedName) throws {
        // Most SDK requests have no query: its seven parameters are then not looked for one by one
        // (asked through a function, not an optional copy of the request, which retained it).
        let hasQuery = request.hasQueryParameters
        func query(_ name: String) -> String? { hasQuery ? request.query(name) : nil }
        // What can be refused is read first: a noncopyable value is not left half made by a throw.
        let schemaVersion = try DeliveryRequest.schemaVersion(
            header: request.header(lowercased: "x-xizor-schema-version"))
        // The client hint is a structured-field string: `"dark"`.
        let schemeText =
            query("colorScheme")
            ?? request.header(lowercased: "sec-ch-prefers-color-scheme").map {
                $0.hasPrefix("\"") && $0.hasSuffix("\"") && $0.count >= 2 ? String($0.dropFirst().dropLast()) : $0
            }
        var colorScheme = ColorScheme.light
        if let schemeText {
            guard let scheme = ColorScheme(rawValue: schemeText) ?? ColorScheme(rawValue: schemeText.lowercased())
            else {
                throw ServiceError(
                    .badRequest, "invalid_color_scheme", "colorScheme is 'light' or 'dark', not '\(schemeText)'.")
            }
            colorScheme = scheme
        }
        let nonce = try request.header(lowercased: "x-xizor-nonce").map(DeliveryRequest.checkedNonce)
        let chosenVariant: (experimentID: String, variant: String)?
        switch (query("experiment"), query("variant")) {
        case (nil, nil): chosenVariant = nil
        case (let experiment?, let variant?) where !experiment.isEmpty && !variant.isEmpty:
            chosenVariant = (experiment, variant)
        default:
            throw ServiceError(
                .badRequest, "invalid_variant_request",
                "'experiment' and 'variant' are given together (the variant a client bucketed itself into), or neither."
            )
        }
        placementName = placement
        self.schemaVersion = schemaVersion
        self.colorScheme = colorScheme
        self.nonce = nonce
        self.chosenVariant = chosenVariant
        locale = query("locale")
        acceptLanguage = request.header(.acceptLanguage)
        context = hasQuery ? request.presentationContext : [:]
        // In a header, the subscriber never splits a shared cache's key (the URL); the query
        // parameter (older clients) still works.
        subscriberID = query("subscriberId") ?? request.header(lowercased: "x-xizor-subscriber-id")
        kind = DeliveryRequest.prefersHTML(request.header(.accept)) ? .html : .json
        localeInURL = locale != nil
        colorSchemeInURL = query("colorScheme") != nil
    }

    /// 1 to 128 visible ASCII characters: it is copied into a signed message.
    static func checkedNonce(_ raw: String) throws -> String {
        guard !raw.isEmpty, raw.utf8.count <= maxNonceLength, raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ServiceError(
                .badRequest, "invalid_nonce",
                "X-Xizor-Nonce is 1 to \(maxNonceLength) visible ASCII characters (base64 of random bytes, say).")
        }
        return raw
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
