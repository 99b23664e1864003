import Foundation

/// What to present for a placement.
public enum PaywallAnswer: Sendable, Equatable {
    case paywall(Paywall)
    /// The subscriber is in an experiment's holdout (the server answered 204, or the subscriber's
    /// bucket falls in the holdout of the allocation it answered): show nothing.
    case holdout(experimentId: String)

    public var paywall: Paywall? { if case .paywall(let paywall) = self { return paywall } else { return nil } }
}

/// A paywall to present, with what the server decided about it (sent back on every event).
public struct Paywall: Sendable, Equatable {
    public var placement: String
    public var paywallId: String
    public var version: Int
    /// The document format served (at most `XizorConfiguration.schemaVersion`).
    public var schemaVersion: Int
    public var locale: String
    public var content: Content
    public var experiment: Experiment?
    /// Where this answer came from on this call.
    public var source: Source
    /// The representation's strong tag (nil for bundled fallbacks).
    public var etag: String?
    /// What the signature check said (`XizorConfiguration.verification`): under `.informational` an
    /// answer that failed it is still delivered, and this says so.
    public var verification: Verification = .notRequested

    public enum Content: Sendable, Equatable {
        /// The paywall document, for a native renderer.
        case document(JSONValue)
        /// The self-contained HTML page, for a web view (`PaywallFormat.page`).
        case page(String)
    }

    public enum Source: Sendable, Equatable {
        /// A fresh 200 from the server.
        case network
        /// The server confirmed the cached copy (304).
        case revalidated
        /// The disk cache, because the network did not answer in time or failed.
        case cache
        /// The bundled fallback file, because there was neither network nor cache.
        case fallback
    }

    public var document: JSONValue? { if case .document(let value) = content { return value } else { return nil } }
    public var page: String? { if case .page(let value) = content { return value } else { return nil } }
}

/// The experiment that decided a presentation.
public struct Experiment: Sendable, Equatable, Codable {
    public var id: String
    /// The variant's name, `control`, or nil in the holdout.
    public var variant: String?
    public var holdout: Bool
    /// `client` (this device computed the bucket from the server's allocation), `bucket` (the server
    /// hashed the subscriber id) or `no_subscriber` (answered from the control).
    public var assignment: String?
}

/// JSON for a native renderer, or the server-rendered page for a web view.
public enum PaywallFormat: String, Sendable, Codable {
    case document
    case page
}

public enum ColorScheme: String, Sendable, Codable {
    case light
    case dark
}

/// A presentation context value (`context.KEY`), typed as the server types it.
public enum ContextValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral
{
    case string(String)
    case number(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The query form: the server turns `true`/`false` into booleans and JSON numbers into numbers.
    var queryValue: String {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "true" : "false"
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    var json: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .number(let value): .number(value)
        case .bool(let value): .bool(value)
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
