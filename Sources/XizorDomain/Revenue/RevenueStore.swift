/// All SQL of verified revenue (docs/revenue.md): settings, the notifications, the ledger of
/// subscriptions and transactions, its rollups, and the appAccountToken map.
public protocol RevenueStore {
    func settings(appID: String) throws -> RevenueSettings?
    func saveSettings(appID: String, _ settings: RevenueSettings) throws

    /// Whether the store's notification `id` is stored (a retry is answered without verifying it again).
    func hasNotification(appID: String, source: StoreSource, id: String) throws -> Bool
    /// Stores a notification once by its store id; false when it was already there (a retry).
    func insertNotification(appID: String, _ notification: StoreNotification, receivedAt: Int64) throws -> Bool

    func subscription(appID: String, source: StoreSource, originalID: String) throws -> StoredSubscription?
    func insertSubscription(appID: String, source: StoreSource, _ subscription: StoredSubscription) throws
    func setPhase(appID: String, source: StoreSource, originalID: String, _ phase: SubscriptionPhase) throws

    /// Whether a transaction was already counted as money in (a trial start, purchase, conversion or
    /// renewal): another notification announcing it again counts nothing.
    func paymentCounted(appID: String, source: StoreSource, transactionID: String) throws -> Bool

    /// Records a transaction once per (id, kind); false when it was already counted.
    func insertTransaction(
        appID: String, source: StoreSource, _ facts: StoreTransactionFacts, kind: MoneyKind, notificationID: String
    ) throws -> Bool

    /// Adds `figures` (one currency's) to the rollup row of a credit, environment and cohort day.
    func addToRollup(
        appID: String, credit: RevenueCredit, environment: DataEnvironment, day: Int64, currency: String,
        _ figures: VerifiedFigures
    ) throws

    /// Sets progress bits of a subscriber in an experiment arm; answers the bits newly set (0: none).
    func addProgress(
        appID: String, experimentID: String, variant: String, environment: DataEnvironment, subscriberID: String,
        bits: Int
    ) throws -> Int
    func countArm(
        appID: String, experimentID: String, variant: String, environment: DataEnvironment, newBits: Int
    ) throws

    /// The subscriber an appAccountToken was derived from, among those who opened a paywall.
    func subscriber(appID: String, token: String) throws -> String?
    /// Records tokens (ignoring those known).
    func recordTokens(appID: String, _ pairs: [(token: String, subscriberID: String)]) throws

    /// The subscriber's last `paywall_open` of `environment` in (after, upTo].
    func lastPresentation(
        appID: String, subscriberID: String, environment: DataEnvironment, after: Int64, upTo: Int64
    ) throws -> RevenueCredit?

    /// Summed rollups: per credit key chosen by `grouping`, over cohort days [fromDay, toDay).
    func figures(
        appID: String, scope: VerifiedScope, environments: [DataEnvironment], fromDay: Int64?, toDay: Int64?
    ) throws -> [String: VerifiedFigures]
    func armCounts(appID: String, experimentID: String, environments: [DataEnvironment]) throws -> [String:
        VerifiedArmCounts]

    /// A subscriber's erasure: their token, their name on subscriptions, their arm progress.
    func forget(appID: String, subscriberID: String) throws
}

/// Which rows a report sums, and what it groups them by.
public enum VerifiedScope: Sendable {
    /// The whole app, grouped "attributed" / "unattributed".
    case app
    /// One paywall's rows (of one placement, when given), grouped by version (as text).
    case paywall(String, placement: String?)
    /// One experiment's rows, grouped by variant.
    case experiment(String)
}
