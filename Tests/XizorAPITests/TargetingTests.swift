import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The new parts of conditions: their types at write time, their answers at request time, and
/// what the dry run says about a failure.
@Suite struct TargetingConditionTests {
    func parse(_ json: JSONValue, options: Condition.ParseOptions = .init()) -> (Condition?, [ValidationIssue]) {
        var issues: [ValidationIssue] = []
        let condition = Condition.parse(json, path: "$.when", issues: &issues, options: options)
        return (condition, issues)
    }

    func evaluate(_ json: JSONValue, _ facts: RequestFacts) throws -> Bool {
        let (condition, issues) = parse(json)
        #expect(issues.isEmpty, "\(issues)")
        var facts = facts
        return try #require(condition).matches(&facts)
    }

    @Test func semverComparesVersionsNotStrings() throws {
        let rule: JSONValue = ["key": "device.appVersion", "op": "semver_gte", "value": "1.10.0"]
        #expect(try evaluate(rule, RequestFacts(context: [:], device: .init(values: [.appVersion: "1.10.0"]))))
        #expect(try evaluate(rule, RequestFacts(context: [:], device: .init(values: [.appVersion: "1.11"]))))
        #expect(try !evaluate(rule, RequestFacts(context: [:], device: .init(values: [.appVersion: "1.9.0"]))))
        #expect(try !evaluate(rule, RequestFacts(context: [:], device: .init(values: [.appVersion: "1.10.0-rc.1"]))))
        // The same comparison as a string says 1.9.0 > 1.10.0: the issue this operator exists for.
        #expect(
            try evaluate(["key": "v", "op": "gte", "value": "1.10.0"], RequestFacts(context: ["v": .string("1.9.0")])))
    }

    @Test func aValueThatIsNotAVersionIsANonMatchAndCounted() throws {
        let condition = try #require(parse(["key": "appVersion", "op": "semver_lt", "value": "2.0.0"]).0)
        var facts = RequestFacts(context: ["appVersion": .string("1.0 (45)")])
        #expect(try !condition.matches(&facts))
        #expect(facts.versionsNotParsed == 1)
        var numeric = RequestFacts(context: ["appVersion": .number(1)])
        #expect(try !condition.matches(&numeric))
        #expect(numeric.versionsNotParsed == 1, "a number is not a version string either")
        var failure = RequestFacts(context: ["appVersion": .string("one")])
        let explained = try condition.explain(&failure, path: "$.rules[0].when")
        #expect(explained?.reason == .notAVersion && explained?.saw == .string("one"))
    }

    @Test func startsWithAndBetween() throws {
        #expect(
            try evaluate(
                ["key": "device.locale", "op": "starts_with", "value": "de"],
                RequestFacts(context: [:], device: .init(values: [.locale: "de-AT"]))))
        #expect(
            try !evaluate(
                ["key": "device.locale", "op": "starts_with", "value": "de"],
                RequestFacts(context: [:], device: .init(values: [.locale: "en-DE"]))))
        let sessions: JSONValue = ["key": "subscriber.sessions", "op": "between", "value": [3, 10]]
        for (n, expected) in [(2.0, false), (3, true), (10, true), (10.5, false)] {
            #expect(
                try evaluate(sessions, RequestFacts(context: [:], subscriberAttributes: ["sessions": .number(n)]))
                    == expected, "\(n)")
        }
        #expect(
            try !evaluate(sessions, RequestFacts(context: [:], subscriberAttributes: ["sessions": .string("5")])),
            "one type only")
    }

    @Test func everyOperatorIsTypedAtWriteTime() {
        let cases: [(JSONValue, String, String)] = [
            (["key": "v", "op": "semver_gt", "value": "1.2.x"], "$.when.value", "invalid_version"),
            (["key": "v", "op": "semver_gt", "value": 2], "$.when.value", "type_mismatch"),
            (["key": "v", "op": "between", "value": [5, 1]], "$.when.value", "number_out_of_range"),
            (["key": "v", "op": "between", "value": [1, "z"]], "$.when.value", "type_mismatch"),
            (["key": "v", "op": "between", "value": [1]], "$.when.value", "type_mismatch"),
            (["key": "v", "op": "starts_with", "value": ""], "$.when.value", "type_mismatch"),
            (["key": "v", "op": "gt", "value": true], "$.when.value", "type_mismatch"),
            (["key": "device.model", "op": "exists"], "$.when.key", "unknown_attribute"),
            (["key": "subscriber.", "op": "exists"], "$.when.key", "unknown_attribute"),
            (["rollout": ["percent": 100.5]], "$.when.rollout.percent", "number_out_of_range"),
            (["rollout": ["percent": 12.345, "seed": "s"]], "$.when.rollout.percent", "number_out_of_range"),
            (["rollout": ["percent": 10]], "$.when.rollout.seed", "missing_required_field"),
            (["audience": "has space"], "$.when.audience", "type_mismatch"),
            (["audience": "a", "key": "x"], "$.when", "invalid_condition"),
        ]
        for (json, path, code) in cases {
            let (condition, issues) = parse(json)
            #expect(condition == nil, "\(json)")
            #expect(issues.map(\.path) == [path] && issues.map(\.code) == [code], "\(json): \(issues)")
        }
        let (_, nested) = parse(["not": ["audience": "a"]], options: .init(allowsAudiences: false))
        #expect(nested.map(\.code) == ["nested_audience"])
    }

    @Test func aRolloutWithoutSeedIsGivenOneAndRoundTrips() throws {
        let (condition, issues) = parse(["rollout": ["percent": 12.5]], options: .init(newSeed: { "s33d" }))
        #expect(issues.isEmpty)
        #expect(condition == .rollout(basisPoints: 1250, seed: "s33d"))
        let json = try #require(condition).json
        #expect(json == ["rollout": ["percent": 12.5, "seed": "s33d"]])
        #expect(parse(json).0 == condition, "what is answered parses back to the same condition")
    }

    /// The share's exact edge (issue 41): a subscriber whose bucket equals the share in basis points
    /// is out, one a basis point below it is in — in evaluation (`matches`) and in the dry run's
    /// trace (`explain`) alike; 0 % takes no one and 100 % everyone with a subscriber id.
    @Test func aRolloutsEdgeIsTheSameInEvaluationAndInTheTrace() throws {
        let bucket = Condition.rolloutBucket(seed: "spring", subscriberID: "u-42")
        #expect(bucket == 8763)
        func outcome(_ basisPoints: Int, _ subscriber: String) throws -> (matched: Bool, failure: ConditionFailure?) {
            let condition = Condition.rollout(basisPoints: basisPoints, seed: "spring")
            var evaluated = RequestFacts(context: [:], subscriberID: subscriber)
            var traced = RequestFacts(context: [:], subscriberID: subscriber)
            return (try condition.matches(&evaluated), try condition.explain(&traced, path: "$.when"))
        }
        let equal = try outcome(bucket, "u-42")
        #expect(!equal.matched, "a bucket equal to the share is outside it")
        #expect(equal.failure?.reason == .outsideRollout && equal.failure?.saw == .number(Double(bucket)))
        let above = try outcome(bucket + 1, "u-42")
        #expect(above.matched && above.failure == nil, "a bucket one below the share is inside it")
        // The lowest bucket: in at one basis point (0.01 %), out at none.
        let first = try #require(
            (0..<200_000).lazy.map { "s-\($0)" }.first {
                Condition.rolloutBucket(seed: "spring", subscriberID: $0) == 0
            })
        #expect(try outcome(1, first).matched && outcome(1, first).failure == nil)
        #expect(try !outcome(0, first).matched && outcome(0, first).failure?.reason == .outsideRollout)
        // The highest bucket: in at 100 %, out at 99.99 %.
        let last = try #require(
            (0..<200_000).lazy.map { "s-\($0)" }.first {
                Condition.rolloutBucket(seed: "spring", subscriberID: $0) == 9_999
            })
        #expect(try outcome(10_000, last).matched && outcome(10_000, last).failure == nil)
        #expect(try !outcome(9_999, last).matched && outcome(9_999, last).failure?.reason == .outsideRollout)
    }

    /// Shares over 100,000 ids are within 1 % (absolute) of the percentage, and a bucket is a pure
    /// function of (seed, subscriber): the same after a restart, on any server.
    @Test func rolloutSharesAreExactAndStable() throws {
        let ids = (0..<100_000).map { "subscriber-\($0)" }
        for (percent, seed) in [(10.0, "a"), (25, "b"), (50, "c"), (99.5, "d")] {
            let condition = Condition.rollout(basisPoints: Int(percent * 100), seed: seed)
            var matched = 0
            for id in ids {
                var facts = RequestFacts(context: [:], subscriberID: id)
                if try condition.matches(&facts) { matched += 1 }
            }
            let share = Double(matched) / Double(ids.count) * 100
            #expect(abs(share - percent) < 1, "\(percent) %: \(share) %")
        }
        #expect(
            Condition.rolloutBucket(seed: "spring", subscriberID: "u-42") == 8763,
            "a fixed value: changing the hash moves subscribers")
        var anonymous = RequestFacts(context: [:])
        #expect(
            try !Condition.rollout(basisPoints: 10_000, seed: "x").matches(&anonymous),
            "no subscriber, no match — not even at 100 %")
        // Different seeds pick different subscribers (independent rollouts).
        let first = ids.prefix(2_000).filter { Condition.rolloutBucket(seed: "one", subscriberID: $0) < 5_000 }
        let second = ids.prefix(2_000).filter { Condition.rolloutBucket(seed: "two", subscriberID: $0) < 5_000 }
        #expect(Set(first) != Set(second))
    }

    @Test func theFirstFailureIsExplainedWithWhatItSaw() throws {
        let (condition, _) = parse([
            "all": [
                ["key": "device.platform", "op": "eq", "value": "ios"],
                ["any": [["key": "plan", "op": "eq", "value": "pro"], ["not": ["key": "trial", "op": "exists"]]]],
            ]
        ])
        let c = try #require(condition)
        var facts = RequestFacts(context: ["trial": .bool(true)], device: .init(values: [.platform: "ios"]))
        let failure = try #require(try c.explain(&facts, path: "$.rules[2].when"))
        #expect(failure.path == "$.rules[2].when.all[1].any" && failure.reason == .noneMatched)
        #expect(
            failure.alternatives.map(\.path) == ["$.rules[2].when.all[1].any[0]", "$.rules[2].when.all[1].any[1].not"])
        #expect(failure.alternatives.map(\.reason) == [.missing, .negatedConditionMatched])
        var android = RequestFacts(context: [:], device: .init(values: [.platform: "android"]))
        let first = try #require(try c.explain(&android, path: "$"))
        #expect(
            first.json == [
                "path": "$.all[0]", "reason": "compared", "key": "device.platform", "op": "eq", "value": "ios",
                "saw": "android",
                // The same in words (issue 36): key, operator, expected and seen value.
                "message": "device.platform eq \"ios\" did not hold: the request had \"android\".",
            ])
    }

    @Test func audiencesAreEvaluatedWhereTheyAreNamed() throws {
        let condition = try #require(parse(["audience": "pro"]).0)
        let pro = try #require(parse(["key": "subscriber.plan", "op": "eq", "value": "pro"]).0)
        var facts = RequestFacts(context: [:], subscriberAttributes: ["plan": .string("pro")], audiences: ["pro": pro])
        #expect(try condition.matches(&facts))
        var free = RequestFacts(context: [:], subscriberAttributes: ["plan": .string("free")], audiences: ["pro": pro])
        let failure = try #require(try condition.explain(&free, path: "$"))
        #expect(
            failure.reason == .audienceNotMatched && failure.audience == "pro"
                && failure.alternatives.first?.saw == .string("free"))
        var missing = RequestFacts(context: [:])
        #expect(try condition.explain(&missing, path: "$")?.reason == .unknownAudience)
    }

    /// The SDK path's evaluator and the dry run's agree on every condition and request here: a
    /// condition matches exactly when `explain` finds nothing that failed.
    @Test func theTwoEvaluatorsAgree() throws {
        let leaves: [JSONValue] = [
            ["key": "plan", "op": "eq", "value": "pro"], ["key": "n", "op": "between", "value": [1, 5]],
            ["key": "device.appVersion", "op": "semver_gte", "value": "2.0"],
            ["key": "device.locale", "op": "starts_with", "value": "de"],
            ["key": "subscriber.tier", "op": "in", "value": ["gold", "silver"]], ["key": "missing", "op": "exists"],
            ["rollout": ["percent": 50, "seed": "s"]], ["audience": "gold"],
        ]
        var conditions: [JSONValue] = leaves
        for a in leaves { for b in leaves { conditions += [["all": [a, b]], ["any": [a, ["not": b]]]] } }
        let gold = try #require(parse(["key": "subscriber.tier", "op": "eq", "value": "gold"]).0)
        let requests: [RequestFacts] = [
            RequestFacts(
                context: ["plan": .string("pro"), "n": .number(3)], subscriberID: "a",
                device: .init(values: [.appVersion: "2.1", .locale: "de-AT"]),
                subscriberAttributes: ["tier": .string("gold")], audiences: ["gold": gold]),
            RequestFacts(
                context: ["plan": .string("free"), "n": .number(9)], subscriberID: "b",
                device: .init(values: [.appVersion: "1.9 (3)"]), subscriberAttributes: ["tier": .string("bronze")],
                audiences: ["gold": gold]),
            RequestFacts(context: [:]),
        ]
        var checked = 0
        for json in conditions {
            let condition = try #require(parse(json).0, "\(json)")
            for request in requests {
                var a = request
                var b = request
                let matched = try condition.matches(&a)
                #expect(matched == (try condition.explain(&b, path: "$") == nil), "\(json.canonicalString)")
                checked += 1
            }
        }
        #expect(checked == 3 * (8 + 2 * 64))
    }

    @Test func comparisonsThatCanNeverHoldAreSaid() throws {
        let (condition, _) = parse([
            "any": [
                ["key": "device.platform", "op": "eq", "value": "iOS"],
                ["key": "device.country", "op": "in", "value": ["DE", "at", "XX"]],
                ["key": "device.platform", "op": "eq", "value": "android"],
            ]
        ])
        let warnings = try #require(condition).warnings(path: "$.rules[0].when")
        #expect(
            warnings.map(\.path) == [
                "$.rules[0].when.any[0].value", "$.rules[0].when.any[1].value", "$.rules[0].when.any[1].value",
            ])
        #expect(warnings.allSatisfy { $0.code == "never_matches" })
    }
}
