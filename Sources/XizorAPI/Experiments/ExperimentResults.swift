import Foundation
import PaywallFormat
import Storage

/// Per-variant results of an experiment. The unit is the subscriber (what was randomised):
/// conversion rate = subscribers who completed a purchase ÷ subscribers who saw the paywall, with a
/// 95 % Wilson score interval; the difference to the control has a 95 % normal (Wald, unpooled)
/// interval. Impressions count every `paywall_open`.
extension ExperimentService {
    static let z95 = 1.959963984540054

    public func results(appID: String, id: String) throws -> JSONValue {
        let experiment = try self.experiment(appID: appID, id: id)
        let counts: [String: (impressions: Int, subscribers: Int, converted: Int)] = try poolRead { db in
            var counts: [String: (Int, Int, Int)] = [:]
            // A conversion counts only for a subscriber who saw that variant (so the rate stays a proportion
            // even when an open event was lost).
            for row in try db.query("""
                SELECT variant,
                       sum(name = 'paywall_open'),
                       count(DISTINCT CASE WHEN name = 'paywall_open' THEN subscriber_id END),
                       count(DISTINCT CASE WHEN name = 'purchase_completed' AND EXISTS (
                           SELECT 1 FROM events o WHERE o.app_id = events.app_id AND o.experiment_id = events.experiment_id
                             AND o.variant = events.variant AND o.subscriber_id = events.subscriber_id AND o.name = 'paywall_open')
                           THEN subscriber_id END)
                FROM events WHERE app_id = ? AND experiment_id = ? GROUP BY variant
                """, [appID, id]) {
                guard let variant: String = try row.get(0) else { continue }
                counts[variant] = (try row.get(1), try row.get(2), try row.get(3))
            }
            return counts
        }
        let control = counts[experiment.variants.first?.name ?? ""] ?? (0, 0, 0)
        let controlRate = control.subscribers > 0 ? Double(control.converted) / Double(control.subscribers) : nil
        let variants: [JSONValue] = experiment.variants.enumerated().map { index, variant in
            let c = counts[variant.name] ?? (0, 0, 0)
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
        return ["experimentId": .string(id), "status": .string(experiment.status), "unit": "subscriber",
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
