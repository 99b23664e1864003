import Foundation
import PaywallFormat

/// Per-variant results of an experiment. The unit is the subscriber (what was randomised):
/// conversion rate = subscribers who completed a purchase ÷ subscribers who saw the paywall, with a
/// 95 % Wilson score interval; the difference to the control has a 95 % normal (Wald, unpooled)
/// interval. Impressions count every `paywall_open`. Beside them, what a PM acts on: the Bayesian
/// probability that each variant beats the control and is the best (`BetaBinomial`, uniform prior),
/// revenue per subscriber in each currency, and the subscribers per variant still needed to detect
/// a relative change of `minimumDetectableEffect` in the control's rate.
extension ExperimentService {
    static let z95 = 1.959963984540054
    /// The relative change the sample size is computed for unless the request states one.
    public static let defaultMinimumDetectableEffect = 0.1

    /// Counts production events unless `environment` says otherwise (sandbox purchases stay out).
    public func results(
        appID: String, id: String, minimumDetectableEffect mde: Double = defaultMinimumDetectableEffect,
        environment: EnvironmentFilter = .production, metric: ResultsMetric = .conversion
    ) throws -> JSONValue {
        guard mde > 0, mde <= 10 else {
            throw ServiceError.badField(
                "$.minimumDetectableEffect", "number_out_of_range",
                "The minimum detectable effect is a relative change above 0 and at most 10 (0.1 = 10 %).")
        }
        // The whole report — its reads and its posteriors — runs admitted, at the gate's lower priority.
        return try analyticsGate.report(appID: appID) { report in
            // One snapshot: the variants and their counts as of the same moment.
            let (experiment, rolled, verified, arms) = try report.read { tx in
                let environments = RevenueService.environments(environment)
                return (
                    try ExperimentService.load(tx, appID: appID, id: id),
                    try RollupReader.experiment(tx, appID: appID, experimentID: id, environment: environment),
                    try tx.revenue.figures(
                        appID: appID, scope: .experiment(id), environments: environments, fromDay: nil, toDay: nil),
                    try tx.revenue.armCounts(appID: appID, experimentID: id, environments: environments)
                )
            }
            let revenue = rolled.revenue
            // The metric decides what a conversion is: the app's purchase events, or a verified figure
            // of the stores over the same subscribers who saw the variant.
            var counts = rolled.counts
            if metric != .conversion {
                for name in counts.keys where name != "holdout" {
                    // Never more successes than subscribers who saw the variant (a verified payer who
                    // never opened it is counted in `verified`, not in this rate).
                    let seen = counts[name]?.subscribers ?? 0
                    counts[name]?.converted = min(metric.successes(arms[name] ?? VerifiedArmCounts()), seen)
                }
            }
            let control = counts[experiment.variants.first?.name ?? ""] ?? VariantCounts()
            let controlRate = control.subscribers > 0 ? Double(control.converted) / Double(control.subscribers) : nil
            // Variants nobody has seen yet are left out of the comparison (the prior alone would make an
            // empty variant look promising) and answer null; so does "beats the control" while the
            // control has no subscribers.
            let observed = experiment.variants.indices.filter {
                (counts[experiment.variants[$0].name]?.subscribers ?? 0) > 0
            }
            let posteriors = observed.map { index in
                let c = counts[experiment.variants[index].name] ?? VariantCounts()
                return BetaBinomial.Posterior(conversions: min(c.converted, c.subscribers), trials: c.subscribers)
            }
            let best = Dictionary(uniqueKeysWithValues: zip(observed, BetaBinomial.probabilities(posteriors).best))
            var beats: [Int: Double] = [:]
            if observed.first == 0, let controlPosterior = posteriors.first {
                for (position, index) in observed.enumerated().dropFirst() {
                    beats[index] = BetaBinomial.probabilities([controlPosterior, posteriors[position]]).beatsFirst[1]
                }
            }
            let needed = controlRate.flatMap { BetaBinomial.sampleSize(controlRate: $0, relativeEffect: mde) }
            let variants: [JSONValue] = experiment.variants.enumerated().map { index, variant in
                let c = counts[variant.name] ?? VariantCounts()
                var object: [String: JSONValue] = [
                    "name": .string(variant.name), "paywallId": .string(variant.paywallID),
                    "control": .bool(index == 0),
                    "impressions": .number(c.impressions), "uniqueSubscribers": .number(c.subscribers),
                    "conversions": .number(c.converted),
                ]
                object["probabilityToBeatControl"] = beats[index].map(JSONValue.number) ?? .null
                object["probabilityToBeBest"] = best[index].map(JSONValue.number) ?? .null
                object["revenue"] = .array(
                    (revenue[variant.name] ?? []).map { sum in
                        [
                            "currency": .string(sum.currency), "amount": .number(sum.amount),
                            "purchases": .number(sum.purchases),
                            "perSubscriber": c.subscribers > 0 ? .number(sum.amount / Double(c.subscribers)) : .null,
                        ]
                    })
                let figures = verified[variant.name] ?? VerifiedFigures()
                var block = RevenueService.block(figures)
                block["subscribers"] = (arms[variant.name] ?? VerifiedArmCounts()).json
                block["revenuePerSubscriber"] = RevenueService.perSubscriber(figures, subscribers: c.subscribers)
                object["verified"] = block
                object["sampleSize"] =
                    needed.map { ["perVariant": .number($0), "remaining": .number(max(0, $0 - c.subscribers))] }
                    ?? .null
                guard c.subscribers > 0 else {
                    object["conversionRate"] = .null
                    object["confidenceInterval"] = .null
                    object["differenceToControl"] = .null
                    return .object(object)
                }
                let n = Double(c.subscribers)
                let rate = Double(c.converted) / n
                object["conversionRate"] = .number(rate)
                let (low, high) = ExperimentService.wilson(successes: c.converted, trials: c.subscribers)
                object["confidenceInterval"] = [.number(low), .number(high)]
                object["differenceToControl"] =
                    index > 0
                    ? ExperimentService.differenceToControl(
                        rate: rate, n: n, controlRate: controlRate, controlSubscribers: control.subscribers)
                    : .null
                return .object(object)
            }
            var answer: JSONValue = [
                "experimentId": .string(id), "status": .string(experiment.status.rawValue), "unit": "subscriber",
                "environment": .string(environment.rawValue),
                "metric": .string(metric.rawValue), "source": .string(metric.source),
                "confidenceLevel": 0.95, "variants": .array(variants),
                "bayesian": [
                    "prior": "Beta(1, 1)", "method": "Beta–Binomial posteriors, integrated numerically (deterministic)",
                ],
                "sampleSize": [
                    "minimumDetectableEffect": .number(mde), "alpha": 0.05, "power": 0.8,
                    "basis":
                        "two-sided test of the control's rate against a relative change of minimumDetectableEffect",
                ],
                // The holdout is never shown a paywall, so no verified purchase is credited to it: its row
                // is the app's own events, which a verified metric cannot be compared with.
                "holdout": experiment.holdoutWeight > 0 && metric == .conversion
                    ? ExperimentService.holdoutRow(
                        counts["holdout"] ?? VariantCounts(), controlRate: controlRate,
                        controlSubscribers: control.subscribers) : .null,
                // Every count is exact: each arm's subscribers and conversions move once per subscriber
                // (docs/analytics.md, "Rollups"), never through a sketch.
                "estimates": AnalyticsService.estimates(false),
            ]
            if rolled.notCounted > 0 { answer["eventsNotCounted"] = .number(rolled.notCounted) }
            return answer
        }
    }

