import PaywallFormat
import StoreSignatures

/// A notification refused before anything was stored: 401 with the reason (docs/revenue.md, "Refusals").
public struct NotificationRefusal: Error, Sendable, Equatable {
    public let reason: String
    public let detail: String

    init(_ failure: SignatureFailure) {
        reason = failure.rawValue
        detail =
            switch failure {
            case .malformed: "The signed payload is not a JWS of three base64url parts of JSON."
            case .unsupportedAlgorithm: "The JWS is not signed with ES256."
            case .invalidChainLength: "The JWS's x5c is not leaf, intermediate and root."
            case .untrustedChain:
                "The certificate chain does not lead to a trusted root, or was not valid when the payload was signed."
            case .missingAppleOID: "A certificate of the chain lacks Apple's object identifier."
            case .invalidSignature: "The JWS's signature does not verify."
            }
    }

    init(reason: String, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    static let notConfigured = NotificationRefusal(
        reason: "not_configured", "This app has no settings for this store (PATCH /v1/revenue/settings).")
    static let invalidAuthorization = NotificationRefusal(
        reason: "invalid_authorization", "The Authorization header is not the value configured for RevenueCat.")

    static func appIdentifier(_ detail: String) -> NotificationRefusal {
        NotificationRefusal(reason: "invalid_app_identifier", detail)
    }
    static func environment(_ detail: String) -> NotificationRefusal {
        NotificationRefusal(reason: "invalid_environment", detail)
    }
}

/// App Store Server Notifications V2: the verified payload, and what the ledger makes of it.
enum AppleNotificationDecoder {
    /// Verifies `signedPayload` and the nested transaction and renewal info as Apple's library does,
    /// then checks they are this app's: `bundleId`, `appAppleId` in production, the environment.
    static func decode(
        body: JSONValue, rawBody: String, settings: RevenueSettings, verifier: SignedDataVerifier, now: Int64
    ) throws -> StoreNotification {
        guard let signedPayload = body["signedPayload"]?.stringValue else {
            throw ServiceError.badField(
                "$.signedPayload", "required", "An App Store Server Notification carries 'signedPayload'.")
        }
        guard let bundleID = settings.appleBundleID else { throw NotificationRefusal.notConfigured }
        let payload = try verified(signedPayload, verifier, now: now)
        let data = payload["data"] ?? payload["summary"] ?? .null
        guard data["bundleId"]?.stringValue == bundleID else {
            throw NotificationRefusal.appIdentifier("The notification's bundleId is not this app's.")
        }
        let environment: DataEnvironment
        switch data["environment"]?.stringValue {
        case "Production":
            environment = .production
            guard let appAppleID = settings.appleAppID, data["appAppleId"]?.numberValue?.int64Value == appAppleID else {
                throw NotificationRefusal.appIdentifier(
                    "A production notification's appAppleId must be this app's (set apple.appAppleId).")
            }
        case "Sandbox": environment = .sandbox
        default:
            throw NotificationRefusal.environment("Only Sandbox and Production notifications are signed by Apple.")
        }
        guard let id = payload["notificationUUID"]?.stringValue, (1...200).contains(id.utf8.count),
            let type = payload["notificationType"]?.stringValue, (1...60).contains(type.utf8.count)
        else {
            throw ServiceError.badField(
                "$.signedPayload", "invalid_notification", "The payload lacks notificationUUID or notificationType.")
        }
        let subtype = payload["subtype"]?.stringValue
        var transaction: JSONValue?
        for field in ["signedTransactionInfo", "signedRenewalInfo"] {
            guard let nested = data[field]?.stringValue else { continue }
            let decoded = try verified(nested, verifier, now: now)
            // Renewal info names no bundle; a transaction must be this app's.
            guard field == "signedRenewalInfo" || decoded["bundleId"]?.stringValue == bundleID else {
                throw NotificationRefusal.appIdentifier("The \(field)'s bundleId is not this app's.")
            }
            guard decoded["environment"]?.stringValue == data["environment"]?.stringValue else {
                throw NotificationRefusal.environment("The \(field)'s environment is not the notification's.")
            }
            if field == "signedTransactionInfo" { transaction = decoded }
        }
        // Family Sharing: each member's copy of a purchase is announced too; the money is the purchaser's,
        // counted once from their own transaction.
        let familyShared = transaction?["inAppOwnershipType"]?.stringValue == "FAMILY_SHARED"
        let effect =
            familyShared
            ? nil
            : try transaction.flatMap { try self.effect(type: type, transaction: $0, signedAt: payload, now: now) }
        let token = transaction?["appAccountToken"]?.stringValue.map { $0.lowercased() }
        return StoreNotification(
            source: .apple, id: id, type: subtype.map { "\(type).\($0)" } ?? type, environment: environment,
            subscriber: token.map(SubscriberReference.appAccountToken), effect: effect, body: rawBody)
    }

    private static func verified(_ jws: String, _ verifier: SignedDataVerifier, now: Int64) throws -> JSONValue {
        do {
            return try verifier.verify(jws, now: now)
        } catch {
            throw NotificationRefusal(error)
        }
    }

