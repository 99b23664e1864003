import PaywallFormat

/// Where a verified notification came from.
public enum StoreSource: String, Sendable, CaseIterable {
    case apple, revenuecat
}

/// An app's store settings (docs/revenue.md, "Setting up"). The RevenueCat authorization value is
/// write-only: only its SHA-256 is kept.
public struct RevenueSettings: Sendable, Equatable {
    public var appleBundleID: String?
    public var appleAppID: Int64?
    /// SHA-256 (hex) of the `Authorization` value RevenueCat sends.
    public var revenueCatAuthorizationHash: String?
    public var attributionWindowHours: Int
    public var updatedAt: Int64?

    public static let defaultAttributionWindowHours = 24
    public static let maximumAttributionWindowHours = 720

    public static let unconfigured = RevenueSettings(
        appleBundleID: nil, appleAppID: nil, revenueCatAuthorizationHash: nil,
        attributionWindowHours: defaultAttributionWindowHours, updatedAt: nil)

    public init(
        appleBundleID: String?, appleAppID: Int64?, revenueCatAuthorizationHash: String?, attributionWindowHours: Int,
        updatedAt: Int64?
    ) {
        self.appleBundleID = appleBundleID
        self.appleAppID = appleAppID
        self.revenueCatAuthorizationHash = revenueCatAuthorizationHash
        self.attributionWindowHours = attributionWindowHours
        self.updatedAt = updatedAt
    }
}

/// The facts of one store transaction the ledger counts.
public struct StoreTransactionFacts: Sendable, Equatable {
    public let transactionID: String
    /// The subscription's first transaction (a one-time purchase is its own).
    public let originalID: String
    public let productID: String
    /// When the store says the transaction happened (a refund: when it was refunded), ms.
    public let occurredAt: Int64
    /// Integer milliunits of `currency` (9.99 → 9990), never negative: a refund's sign is its kind.
    public let amount: Int64
    public let currency: String

    public init(
        transactionID: String, originalID: String, productID: String, occurredAt: Int64, amount: Int64, currency: String
    ) {
        self.transactionID = transactionID
        self.originalID = originalID
        self.productID = productID
        self.occurredAt = occurredAt
        self.amount = amount
        self.currency = currency
    }
}

extension StoreTransactionFacts {
    /// The most one transaction may move: 10,000,000 units of its currency (in milliunits). A price
    /// past it is no store's; the bound keeps every sum of a report far from Int64's range.
    public static let maximumMilliunits: Int64 = 10_000_000_000
    /// The App Store opened in July 2008: no store transaction is older.
    static let earliest: Int64 = 1_214_870_400_000
    /// How far ahead of the server's clock a store's timestamp may be.
    static let aheadMs: Int64 = 2 * 86_400_000

    /// An id as stores write them: 1 to `max` characters, no control characters (which PostgreSQL's
    /// text refuses, and no store sends).
    static func isPlainID(_ text: String, max: Int = 200) -> Bool {
        (1...max).contains(text.utf8.count) && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }

    /// Facts a store sent, each checked: ids, a plausible time, an amount within bounds, and an ISO
    /// 4217 code (three letters; "XXX", ISO's "no currency", when none is sent). 422 naming `path`.
    static func checked(
        transactionID: String, originalID: String?, productID: String?, occurredAt: Int64, milliunits: Int64,
        currency: String?, path: String, now: Int64
    ) throws -> StoreTransactionFacts {
        let original = originalID.flatMap { $0.isEmpty ? nil : $0 } ?? transactionID
        guard isPlainID(transactionID), isPlainID(original), productID.map({ $0.isEmpty || isPlainID($0) }) ?? true
        else {
            throw ServiceError.badField(
                path, "invalid_transaction",
                "Transaction and product ids are 1 to 200 characters without control characters.")
        }
        guard (earliest...(now + aheadMs)).contains(occurredAt) else {
            throw ServiceError.badField(
                path, "invalid_transaction", "The transaction's time is not between July 2008 and two days from now.")
        }
        guard (0...maximumMilliunits).contains(milliunits) else {
            throw ServiceError.badField(path, "number_out_of_range", "The transaction's price is out of range.")
        }
        let code = currency.map { $0.uppercased() } ?? "XXX"
        guard code.utf8.count == 3, code.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else {
            throw ServiceError.badField(path, "invalid_currency", "A currency is an ISO 4217 code of three letters.")
        }
        return StoreTransactionFacts(
            transactionID: transactionID, originalID: original, productID: productID ?? "", occurredAt: occurredAt,
            amount: milliunits, currency: code)
    }
}

