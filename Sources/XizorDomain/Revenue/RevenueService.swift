import Digest
import PaywallFormat
import StoreSignatures
import Synchronization

/// Verified revenue (docs/revenue.md): the App Store's and RevenueCat's notifications, verified,
/// stored once, and folded into a ledger credited to the paywall presentation that led to each
/// subscription. Shared by the REST routes, the MCP tools and the reports.
public final class RevenueService: Sendable {
    let store: any DataStore
    let clock: Clock
    let verifier: SignedDataVerifier
    let analyticsGate: AnalyticsGate
    /// Folded on demand when an appAccountToken is not mapped yet (`RevenueLedger`).
    let rollups: EventRollupService
    let outboxSignal: WakeSignal
    /// Notifications by source and outcome (`stored`, `duplicate`, or a refusal's reason), for `/metrics`.
    public let counters = Mutex<[StoreSource: [String: Int]]>([:])

    public init(
        store: any DataStore, clock: Clock, verifier: SignedDataVerifier, analyticsGate: AnalyticsGate,
        rollups: EventRollupService, outboxSignal: WakeSignal
    ) {
        self.rollups = rollups
        self.store = store
        self.clock = clock
        self.verifier = verifier
        self.analyticsGate = analyticsGate
        self.outboxSignal = outboxSignal
    }

    /// The verifier of App Store signatures: Apple Root CA - G3 (compiled in) and the operator's
    /// `stores.apple.rootCertificates` (DER or PEM), e.g. a test root.
    public static func appleVerifier(extraRoots: [[UInt8]]) throws(SignedDataVerifier.CertificateError)
        -> SignedDataVerifier
    {
        try SignedDataVerifier(rootCertificates: [AppleRootCertificates.appleRootCAG3] + extraRoots)
    }

    // MARK: Settings

    public func settings(appID: String) throws -> RevenueSettings {
        try store.read { tx in try tx.revenue.settings(appID: appID) } ?? .unconfigured
    }

