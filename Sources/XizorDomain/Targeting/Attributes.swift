/// What a condition's `key` names. Three namespaces, so the server's own knowledge of a request
/// never collides with what an app puts in its context:
/// - `context.KEY`, or a bare `KEY` (rules written before namespaces existed keep their meaning):
///   the request's `context.KEY=VALUE` query parameters;
/// - `device.NAME`: request attributes the client library sends as headers (`RequestAttributes`);
/// - `subscriber.KEY`: attributes stored for the request's `subscriberId`.
public enum AttributeKey: Sendable, Hashable {
    case context(String)
    case device(RequestAttributes.Name)
    case subscriber(String)

    /// Nil with a message when the key names nothing (`device.foo`, an empty name after a prefix).
    public static func parse(_ key: String) -> Result<AttributeKey, KeyError> {
        if key.hasPrefix("device.") {
            let name = String(key.dropFirst("device.".count))
            guard let known = RequestAttributes.Name(rawValue: name) else {
                return .failure(.unknownDeviceAttribute(name))
            }
            return .success(.device(known))
        }
        for (prefix, make) in [("subscriber.", AttributeKey.subscriber), ("context.", AttributeKey.context)]
        where key.hasPrefix(prefix) {
            let name = String(key.dropFirst(prefix.count))
            guard !name.isEmpty else { return .failure(.emptyName(prefix)) }
            return .success(make(name))
        }
        return .success(.context(key))
    }

    public enum KeyError: Error, Sendable, Equatable {
        case unknownDeviceAttribute(String)
        case emptyName(String)

        public var message: String {
            switch self {
            case .unknownDeviceAttribute(let name):
                "'device.\(name)' is not a request attribute; use one of \(RequestAttributes.Name.allCases.map { "device.\($0.rawValue)" }.joined(separator: ", "))."
            case .emptyName(let prefix): "'\(prefix)' needs a name after it."
            }
        }
    }
}

/// What the server knows of a request beyond the app's context: sent by the client library as
/// `X-Xizor-Platform`, `X-Xizor-App-Version`, `X-Xizor-SDK-Version`, `X-Xizor-OS-Version` and
/// `X-Xizor-Device-Locale`; the country from the header a CDN or load balancer sets (configured:
/// `targeting.countryHeader`, trusted over the client) or the `country` query parameter. Read only when a
/// placement's rules read one (`PlacementEntry.readsDevice`), so routing without them costs no header lookup.
public struct RequestAttributes: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        case platform, appVersion, sdkVersion, osVersion, locale, country

        /// The request header the client library sends it in (country: see `countryHeader`).
        public var header: String? {
            switch self {
            case .platform: "X-Xizor-Platform"
            case .appVersion: "X-Xizor-App-Version"
            case .sdkVersion: "X-Xizor-SDK-Version"
            case .osVersion: "X-Xizor-OS-Version"
            case .locale: "X-Xizor-Device-Locale"
            case .country: nil
            }
        }
    }

    /// The longest value taken; a longer one is a 400 (so a rule never compares an unbounded string).
    public static let maxLength = 64

    // One stored property per attribute (not a dictionary): a rule's read is a switch, no hashing.
    private var platform, appVersion, sdkVersion, osVersion, locale, country: String?

    /// None of them: what every request's facts start from, until its rules read the device.
    public init() {}

    public init(values: [Name: String]) {
        for (name, value) in values { self[name] = value }
    }

    public subscript(name: Name) -> String? {
        get {
            switch name {
            case .platform: platform
            case .appVersion: appVersion
            case .sdkVersion: sdkVersion
            case .osVersion: osVersion
            case .locale: locale
            case .country: country
            }
        }
        set {
            switch name {
            case .platform: platform = newValue
            case .appVersion: appVersion = newValue
            case .sdkVersion: sdkVersion = newValue
            case .osVersion: osVersion = newValue
            case .locale: locale = newValue
            case .country: country = newValue
            }
        }
    }

    /// From an SDK request: `header` answers a request header's value by name, `countryQuery` is
    /// the `country` query parameter. A value longer than `maxLength` or with control characters is
    /// a 400; the platform is lower-cased and the country upper-cased (ISO 3166-1 alpha-2 as CDNs
    /// send it; a trusted header's value that is not two letters — Cloudflare's `XX`, `T1` — counts
    /// as absent).
    public init(header: (String) -> String?, countryQuery: String?, countryHeader: String?) throws {
        for name in Name.allCases {
            guard let field = name.header, let raw = header(field) else { continue }
            self[name] = try RequestAttributes.checked(raw, what: field)
        }
        if let value = platform, value.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) {
            platform = value.lowercased()
        }
        if let countryHeader, let raw = header(countryHeader), let code = RequestAttributes.country(raw) {
            country = code
        } else if let raw = countryQuery {
            guard let code = RequestAttributes.country(raw) else {
                throw ServiceError(
                    .badRequest, "invalid_country",
                    "'country' is an ISO 3166-1 alpha-2 code (DE, US), not '\(raw.prefix(64))'.")
            }
            country = code
        }
    }

    /// From the dry run's `device.NAME=VALUE` query parameters (the dashboard states what it tests).
    public init(dryRunQuery query: [(String, String)]) throws {
        for (name, value) in query where name.hasPrefix("device.") {
            guard let key = Name(rawValue: String(name.dropFirst("device.".count))) else {
                throw ServiceError.badField(
                    name, "unknown_attribute",
                    AttributeKey.KeyError.unknownDeviceAttribute(String(name.dropFirst(7))).message)
            }
            self[key] = try RequestAttributes.checked(value, what: name)
        }
        platform = platform?.lowercased()
        if let raw = country {
            guard let code = RequestAttributes.country(raw) else {
                throw ServiceError(
                    .badRequest, "invalid_country",
                    "'device.country' is an ISO 3166-1 alpha-2 code (DE, US), not '\(raw)'.")
            }
            country = code
        }
    }

    private static func checked(_ raw: String, what: String) throws -> String {
        // ASCII controls are single bytes in UTF-8, so a byte scan finds them.
        guard raw.utf8.count <= maxLength, raw.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw ServiceError(
                .badRequest, "invalid_request_attribute",
                "\(what) is at most \(maxLength) bytes of printable text.")
        }
        return raw
    }

    static func country(_ raw: String) -> String? {
        let bytes = Array(raw.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return nil }
        let upper = raw.uppercased()
        // Cloudflare's "unknown" and "Tor" markers are not countries.
        return upper == "XX" ? nil : upper
    }
}
