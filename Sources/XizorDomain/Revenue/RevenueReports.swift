import PaywallFormat

/// Reports of verified revenue: the app's totals (attributed and not), and the blocks the funnel and
/// experiment results carry per version and variant. Read from `verified_rollups`, whose rows are per
/// credit, cohort day and currency: a report's price is its rows, not the notifications behind them.
extension RevenueService {
    /// `GET /v1/revenue`: every verified figure of the app, and how much of it no presentation earned.
    /// `from`/`to` choose cohorts: subscriptions credited on the UTC days from `from`'s to before `to`.
    public func report(appID: String, environment: EnvironmentFilter, from: Int64?, to: Int64?) throws -> JSONValue {
        try Self.checkRange(from: from, to: to)
        return try analyticsGate.report(appID: appID) { report in
            let groups = try report.read { tx in
                try tx.revenue.figures(
                    appID: appID, scope: .app, environments: Self.environments(environment),
                    fromDay: from.map { RollupSpan.day.start(of: max(0, $0)) }, toDay: to)
            }
            let attributed = groups["attributed"] ?? VerifiedFigures()
            let unattributed = groups["unattributed"] ?? VerifiedFigures()
            return [
                "environment": .string(environment.rawValue), "source": "verified",
                "total": Self.block(attributed + unattributed), "attributed": Self.block(attributed),
                "unattributed": Self.block(unattributed),
            ]
        }
    }

    static func checkRange(from: Int64?, to: Int64?) throws {
        if let from, let to, from >= to {
            throw ServiceError(.badRequest, "invalid_range", "'from' must be before 'to'.")
        }
    }

    public static func environments(_ filter: EnvironmentFilter) -> [DataEnvironment] {
        filter.only.map { [$0] } ?? DataEnvironment.allCases
    }

    /// A block of verified figures as answered: counts, and money per currency (never summed across
    /// currencies) in the currency's units.
    public static func block(_ figures: VerifiedFigures) -> JSONValue {
        func units(_ milli: Int64) -> JSONValue { .number(Double(milli) / 1000) }
        return [
            "trialStarts": .number(.integer(figures.trialStarts)),
            "trialConversions": .number(.integer(figures.trialConversions)),
            "paidConversions": .number(.integer(figures.paidConversions)),
            "renewals": .number(.integer(figures.renewals)), "refunds": .number(.integer(figures.refunds)),
            "revenue": .array(
                figures.money.sorted { $0.key < $1.key }.map { currency, money in
                    [
                        "currency": .string(currency), "gross": units(money.gross), "refunded": units(money.refunded),
                        "net": units(saturating(money.gross, -money.refunded)), "net7d": units(money.net7d),
                        "net30d": units(money.net30d), "net90d": units(money.net90d),
                    ]
                }),
        ]
    }

    /// Revenue per subscriber of `subscribers` (a version's viewers, a variant's): net per currency.
    public static func perSubscriber(_ figures: VerifiedFigures, subscribers: Int) -> JSONValue {
        .array(
            figures.money.sorted { $0.key < $1.key }.map { currency, money in
                [
                    "currency": .string(currency),
                    "amount": subscribers > 0
                        ? .number(Double(saturating(money.gross, -money.refunded)) / 1000 / Double(subscribers)) : .null
                        ,
                ]
            })
    }
}

/// What experiment results count as a conversion (`?metric=`): the app's own `purchase_completed`
/// events, or the stores' verified figures.
public enum ResultsMetric: String, Sendable, CaseIterable {
    case conversion
    case verifiedConversion = "verified_conversion"
    case trialStart = "trial_start"
    case trialConversion = "trial_conversion"

    public var source: String { self == .conversion ? "client-reported" : "verified" }

    /// Successes among an arm's verified subscribers.
    func successes(_ counts: VerifiedArmCounts) -> Int {
        switch self {
        case .conversion: 0
        case .verifiedConversion: counts.paid
        case .trialStart: counts.trialStarted
        case .trialConversion: counts.trialConverted
        }
    }

    public static func parse(_ raw: String?) throws -> ResultsMetric {
        guard let raw else { return .conversion }
        guard let metric = ResultsMetric(rawValue: raw) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError(.badRequest, "invalid_metric", "'metric' is one of \(names), not '\(raw)'.")
        }
        return metric
    }
}

extension VerifiedArmCounts {
    var json: JSONValue {
        [
            "trialStarted": .number(trialStarted), "paid": .number(paid), "trialConverted": .number(trialConverted),
            "refunded": .number(refunded),
        ]
    }
}
