import Foundation
import PaywallFormat

/// Per-variant results of an experiment. The unit is the subscriber (what was randomised):
/// conversion rate = subscribers who completed a purchase ÷ subscribers who saw the paywall, with a
/// 95 % Wilson score interval; the difference to the control has a 95 % normal (Wald, unpooled)
/// interval. Impressions count every `paywall_open`.
extension ExperimentService {
    static let z95 = 1.959963984540054

    public func results(appID: String, id: String) throws -> JSONValue {
        // One snapshot: the variants and their counts as of the same moment.
        let (experiment, counts) = try read { tx in
            (try ExperimentService.load(tx, appID: appID, id: id), try tx.events.variantCounts(appID: appID, experimentID: id))
        }
        let control = counts[experiment.variants.first?.name ?? ""] ?? VariantCounts()
        let controlRate = control.subscribers > 0 ? Double(control.converted) / Double(control.subscribers) : nil
        let variants: [JSONValue] = experiment.variants.enumerated().map { index, variant in
            let c = counts[variant.name] ?? VariantCounts()
            var object: [String: JSONValue] = [
                "name": .string(variant.name), "paywallId": .string(variant.paywallID), "control": .bool(index == 0),
                "impressions": .number(c.impressions), "uniqueSubscribers": .number(c.subscribers), "conversions": .number(c.converted),
            ]
            guard c.subscribers > 0 else {
                object["conversionRate"] = .null
                object["confidenceInterval"] = .null
                object["differenceToControl"] = .null
                return .object(object)
            }
            let n = Double(c.subscribers), rate = Double(c.converted) / n
            object["conversionRate"] = .number(rate)
            let (low, high) = ExperimentService.wilson(successes: c.converted, trials: c.subscribers)
            object["confidenceInterval"] = [.number(low), .number(high)]
            object["differenceToControl"] = index > 0
                ? ExperimentService.differenceToControl(rate: rate, n: n, controlRate: controlRate, controlSubscribers: control.subscribers)
                : .null
            return .object(object)
        }
        return ["experimentId": .string(id), "status": .string(experiment.status.rawValue), "unit": "subscriber",
                "confidenceLevel": 0.95, "variants": .array(variants),
                "holdout": experiment.holdoutWeight > 0 ? ExperimentService.holdoutRow(counts["holdout"] ?? VariantCounts(), controlRate: controlRate,
                                                                                         controlSubscribers: control.subscribers) : .null]
    }

    /// The holdout's row: its subscribers see no paywall, so they are counted from any event the app
    /// tags with the experiment and `variant: "holdout"` (a `paywall_holdout` exposure when the SDK
    /// answers 204, their purchases); the rate is theirs who bought, beside the control's.
    static func holdoutRow(_ c: VariantCounts, controlRate: Double?, controlSubscribers: Int) -> JSONValue {
        var object: [String: JSONValue] = ["uniqueSubscribers": .number(c.exposed), "conversions": .number(c.exposedConverted)]
        guard c.exposed > 0 else {
            object["conversionRate"] = .null
            object["confidenceInterval"] = .null
            object["differenceToControl"] = .null
            return .object(object)
        }
        let n = Double(c.exposed), rate = Double(c.exposedConverted) / n
        object["conversionRate"] = .number(rate)
        let (low, high) = wilson(successes: c.exposedConverted, trials: c.exposed)
        object["confidenceInterval"] = [.number(low), .number(high)]
        object["differenceToControl"] = differenceToControl(rate: rate, n: n, controlRate: controlRate, controlSubscribers: controlSubscribers)
        return .object(object)
    }

    /// A rate minus the control's, with a 95 % normal (Wald, unpooled) interval; null without a control rate.
    static func differenceToControl(rate: Double, n: Double, controlRate: Double?, controlSubscribers: Int) -> JSONValue {
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
        let n = Double(trials), p = Double(successes) / n, z2 = z95 * z95
        let center = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z95 * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / (1 + z2 / n)
        return (max(0, center - half), min(1, center + half))
    }
}