/// What a notification does to the ledger; notifications of status only (cancellation, expiry,
/// billing issue…) have none: they are stored, and count nothing.
public enum StoreEffect: Sendable, Equatable {
    /// The first transaction of a subscription, or a one-time purchase: a trial start or a payment.
    case start(StoreTransactionFacts, trial: Bool)
    /// A later payment. `trialConversion` is the store's own word where it gives one (RevenueCat's
    /// `is_trial_conversion`); else the subscription's phase decides.
    case payment(StoreTransactionFacts, trialConversion: Bool?)
    case refund(StoreTransactionFacts)

    public var facts: StoreTransactionFacts {
        switch self {
        case .start(let facts, _), .payment(let facts, _), .refund(let facts): facts
        }
    }
}

/// Who a notification is about, as the store names them.
public enum SubscriberReference: Sendable, Equatable {
    /// Apple's `appAccountToken`: XizorKit's name-based UUID of the subscriber id.
    case appAccountToken(String)
    /// RevenueCat's `app_user_id`, which apps set to the subscriber id.
    case subscriberID(String)
}

/// A verified notification, decoded into what the ledger needs.
public struct StoreNotification: Sendable {
    public let source: StoreSource
    /// The store's id of the notification: the key that makes its retries count once.
    public let id: String
    public let type: String
    public let environment: DataEnvironment
    public let subscriber: SubscriberReference?
    public let effect: StoreEffect?
    /// The body as received, kept for audit and reprocessing.
    public let body: String
}

/// How a transaction counts (`store_transactions.kind`).
public enum MoneyKind: String, Sendable, CaseIterable {
    case trialStart = "trial_start", purchase, conversion, renewal, refund

    /// The webhook it announces.
    var webhook: WebhookEventType {
        switch self {
        case .trialStart, .purchase: .purchaseVerified
        case .conversion: .trialConverted
        case .renewal: .subscriptionRenewed
        case .refund: .subscriptionRefunded
        }
    }

    /// The progress bits of an experiment arm's subscriber it sets (`verified_subscribers.progress`).
    var progress: Int {
        switch self {
        case .trialStart: VerifiedProgress.trialStarted
        case .purchase, .renewal: VerifiedProgress.paid
        case .conversion: VerifiedProgress.paid | VerifiedProgress.trialConverted
        case .refund: VerifiedProgress.refunded
        }
    }
}

/// The bits of `verified_subscribers.progress`.
public enum VerifiedProgress {
    public static let trialStarted = 1
    public static let paid = 2
    public static let trialConverted = 4
    public static let refunded = 8
}

/// A subscription's phase: a state machine with explicit transitions, so a renewal knows whether it is
/// a trial's conversion.
public enum SubscriptionPhase: String, Sendable {
    case trial, paid

    /// The phase a subscription starts in and how its first transaction counts.
    static func start(trial: Bool) -> (SubscriptionPhase, MoneyKind) {
        trial ? (.trial, .trialStart) : (.paid, .purchase)
    }

    /// A start announced for a subscription already known (a resubscription, or a start arriving after
    /// a renewal): a trial start leaves the phase as it is; a paid start is a purchase — never taken for a
    /// trial's conversion.
    func restart(trial: Bool) -> (SubscriptionPhase, MoneyKind) { trial ? (self, .trialStart) : (.paid, .purchase) }

    /// A payment: in a trial it is the conversion (the store may say so itself), after it a renewal.
    func pay(storeSaysConversion: Bool?) -> (SubscriptionPhase, MoneyKind) {
        switch (self, storeSaysConversion) {
        case (_, true?), (.trial, nil): (.paid, .conversion)
        case (.trial, false?), (.paid, _): (.paid, .renewal)
        }
    }
}

