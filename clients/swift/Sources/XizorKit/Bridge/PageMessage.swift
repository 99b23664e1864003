import Foundation

/// What the server decided for a presentation, as the page carries it on `ready` and `event`.
public struct Attribution: Sendable, Equatable {
    public var placement: String?
    public var paywallId: String?
    public var version: Int?
    public var experimentId: String?
    public var variant: String?

    init(_ message: [String: JSONValue]) {
        placement = message["placement"]?.stringValue
        paywallId = message["paywallId"]?.stringValue
        version = message["version"]?.intValue
        experimentId = message["experimentId"]?.stringValue
        variant = message["variant"]?.stringValue
    }
}

/// A message from the page to the app (docs/renderer.md, "The bridge").
public enum PageMessage: Sendable, Equatable {
    /// Always first: answer with `HostMessage.products` before showing the web view.
    case ready(paywallId: String?, schemaVersion: Int?, locale: String?, attribution: Attribution)
    case purchase(slot: String, storeProductId: String?)
    case restore
    case close
    case openURL(String)
    case custom(name: String, payload: JSONValue?)
    /// A duration timer without a known start: answer with `HostMessage.timerStart`.
    case timerStart(paywallId: String?, nodeId: String, durationSeconds: Double?)
    /// A funnel event to forward to the queue (`XizorEvent(pageEvent:)`).
    case event(name: String, properties: [String: JSONValue], attribution: Attribution)
    /// A message this version of XizorKit does not know (a newer page): ignore it.
    case unknown(type: String?)

    /// Decodes a message; what is not a message at all (not an object, a required field missing
    /// or of the wrong type) throws, so a host can log it instead of acting on half of it.
    public init(json: JSONValue) throws {
        guard case .object(let message) = json else { throw BridgeError.notAnObject }
        func required(_ key: String) throws -> String {
            guard let value = message[key]?.stringValue else {
                throw BridgeError.missing(key, type: message["type"]?.stringValue)
            }
            return value
        }
        switch message["type"]?.stringValue {
        case "ready":
            self = .ready(
                paywallId: message["paywallId"]?.stringValue, schemaVersion: message["schemaVersion"]?.intValue,
                locale: message["locale"]?.stringValue, attribution: Attribution(message))
        case "purchase":
            // Schema version 3 pages name the product per store: this library runs on Apple platforms, so the App Store's.
            self = .purchase(
                slot: try required("slot"),
                storeProductId: message["storeProductIds"]?["appStore"]?.stringValue
                    ?? message["storeProductId"]?.stringValue)
        case "restore": self = .restore
        case "close": self = .close
        case "open_url": self = .openURL(try required("url"))
        case "custom": self = .custom(name: try required("name"), payload: message["payload"])
        case "timer_start":
            self = .timerStart(
                paywallId: message["paywallId"]?.stringValue, nodeId: try required("nodeId"),
                durationSeconds: message["durationSeconds"]?.numberValue)
        case "event":
            self = .event(
                name: try required("name"), properties: message["properties"]?.objectValue ?? [:],
                attribution: Attribution(message))
        case let other:
            self = .unknown(type: other)
        }
    }

    /// A message as a host receives it: an object (WebKit's `WKScriptMessage.body`), a JSON
    /// string (React Native's `postMessage`), or JSON bytes.
    public init(body: Any) throws {
        switch body {
        case let data as Data: try self.init(json: JSONValue.decode(data))
        case let string as String: try self.init(json: JSONValue.decode(Data(string.utf8)))
        default:
            guard JSONSerialization.isValidJSONObject(body) else { throw BridgeError.notAnObject }
            try self.init(json: JSONValue.decode(JSONSerialization.data(withJSONObject: body)))
        }
    }
}

/// A purchase the page asked for, as the host hands it to the app.
public struct PurchaseRequest: Sendable, Equatable {
    /// The slot the page's button names.
    public var slot: String
    /// The slot's App Store product id, when the page names one.
    public var storeProductId: String?
    /// `Xizor.appAccountToken(for:)` of the subscriber the paywall was loaded for (nil when it was
    /// loaded without one): pass it to StoreKit, `product.purchase(options: [.appAccountToken(token)])`,
    /// so the store's notifications credit the purchase to this paywall (docs/revenue.md).
    public var appAccountToken: UUID?

    public init(slot: String, storeProductId: String? = nil, appAccountToken: UUID? = nil) {
        self.slot = slot
        self.storeProductId = storeProductId
        self.appAccountToken = appAccountToken
    }

    /// The request of a `purchase` message, for a paywall loaded for `subscriberId`; nil for other messages.
    public init?(_ message: PageMessage, subscriberId: String?) {
        guard case .purchase(let slot, let storeProductId) = message else { return nil }
        self.init(
            slot: slot, storeProductId: storeProductId, appAccountToken: subscriberId.map(Xizor.appAccountToken(for:)))
    }
}

public enum BridgeError: Error, Sendable, Equatable {
    case notAnObject
    case missing(String, type: String?)
}

extension XizorEvent {
    /// The event a page posted, with the attribution the page carries (or, for a page without
    /// one, the presentation's).
    public init?(pageMessage: PageMessage, paywall: Paywall? = nil, subscriberId: String? = nil, date: Date = Date()) {
        guard case .event(let name, let properties, let attribution) = pageMessage else { return nil }
        self.init(
            name: name, paywall: paywall, subscriberId: subscriberId, properties: properties.isEmpty ? nil : properties,
            date: date)
        if let paywallId = attribution.paywallId {
            placement = attribution.placement ?? placement
            self.paywallId = paywallId
            version = attribution.version
            experimentId = attribution.experimentId
            variant = attribution.variant
        }
    }
}