    /// SUBSCRIBED starts a subscription (a free trial when the introductory offer is FREE_TRIAL),
    /// ONE_TIME_CHARGE is a purchase, DID_RENEW a payment, REFUND a refund; the rest is status.
    static func effect(type: String, transaction t: JSONValue, signedAt payload: JSONValue, now: Int64) throws
        -> StoreEffect?
    {
        let facts = { (time: JSONValue?) throws -> StoreTransactionFacts in
            guard let id = t["transactionId"]?.stringValue, let occurredAt = time?.numberValue?.int64Value else {
                throw ServiceError.badField(
                    "$.signedPayload", "invalid_transaction",
                    "The signed transaction lacks transactionId or its date.")
            }
            // Apple's price is already in milliunits.
            return try StoreTransactionFacts.checked(
                transactionID: id, originalID: t["originalTransactionId"]?.stringValue,
                productID: t["productId"]?.stringValue, occurredAt: occurredAt,
                milliunits: t["price"]?.numberValue?.int64Value ?? 0, currency: t["currency"]?.stringValue,
                path: "$.signedPayload", now: now)
        }
        switch type {
        case "SUBSCRIBED":
            let trial =
                t["offerType"]?.intValue == 1
                && (t["offerDiscountType"]?.stringValue == "FREE_TRIAL"
                    || (t["offerDiscountType"] == nil && (t["price"]?.numberValue?.int64Value ?? 0) == 0))
            return .start(try facts(t["purchaseDate"]), trial: trial)
        case "ONE_TIME_CHARGE": return .start(try facts(t["purchaseDate"]), trial: false)
        case "DID_RENEW": return .payment(try facts(t["purchaseDate"]), trialConversion: nil)
        case "REFUND": return .refund(try facts(t["revocationDate"] ?? payload["signedDate"]))
        default: return nil
        }
    }
}

/// RevenueCat's webhook events (covering the App Store, Play and the web).
enum RevenueCatDecoder {
    /// `appleConfigured`: the app also receives Apple's own notifications, which count App Store
    /// purchases; RevenueCat's copies of them are then stored and count nothing (never twice).
    static func decode(body: JSONValue, rawBody: String, appleConfigured: Bool, now: Int64) throws
        -> StoreNotification
    {
        guard let event = body["event"], event.objectValue != nil else {
            throw ServiceError.badField("$.event", "required", "A RevenueCat webhook carries 'event'.")
        }
        guard let id = event["id"]?.stringValue, (1...200).contains(id.utf8.count) else {
            throw ServiceError.badField(
                "$.event.id", "required", "A RevenueCat event has an 'id' of 1 to 200 characters.")
        }
        guard let type = event["type"]?.stringValue, (1...60).contains(type.utf8.count) else {
            throw ServiceError.badField("$.event.type", "required", "A RevenueCat event has a 'type'.")
        }
        let environment: DataEnvironment
        switch event["environment"]?.stringValue {
        case "PRODUCTION": environment = .production
        case "SANDBOX", nil: environment = .sandbox
        case let other?:
            throw ServiceError.badField(
                "$.event.environment", "invalid_enum_value", "'environment' is PRODUCTION or SANDBOX, not '\(other)'.")
        }
        let subscriber = event["app_user_id"]?.stringValue.flatMap { StoreTransactionFacts.isPlainID($0) ? $0 : nil }
        // Counted elsewhere: App Store purchases when Apple's own notifications come in, and Family
        // Sharing's copies of a purchase (the purchaser's own transaction carries the money).
        let countedElsewhere =
            (appleConfigured && event["store"]?.stringValue == "APP_STORE")
            || event["is_family_share"]?.boolValue == true
        return StoreNotification(
            source: .revenuecat, id: id, type: type, environment: environment,
            subscriber: subscriber.map(SubscriberReference.subscriberID),
            effect: countedElsewhere ? nil : try effect(type: type, event: event, now: now), body: rawBody)
    }

    /// INITIAL_PURCHASE starts a subscription (a trial when `period_type` is TRIAL), NON_RENEWING_PURCHASE
    /// is a purchase, RENEWAL a payment, a CANCELLATION for CUSTOMER_SUPPORT a refund (RevenueCat's
    /// refund); the rest is status.
    static func effect(type: String, event: JSONValue, now: Int64) throws -> StoreEffect? {
        let facts = { (time: String) throws -> StoreTransactionFacts in
            guard let id = event["transaction_id"]?.stringValue else {
                throw ServiceError.badField(
                    "$.event.transaction_id", "required", "A \(type) event has a 'transaction_id'.")
            }
            guard let occurredAt = event[time]?.numberValue?.int64Value else {
                throw ServiceError.badField("$.event.\(time)", "required", "A \(type) event has '\(time)'.")
            }
            let price = event["price_in_purchased_currency"]?.doubleValue ?? 0
            guard price.isFinite, abs(price) <= Double(StoreTransactionFacts.maximumMilliunits) / 1000 else {
                throw ServiceError.badField(
                    "$.event.price_in_purchased_currency", "number_out_of_range",
                    "A price is at most \(StoreTransactionFacts.maximumMilliunits / 1000) of its currency.")
            }
            return try StoreTransactionFacts.checked(
                transactionID: id, originalID: event["original_transaction_id"]?.stringValue,
                productID: event["product_id"]?.stringValue, occurredAt: occurredAt,
                milliunits: Int64((abs(price) * 1000).rounded()), currency: event["currency"]?.stringValue,
                path: "$.event", now: now)
        }
        switch type {
        case "INITIAL_PURCHASE":
            return .start(try facts("purchased_at_ms"), trial: event["period_type"]?.stringValue == "TRIAL")
        case "NON_RENEWING_PURCHASE": return .start(try facts("purchased_at_ms"), trial: false)
        case "RENEWAL":
            return .payment(try facts("purchased_at_ms"), trialConversion: event["is_trial_conversion"]?.boolValue)
        case "CANCELLATION" where event["cancel_reason"]?.stringValue == "CUSTOMER_SUPPORT":
            return .refund(try facts("event_timestamp_ms"))
        default: return nil
        }
    }
}