/// Where a subscription's first transaction was credited: the subscriber's last paywall presentation
/// within the attribution window, or nothing (`unattributed`: '' and version 0 in the tables).
public struct RevenueCredit: Sendable, Equatable {
    public let placement: String
    public let paywallID: String
    public let version: Int
    public let experimentID: String
    public let variant: String

    public static let unattributed = RevenueCredit(
        placement: "", paywallID: "", version: 0, experimentID: "", variant: "")

    public var isAttributed: Bool { !paywallID.isEmpty }

    public init(placement: String, paywallID: String, version: Int, experimentID: String, variant: String) {
        self.placement = placement
        self.paywallID = paywallID
        self.version = version
        self.experimentID = experimentID
        self.variant = variant
    }

    var json: JSONValue {
        guard isAttributed else { return .null }
        return [
            "placement": placement.isEmpty ? .null : .string(placement), "paywallId": .string(paywallID),
            "version": .number(version), "experimentId": experimentID.isEmpty ? .null : .string(experimentID),
            "variant": variant.isEmpty ? .null : .string(variant),
        ]
    }
}

/// A subscription as stored.
public struct StoredSubscription: Sendable, Equatable {
    public let originalID: String
    public let environment: DataEnvironment
    public let subscriberID: String?
    public let productID: String
    public var phase: SubscriptionPhase
    public let creditedAt: Int64
    public let credit: RevenueCredit

    public init(
        originalID: String, environment: DataEnvironment, subscriberID: String?, productID: String,
        phase: SubscriptionPhase, creditedAt: Int64, credit: RevenueCredit
    ) {
        self.originalID = originalID
        self.environment = environment
        self.subscriberID = subscriberID
        self.productID = productID
        self.phase = phase
        self.creditedAt = creditedAt
        self.credit = credit
    }
}

/// One verified rollup row's worth of change, or a report's sum of rows.
public struct VerifiedFigures: Sendable, Equatable {
    public var trialStarts: Int64 = 0
    public var trialConversions: Int64 = 0
    public var paidConversions: Int64 = 0
    public var renewals: Int64 = 0
    public var refunds: Int64 = 0
    /// Per currency, milliunits.
    public var money: [String: VerifiedMoney] = [:]

    public init() {}

    /// Saturating: each transaction is bounded (`StoreTransactionFacts.maximumMilliunits`), so a sum
    /// reaching Int64's range is not a real figure, and must not stop the process.
    public static func + (a: VerifiedFigures, b: VerifiedFigures) -> VerifiedFigures {
        var sum = a
        sum.trialStarts = saturating(a.trialStarts, b.trialStarts)
        sum.trialConversions = saturating(a.trialConversions, b.trialConversions)
        sum.paidConversions = saturating(a.paidConversions, b.paidConversions)
        sum.renewals = saturating(a.renewals, b.renewals)
        sum.refunds = saturating(a.refunds, b.refunds)
        for (currency, money) in b.money { sum.money[currency, default: VerifiedMoney()] += money }
        return sum
    }
}

/// Money of one currency, in milliunits.
public struct VerifiedMoney: Sendable, Equatable {
    public var gross: Int64 = 0
    public var refunded: Int64 = 0
    public var net7d: Int64 = 0
    public var net30d: Int64 = 0
    public var net90d: Int64 = 0

    public init() {}
    public init(gross: Int64, refunded: Int64, net7d: Int64, net30d: Int64, net90d: Int64) {
        self.gross = gross
        self.refunded = refunded
        self.net7d = net7d
        self.net30d = net30d
        self.net90d = net90d
    }

    public static func += (a: inout VerifiedMoney, b: VerifiedMoney) {
        a.gross = saturating(a.gross, b.gross)
        a.refunded = saturating(a.refunded, b.refunded)
        a.net7d = saturating(a.net7d, b.net7d)
        a.net30d = saturating(a.net30d, b.net30d)
        a.net90d = saturating(a.net90d, b.net90d)
    }
}

/// a + b, held at Int64's bounds instead of trapping.
func saturating(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? .max : .min) : sum
}

/// An experiment arm's distinct verified subscribers.
public struct VerifiedArmCounts: Sendable, Equatable {
    public var trialStarted: Int = 0
    public var paid: Int = 0
    public var trialConverted: Int = 0
    public var refunded: Int = 0
    public init() {}
}
