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
            if index > 0, let controlRate {
                let m = Double(control.subscribers)
                let difference = rate - controlRate
                let se = (rate * (1 - rate) / n + controlRate * (1 - controlRate) / m).squareRoot()
                object["differenceToControl"] = [
                    "absolute": .number(difference),
                    "confidenceInterval": [.number(difference - ExperimentService.z95 * se), .number(difference + ExperimentService.z95 * se)],
                    "relative": controlRate > 0 ? .number(difference / controlRate) : .null,
                ]
            } else {
                object["differenceToControl"] = .null
            }
            return .object(object)
        }
        return ["experimentId": .string(id), "status": .string(experiment.status.rawValue), "unit": "subscriber",
                "confidenceLevel": 0.95, "variants": .array(variants)]
    }

    /// The Wilson score interval for a binomial proportion at 95 %.
    static func wilson(successes: Int, trials: Int) -> (Double, Double) {
        let n = Double(trials), p = Double(successes) / n, z2 = z95 * z95
        let center = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z95 * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / (1 + z2 / n)
        return (max(0, center - half), min(1, center + half))
    }
}
