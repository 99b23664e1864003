import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

@Suite struct ContextValueTests {
    @Test(arguments: [
        ("true", ContextValue.bool(true)), ("false", .bool(false)), ("True", .string("True")),
        ("3", .number(3)), ("-2.5", .number(-2.5)), ("1e3", .number(1000)), ("01", .string("01")),
        ("1.", .string("1.")), (".5", .string(".5")), ("", .string("")), ("DE", .string("DE")),
        ("0x10", .string("0x10")),
    ])
    func queryValuesAreTyped(raw: String, expected: ContextValue) {
        #expect(ContextValue(queryValue: raw) == expected)
    }
}

@Suite struct ConditionTests {
    func parse(_ json: JSONValue) -> (Condition?, [ValidationIssue]) {
        var issues: [ValidationIssue] = []
        let condition = Condition.parse(json, path: "$.when", issues: &issues)
        return (condition, issues)
    }

    func matches(_ json: JSONValue, _ context: PresentationContext) -> Bool {
        let (condition, issues) = parse(json)
        #expect(issues.isEmpty)
        return condition?.matches(context) ?? false
    }

    @Test func comparisonsStayWithinOneType() {
        let eqTrue: JSONValue = ["key": "flag", "op": "eq", "value": true]
        #expect(matches(eqTrue, ["flag": .bool(true)]))
        #expect(!matches(eqTrue, ["flag": .string("true")]))
        #expect(!matches(eqTrue, [:]))
        let neFree: JSONValue = ["key": "tier", "op": "ne", "value": "free"]
        #expect(matches(neFree, ["tier": .string("plus")]))
        #expect(!matches(neFree, ["tier": .number(1)]))
        #expect(!matches(neFree, [:]), "a missing key never matches, not even ne")
        #expect(matches(["not": ["key": "tier", "op": "eq", "value": "free"]], [:]), "only not sees the absence")
    }

    @Test func orderingComparesNumbersAndStrings() {
        #expect(matches(["key": "n", "op": "gte", "value": 5], ["n": .number(5)]))
        #expect(!matches(["key": "n", "op": "gt", "value": 5], ["n": .number(5)]))
        #expect(matches(["key": "n", "op": "lt", "value": 5.5], ["n": .number(5)]))
        #expect(!matches(["key": "n", "op": "lt", "value": 5], ["n": .string("4")]))
        #expect(matches(["key": "v", "op": "lte", "value": "b"], ["v": .string("a")]))
    }

    @Test func membershipAndExistence() {
        let dach: JSONValue = ["key": "c", "op": "in", "value": ["DE", "AT", "CH"]]
        #expect(matches(dach, ["c": .string("AT")]))
        #expect(!matches(dach, ["c": .string("FR")]))
        let notDach: JSONValue = ["key": "c", "op": "not_in", "value": ["DE", "AT"]]
        #expect(matches(notDach, ["c": .string("FR")]))
        #expect(!matches(notDach, [:]))
        #expect(matches(["key": "c", "op": "exists"], ["c": .bool(false)]))
        #expect(!matches(["key": "c", "op": "exists"], [:]))
    }

    @Test func combinators() {
        let both: JSONValue = [
            "all": [
                ["key": "a", "op": "exists"],
                ["any": [["key": "b", "op": "eq", "value": 1], ["key": "c", "op": "exists"]]],
            ]
        ]
        #expect(matches(both, ["a": .bool(true), "c": .string("x")]))
        #expect(!matches(both, ["a": .bool(true), "b": .number(2)]))
        #expect(!matches(both, ["c": .string("x")]))
    }

    @Test func everyProblemIsReportedWithItsPath() {
        let (condition, issues) = parse([
            "all": [["key": "x", "op": "near", "value": 1], ["key": "", "op": "eq"], ["any": []], 7]
        ])
        #expect(condition == nil)
        #expect(issues.map(\.path) == ["$.when.all[0].op", "$.when.all[1].key", "$.when.all[2].any", "$.when.all[3]"])
        #expect(issues.map(\.code) == ["invalid_operator", "type_mismatch", "array_too_short", "type_mismatch"])
        let (_, more) = parse(["key": "x", "op": "in", "value": [1, ["no": 1]], "extra": true])
        #expect(more.map(\.path) == ["$.when.extra", "$.when.value[1]"])
        let (_, mixed) = parse(["all": [], "not": ["key": "x", "op": "exists"]])
        #expect(mixed.map(\.code) == ["invalid_condition"])
    }

    @Test func roundTripsThroughJSON() {
        let json: JSONValue = [
            "any": [["key": "x", "op": "in", "value": [1, "a", true]], ["not": ["key": "y", "op": "exists"]]]
        ]
        let (condition, _) = parse(json)
        #expect(condition?.json == json)
    }
}

@Suite struct LocaleNegotiationTests {
    @Test func acceptLanguageIsRankedByQuality() {
        #expect(
            LocaleNegotiation.preferences("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == [
                "fr-CH", "fr", "en", "de", "*",
            ])
        #expect(LocaleNegotiation.preferences("de;q=0, en;q=0.4, es") == ["es", "en"])
        #expect(LocaleNegotiation.preferences("en;q=abc") == [])
    }

    @Test func choiceFollowsTheFormatsOrder() {
        let locales = ["en", "de", "pt-BR"]
        #expect(
            LocaleNegotiation.choose(parameter: "pt", acceptLanguage: nil, locales: locales, defaultLocale: "en")
                == "pt-BR")
        #expect(
            LocaleNegotiation.choose(
                parameter: nil, acceptLanguage: "fr, de-AT;q=0.5", locales: locales, defaultLocale: "en") == "de")
        #expect(
            LocaleNegotiation.choose(parameter: "fr", acceptLanguage: "de", locales: locales, defaultLocale: "en")
                == "en")
        #expect(
            LocaleNegotiation.choose(parameter: nil, acceptLanguage: nil, locales: locales, defaultLocale: "de") == "de"
        )
    }
}
