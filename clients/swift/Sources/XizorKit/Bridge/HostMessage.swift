import Foundation

/// A product as the page shows it: the strings StoreKit formats (`price`, `period`, …).
public struct ProductInfo: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var price: String?
    public var period: String?
    public var pricePerWeek: String?
    public var pricePerMonth: String?
    public var introPrice: String?
    public var introPeriod: String?
    public var trialDays: Int?
    public var currency: String?
    /// `false` hides the intro offer (`introPrice`, `introPeriod`, `trialDays` render empty).
    public var introEligible: Bool?

    public init(
        title: String? = nil, description: String? = nil, price: String? = nil, period: String? = nil,
        pricePerWeek: String? = nil, pricePerMonth: String? = nil, introPrice: String? = nil,
        introPeriod: String? = nil,
        trialDays: Int? = nil, currency: String? = nil, introEligible: Bool? = nil
    ) {
        self.title = title
        self.description = description
        self.price = price
        self.period = period
        self.pricePerWeek = pricePerWeek
        self.pricePerMonth = pricePerMonth
        self.introPrice = introPrice
        self.introPeriod = introPeriod
        self.trialDays = trialDays
        self.currency = currency
        self.introEligible = introEligible
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        let strings: [(String, String?)] = [
            ("title", title), ("description", description), ("price", price), ("period", period),
            ("pricePerWeek", pricePerWeek), ("pricePerMonth", pricePerMonth),
            ("introPrice", introPrice), ("introPeriod", introPeriod), ("currency", currency),
        ]
        for (key, value) in strings { if let value { fields[key] = .string(value) } }
        if let trialDays { fields["trialDays"] = .number(Double(trialDays)) }
        if let introEligible { fields["introEligible"] = .bool(introEligible) }
        return .object(fields)
    }
}

public enum PurchaseState: String, Sendable {
    case pending
    case failed
    case completed
}

/// A message from the app to the page, delivered by `window.xizor.receive(…)`.
public enum HostMessage: Sendable, Equatable {
    /// Fills product variables; `timerStarts` (node id → ms since 1970) and `selected` are optional.
    case products([String: ProductInfo], timerStarts: [String: Int64]? = nil, selected: String? = nil)
    /// Purchase buttons of `slot` (or all) show progress or clear it.
    case purchaseState(PurchaseState, slot: String? = nil)
    /// The persisted start of a duration timer (ms since 1970).
    case timerStart(nodeId: String, startedAt: Int64)
    /// The app is dismissing the page: it sends `paywall_close` once and releases its media.
    case dismiss

    public var json: JSONValue {
        switch self {
        case .products(let products, let timerStarts, let selected):
            var message: [String: JSONValue] = ["type": "products", "products": .object(products.mapValues(\.json))]
            if let timerStarts { message["timerStarts"] = .object(timerStarts.mapValues { .number(Double($0)) }) }
            if let selected { message["selected"] = .string(selected) }
            return .object(message)
        case .purchaseState(let state, let slot):
            var message: [String: JSONValue] = ["type": "purchase_state", "state": .string(state.rawValue)]
            if let slot { message["slot"] = .string(slot) }
            return .object(message)
        case .timerStart(let nodeId, let startedAt):
            return ["type": "timer_start", "nodeId": .string(nodeId), "startedAt": .number(Double(startedAt))]
        case .dismiss:
            return ["type": "dismiss"]
        }
    }

    /// The script a web view evaluates to deliver the message. JSON is a JavaScript expression,
    /// except that U+2028 and U+2029 end lines in older engines: they are escaped.
    public func javaScript() throws -> String {
        let encoded = String(decoding: try json.jsonData(), as: UTF8.self)
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028").replacingOccurrences(of: "\u{2029}", with: "\\u2029")
        return "window.xizor && window.xizor.receive(\(encoded));"
    }
}