    /// The holdout's row: its subscribers see no paywall, so they are counted from any event the app
    /// tags with the experiment and `variant: "holdout"` (a `paywall_holdout` exposure when the SDK
    /// answers 204, their purchases); the rate is theirs who bought, beside the control's.
    static func holdoutRow(_ c: VariantCounts, controlRate: Double?, controlSubscribers: Int) -> JSONValue {
        var object: [String: JSONValue] = [
            "uniqueSubscribers": .number(c.exposed), "conversions": .number(c.exposedConverted),
        ]
        guard c.exposed > 0 else {
            object["conversionRate"] = .null
            object["confidenceInterval"] = .null
            object["differenceToControl"] = .null
            return .object(object)
        }
        let n = Double(c.exposed)
        let rate = Double(c.exposedConverted) / n
        object["conversionRate"] = .number(rate)
        let (low, high) = wilson(successes: c.exposedConverted, trials: c.exposed)
        object["confidenceInterval"] = [.number(low), .number(high)]
        object["differenceToControl"] = differenceToControl(
            rate: rate, n: n, controlRate: controlRate, controlSubscribers: controlSubscribers)
        return .object(object)
    }

    /// A rate minus the control's, with a 95 % normal (Wald, unpooled) interval; null without a control rate.
    static func differenceToControl(rate: Double, n: Double, controlRate: Double?, controlSubscribers: Int) -> JSONValue
    {
        guard let controlRate, controlSubscribers > 0 else { return .null }
        let m = Double(controlSubscribers)
        let difference = rate - controlRate
        let se = (rate * (1 - rate) / n + controlRate * (1 - controlRate) / m).squareRoot()
        return [
            "absolute": .number(difference),
            "confidenceInterval": [.number(difference - z95 * se), .number(difference + z95 * se)],
            "relative": controlRate > 0 ? .number(difference / controlRate) : .null,
        ]
    }

    /// The Wilson score interval for a binomial proportion at 95 %.
    static func wilson(successes: Int, trials: Int) -> (Double, Double) {
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z95 * z95
        let center = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z95 * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / (1 + z2 / n)
        return (max(0, center - half), min(1, center + half))
    }
}
