import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A placement's rules and the audiences they name have a price (`EvaluationCost`), checked when
/// either is written; a configuration stored before the check stops at the request's budget.
@Suite struct EvaluationBudgetTests {
    /// `{"any": [n comparisons that never match]}`: 1 + n steps.
    static func wide(_ n: Int) -> JSONValue {
        .object(["any": .array((0..<n).map { .object(["key": .string("k\($0)"), "op": "eq", "value": .number($0)]) })])
    }

    /// An app with two published paywalls and `home` assigned the first.
    static func world(_ test: TestServices) throws -> (
        services: XizorServices, app: String, general: String, offer: String
    ) {
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        func published() throws -> String {
            let id = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
            _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil)
            return id
        }
        let general = try published()
        let offer = try published()
        _ = try s.placements.assign(appID: app, key: "home", paywallID: general)
        return (s, app, general, offer)
    }

    static func issueCodes(_ body: () throws -> Void) -> [String] {
        do {
            try body()
            return []
        } catch let error as ServiceError {
            return error.errors.map(\.code)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func stepsCountNodesListValuesAndAudiencesWhereverNamed() throws {
        var issues: [ValidationIssue] = []
        let json: JSONValue = [
            "all": [
                ["key": "a", "op": "in", "value": [1, 2, 3, 4]], ["not": ["audience": "x"]], ["audience": "x"],
                ["rollout": ["percent": 5, "seed": "s"]],
            ]
        ]
        let condition = try #require(Condition.parse(json, path: "$", issues: &issues))
        // all 1 + in 4 + (not 1 + audience 1 + 10) + (audience 1 + 10) + rollout 1
        #expect(EvaluationCost.of(condition, audiences: ["x": 10]) == 29)
        #expect(EvaluationCost.rule(condition, cap: FrequencyCap(count: 3, seconds: 60), audiences: ["x": 10]) == 32)
        #expect(
            EvaluationCost.of(try #require(Condition.parse(Self.wide(9), path: "$", issues: &issues)), audiences: [:])
                == 10)
    }

    @Test(arguments: Driver.allCases)
    func rulesAndAudiencesArePricedWhenWritten(driver: Driver) throws {
        let test = try TestServices("budget", driver: driver)
        defer { test.remove() }
        let (s, app, paywall, _) = try Self.world(test)
        // An audience alone over the budget can never be named by a rule.
        #expect(
            Self.issueCodes {
                _ = try s.audiences.put(appID: app, id: "huge", body: ["condition": Self.wide(EvaluationCost.budget)])
            }
                == ["evaluation_budget_exceeded"])
        _ = try s.audiences.put(appID: app, id: "big", body: ["condition": Self.wide(2_400)])
        func rules(_ references: Int, cap: Int? = nil) -> JSONValue {
            var rule: [String: JSONValue] = [
                "when": .object(["any": .array(Array(repeating: ["audience": "big"], count: references))]),
                "paywallId": .string(paywall),
            ]
            if let cap { rule["frequencyCap"] = ["count": .number(cap), "per": "day"] }
            return .array([.object(rule)])
        }
        // 1 + 4 × (1 + 2,401) = 9,609 steps: within; a fifth reference is 12,011: refused, nothing stored.
        _ = try s.placements.setRules(appID: app, key: "home", rules: rules(4))
        #expect(
            Self.issueCodes { _ = try s.placements.setRules(appID: app, key: "home", rules: rules(5)) } == [
                "evaluation_budget_exceeded"
            ])
        #expect(try s.placements.placement(appID: app, key: "home").rules.count == 1)
        // A cap's events are part of the price: 9,609 + 391 = 10,000 fits, one more does not.
        _ = try s.placements.setRules(appID: app, key: "home", rules: rules(4, cap: 391))
        #expect(
            Self.issueCodes { _ = try s.placements.setRules(appID: app, key: "home", rules: rules(4, cap: 392)) } == [
                "evaluation_budget_exceeded"
            ])
        // Growing the audience re-prices the placement that names it (refused, the old condition kept);
        // shrinking it is always fine.
        let growing = Self.issueCodes {
            _ = try s.audiences.put(appID: app, id: "big", body: ["condition": Self.wide(2_500)])
        }
        #expect(growing == ["evaluation_budget_exceeded"])
        #expect(try s.audiences.audience(appID: app, id: "big").condition == Self.wide(2_400))
        _ = try s.audiences.put(appID: app, id: "big", body: ["condition": Self.wide(100)])
    }

    @Test(arguments: Driver.allCases)
    func aStoredConfigurationPastTheBudgetServesThePlacementsOwnTarget(driver: Driver) throws {
        let test = try TestServices("budget-stored", driver: driver)
        defer { test.remove() }
        let (s, app, general, offer) = try Self.world(test)
        // As a server before the budget would have stored them: a rule of 12,001 steps, then one that matches.
        let now = s.clock.now()
        try s.store.write { tx in
            try tx.placements.replaceRules(
                appID: app, key: "home",
                rules: [
                    StoredRule(
                        condition: Self.wide(12_000).canonicalString, paywallID: offer, experimentID: nil,
                        activeFrom: nil, activeUntil: nil, frequencyCap: nil),
                    StoredRule(
                        condition: #"{"key":"promo","op":"exists"}"#, paywallID: offer, experimentID: nil,
                        activeFrom: nil, activeUntil: nil, frequencyCap: nil),
                ], now: now)
            try tx.changes.append(appID: app, kind: .placement, entityID: "home", now: now)
        }
        try s.changes.catchUp()
        let before = s.activity.evaluationBudgetsExhausted
        let served = try s.serving.resolve(appID: app, placement: "home", context: ["promo": .bool(true)])
        #expect(served.version?.paywallID == general && served.matchedRule == nil)
        #expect(s.activity.evaluationBudgetsExhausted == before + 1)
        let traced = try s.serving.resolve(appID: app, placement: "home", context: ["promo": .bool(true)], trace: true)
        #expect(traced.trace?.map(\.outcome) == [.budgetExhausted, .notReached])
        #expect(s.activity.evaluationBudgetsExhausted == before + 1, "a dry run is not serving")
    }

    @Test(arguments: Driver.allCases)
    func aCapCountsPresentationsUpToItsCountOnly(driver: Driver) throws {
        let test = try TestServices("cap-count", driver: driver)
        defer { test.remove() }
        let (s, app, general, offer) = try Self.world(test)
        _ = try s.placements.setRules(
            appID: app, key: "home",
            rules: [
                [
                    "when": ["key": "promo", "op": "exists"], "paywallId": .string(offer),
                    "frequencyCap": ["count": 2, "per": "day"],
                ]
            ])
        let now = s.clock.now()
        let opens: [JSONValue] = (0..<7).map { i in
            [
                "id": .string("e\(i)"), "name": "paywall_open", "timestamp": .number(Int(now) - i), "placement": "home",
                "paywallId": .string(offer), "version": 1, "subscriberId": "u1",
            ]
        }
        #expect(try s.events.ingest(appID: app, batch: ["events": .array(opens)]).accepted == 7)
        let traced = try s.serving.resolve(
            appID: app, placement: "home", context: ["promo": .bool(true)], subscriberID: "u1", trace: true)
        #expect(traced.version?.paywallID == general)
        // Seven were sent; the cap read two, all it needed to know it is reached.
        #expect(traced.trace?.first?.presentations == 2 && traced.trace?.first?.outcome == .capped)
    }
}