    /// Applies a JSON merge patch of `{apple: {bundleId, appAppleId} | null, revenueCat: {authorization} | null,
    /// attributionWindowHours}` (absent: unchanged; null: removed). Audited; the authorization is kept hashed.
    public func updateSettings(appID: String, patch: JSONValue) throws -> RevenueSettings {
        guard let fields = patch.objectValue else {
            throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object.")
        }
        for key in fields.keys where !["apple", "revenueCat", "attributionWindowHours"].contains(key) {
            throw ServiceError.badField(
                "$.\(key)", "unknown_field", "Settings are 'apple', 'revenueCat' and 'attributionWindowHours'.")
        }
        let now = clock.now()
        return try store.write { tx in
            let current = try tx.revenue.settings(appID: appID) ?? .unconfigured
            var next = current
            if let apple = fields["apple"] {
                if apple.isNull {
                    next.appleBundleID = nil
                    next.appleAppID = nil
                } else {
                    guard apple.objectValue != nil else {
                        throw ServiceError.badField("$.apple", "type_mismatch", "'apple' is an object or null.")
                    }
                    if let bundle = try apple.optionalString("bundleId", path: "$.apple") {
                        guard (1...255).contains(bundle.utf8.count), !bundle.contains(where: \.isWhitespace) else {
                            throw ServiceError.badField(
                                "$.apple.bundleId", "invalid_bundle_id",
                                "A bundle id is 1 to 255 characters, no spaces.")
                        }
                        next.appleBundleID = bundle
                    }
                    if let raw = apple["appAppleId"] {
                        guard raw.isNull || (raw.numberValue?.int64Value).map({ $0 > 0 }) == true else {
                            throw ServiceError.badField(
                                "$.apple.appAppleId", "type_mismatch",
                                "'appAppleId' is App Store Connect's numeric Apple ID.")
                        }
                        next.appleAppID = raw.numberValue?.int64Value
                    }
                    guard next.appleBundleID != nil else {
                        throw ServiceError.badField(
                            "$.apple.bundleId", "missing_required_field",
                            "Apple's notifications need the app's bundleId.")
                    }
                }
            }
            if let revenueCat = fields["revenueCat"] {
                if revenueCat.isNull {
                    next.revenueCatAuthorizationHash = nil
                } else {
                    // At least 16 characters: it is the only proof a RevenueCat event carries, kept as an
                    // unsalted hash, so it must not be guessable.
                    guard let value = revenueCat["authorization"]?.stringValue, (16...500).contains(value.utf8.count)
                    else {
                        throw ServiceError.badField(
                            "$.revenueCat.authorization", "invalid_authorization",
                            "'authorization' is the Authorization header value you set in RevenueCat, 16 to 500 characters."
                        )
                    }
                    next.revenueCatAuthorizationHash = SHA256.hexDigest(of: value)
                }
            }
            if let window = fields["attributionWindowHours"] {
                guard let hours = window.intValue, (1...RevenueSettings.maximumAttributionWindowHours).contains(hours)
                else {
                    throw ServiceError.badField(
                        "$.attributionWindowHours", "number_out_of_range",
                        "'attributionWindowHours' is a whole number of hours from 1 to \(RevenueSettings.maximumAttributionWindowHours)."
                    )
                }
                next.attributionWindowHours = hours
            }
            next.updatedAt = now
            try tx.revenue.saveSettings(appID: appID, next)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .revenueSettingsUpdated, targetKind: "revenue_settings", targetID: appID,
                    before: current.updatedAt == nil ? nil : current.auditBytes, after: next.auditBytes), now: now)
            return next
        }
    }

    // MARK: Notifications

    /// What a notification came to.
    public enum Outcome: String, Sendable {
        case stored, duplicate
    }

    /// App Store Server Notifications V2: verified, then stored and counted in one transaction.
    public func receiveApple(appID: String, body: [UInt8]) throws -> (Outcome, String) {
        let now = clock.now()
        let json = try JSONBody.parse(body)
        return try counted(.apple) {
            let settings = try storedSettings(appID: appID)
            guard settings.appleBundleID != nil else { throw NotificationRefusal.notConfigured }
            // A retry of a notification stored before is answered from one read, without verifying it again
            // (three signature checks) or taking the writer: its id, read unverified, only finds the row.
            if let id = json["signedPayload"]?.stringValue.flatMap(SignedDataVerifier.unverifiedPayload(of:))?[
                "notificationUUID"]?.stringValue,
                try isStored(appID: appID, .apple, id)
            {
                return (.duplicate, id)
            }
            let notification = try AppleNotificationDecoder.decode(
                body: json, rawBody: String(decoding: body, as: UTF8.self), settings: settings, verifier: verifier,
                now: now)
            return try ingest(appID: appID, notification, settings: settings, now: now)
        }
    }

    /// RevenueCat's webhook: the Authorization header checked against the configured value's hash.
    public func receiveRevenueCat(appID: String, authorization: String?, body: [UInt8]) throws -> (Outcome, String) {
        let now = clock.now()
        return try counted(.revenuecat) {
            let settings = try storedSettings(appID: appID)
            guard let expected = settings.revenueCatAuthorizationHash else { throw NotificationRefusal.notConfigured }
            // Hashes compared in constant time: the time taken says nothing of how much of the value matched.
            guard let authorization,
                ConstantTime.equal(Array(SHA256.hexDigest(of: authorization).utf8), Array(expected.utf8))
            else { throw NotificationRefusal.invalidAuthorization }
            let json = try JSONBody.parse(body)
            if let id = json["event"]?["id"]?.stringValue, try isStored(appID: appID, .revenuecat, id) {
                return (.duplicate, id)
            }
            let notification = try RevenueCatDecoder.decode(
                body: json, rawBody: String(decoding: body, as: UTF8.self),
                appleConfigured: settings.appleBundleID != nil, now: now)
            return try ingest(appID: appID, notification, settings: settings, now: now)
        }
    }

    private func isStored(appID: String, _ source: StoreSource, _ id: String) throws -> Bool {
        try store.read { tx in try tx.revenue.hasNotification(appID: appID, source: source, id: id) }
    }

    /// The app's settings, read before the (CPU-bound) verification, outside the writer. An app that
    /// does not exist has none: `not_configured`, which says no more about which apps exist.
    private func storedSettings(appID: String) throws -> RevenueSettings {
        try store.read { tx in try tx.revenue.settings(appID: appID) } ?? .unconfigured
    }

    /// Counts the outcome for `/metrics`, turns a refusal into a 401 (logged with its reason).
    private func counted(_ source: StoreSource, _ body: () throws -> (Outcome, String)) throws -> (Outcome, String) {
        do {
            let result = try body()
            count(source, result.0.rawValue)
            return result
        } catch let refusal as NotificationRefusal {
            count(source, refusal.reason)
            throw ServiceError(
                .unauthorized, "notification_refused", refusal.detail, members: ["reason": .string(refusal.reason)])
        }
    }

    private func count(_ source: StoreSource, _ outcome: String) {
        counters.withLock { $0[source, default: [:]][outcome, default: 0] += 1 }
    }
}

extension RevenueSettings {
    /// What the audit log hashes: every setting, the authorization as its hash.
    var auditBytes: [UInt8] {
        let json: JSONValue = [
            "appleBundleId": appleBundleID.map(JSONValue.string) ?? .null,
            "appleAppId": appleAppID.map { .number(.integer($0)) } ?? .null,
            "revenueCatAuthorization": revenueCatAuthorizationHash.map(JSONValue.string) ?? .null,
            "attributionWindowHours": .number(attributionWindowHours),
        ]
        return Array(json.canonicalString.utf8)
    }

    /// The settings as answered: the authorization only as set or not; the URLs to paste into App
    /// Store Connect and RevenueCat, under `base` (the server's public URL).
    public func json(appID: String, base: String) -> JSONValue {
        [
            "apple": appleBundleID.map { bundle in
                [
                    "bundleId": .string(bundle), "appAppleId": appleAppID.map { .number(.integer($0)) } ?? .null,
                    "notificationURL": .string("\(base)/v1/apps/\(appID)/notifications/apple"),
                ]
            } ?? .null,
            "revenueCat": revenueCatAuthorizationHash == nil
                ? .null
                : [
                    "authorizationSet": true,
                    "webhookURL": .string("\(base)/v1/apps/\(appID)/notifications/revenuecat"),
                ],
            "attributionWindowHours": .number(attributionWindowHours),
            "updatedAt": updatedAt.map { .number(.integer($0)) } ?? .null,
        ]
    }
}
