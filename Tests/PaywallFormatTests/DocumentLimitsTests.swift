import PaywallFormat
import Testing

/// Every document limit: the example at every limit is valid, one step past each is the documented code
/// at its path, and the templates stay at most a tenth of each limit (the margin docs/schema.md promises).
@Suite struct DocumentLimitsTests {
    static func pairs(_ document: JSONValue) -> [String] {
        PaywallValidator.validate(document).errors.map { "\($0.path) \($0.code)" }
    }

    static func children(_ document: JSONValue) -> [JSONValue] { document["root"]?["children"]?.arrayValue ?? [] }

    static func withChildren(_ document: JSONValue, _ children: [JSONValue]) -> JSONValue {
        var copy = document
        #expect(Self.set(&copy, .array(children), at: JSONPath([.key("root"), .key("children")])))
        return copy
    }

    /// `JSONValue.set` with the outcome kept (the #expect macro cannot call a mutating method).
    static func set(_ value: inout JSONValue, _ newValue: JSONValue, at path: JSONPath) -> Bool {
        value.set(newValue, at: path)
    }

    static let spacer: JSONValue = ["type": "spacer"]

    @Test func theExampleAtEveryLimitIsValid() {
        let result = PaywallValidator.validate(DocumentLimits.exampleAtEveryLimit())
        #expect(result.errors.isEmpty, "\(result.errors.prefix(3))")
        #expect(result.document?.products.count == DocumentLimits.products)
        #expect(result.document?.locales.count == DocumentLimits.locales)
    }

    @Test func oneNodeMoreIsTooManyNodesAndTooLargeAnExpansion() {
        let example = DocumentLimits.exampleAtEveryLimit()
        // 499 nodes written, 2,000 rendered: one more is still within the node limit but not the expansion.
        let one = Self.withChildren(example, Self.children(example) + [Self.spacer])
        #expect(Self.pairs(one) == ["$.root.children[1] expansion_too_large"])
        let two = Self.withChildren(example, Self.children(example) + [Self.spacer, Self.spacer])
        #expect(Set(Self.pairs(two)) == ["$.root too_many_nodes", "$.root.children[1] expansion_too_large"])
    }

    @Test func tooManyNodesWithoutASelector() {
        let doc = Self.withChildren(
            DocumentLimits.exampleAtEveryLimit(), Array(repeating: Self.spacer, count: DocumentLimits.nodes))
        #expect(Self.pairs(doc) == ["$.root too_many_nodes"])
        let atLimit = Self.withChildren(doc, Array(repeating: Self.spacer, count: DocumentLimits.nodes - 1))
        #expect(Self.pairs(atLimit).isEmpty)
    }

    @Test func featureListItemsCountAsNodes() {
        let items: [JSONValue] = Array(repeating: ["text": ["en": "x"]], count: DocumentLimits.nodes - 1)
        let list: JSONValue = ["type": "feature_list", "items": .array(items)]
        let base = Self.withChildren(DocumentLimits.exampleAtEveryLimit(), [])
        var doc = base
        #expect(Self.set(&doc, ["en"], at: JSONPath([.key("locales")])))
        #expect(Self.pairs(Self.withChildren(doc, [list])) == ["$.root too_many_nodes"])
    }

    @Test func nestingOneLevelTooDeep() {
        var node: JSONValue = Self.spacer
        for _ in 0..<(DocumentLimits.depth - 1) {
            node = ["type": "stack", "direction": "vertical", "children": [node]]
        }
        // The root holds `node`: the spacer is at depth `depth + 1`.
        let doc = Self.withChildren(DocumentLimits.exampleAtEveryLimit(), [node])
        let path = "$.root.children[0]" + String(repeating: ".children[0]", count: DocumentLimits.depth - 1)
        #expect(Self.pairs(doc) == ["\(path) nesting_too_deep"])
        let fits = Self.withChildren(doc, [node["children"]?.arrayValue?.first ?? .null])
        #expect(Self.pairs(fits).isEmpty)
    }

    @Test func productsLocalesAndTextLength() throws {
        let example = DocumentLimits.exampleAtEveryLimit()
        var products = example
        var list = example["products"]?.arrayValue ?? []
        list.append(["slot": "extra", "storeProductId": "com.example.extra"])
        #expect(Self.set(&products, .array(list), at: JSONPath([.key("products")])))
        #expect(Self.pairs(products).contains("$.products array_too_long"))

        var locales = example
        #expect(
            Self.set(
                &locales, .array((example["locales"]?.arrayValue ?? []) + ["zz-ZZ"]), at: JSONPath([.key("locales")])))
        #expect(Self.pairs(locales) == ["$.locales array_too_long"])

        var text = example
        let path = JSONPath([.key("root"), .key("children"), .index(2), .key("text"), .key("en")])
        #expect(Self.set(&text, .string(String(repeating: "é", count: DocumentLimits.textLength + 1)), at: path))
        #expect(Self.pairs(text) == ["$.root.children[2].text.en text_too_long"])
        #expect(Self.set(&text, .string(String(repeating: "é", count: DocumentLimits.textLength)), at: path))
        #expect(Self.pairs(text).isEmpty)
    }

    /// The document of the issue: 5,000 slots and a 5,000-node option. Validation reports it at once
    /// (it counts, it does not expand) instead of accepting it.
    @Test func theAmplificationAttackIsRefused() {
        let doc = Self.amplification(slots: 5_000, optionNodes: 5_000)
        let codes = Set(PaywallValidator.validate(doc).errors.map(\.code))
        #expect(codes == ["array_too_long", "too_many_nodes", "expansion_too_large"])
    }

    static func amplification(slots: Int, optionNodes: Int) -> JSONValue {
        let option: JSONValue = [
            "type": "stack", "direction": "vertical",
            "children": .array(
                Array(repeating: ["type": "text", "text": ["en": "{{product.price}}"]], count: optionNodes)),
        ]
        return [
            "schemaVersion": 1, "id": "pw_amp", "name": "Amp", "locales": ["en"], "defaultLocale": "en",
            "theme": ["colors": ["bg": "#000000"]],
            "products": .array(
                (0..<slots).map { ["slot": .string("s\($0)"), "storeProductId": .string("com.x.s\($0)")] }),
            "settings": ["dismissable": false, "safeArea": "all", "background": ["kind": "color", "color": "$bg"]],
            "root": ["type": "product_selector", "option": option],
        ]
    }

    /// The limits are at least ten times what the largest template uses.
    @Test func templatesUseAtMostATenthOfEachLimit() throws {
        for (name, template) in try PaywallTemplates.all() {
            #expect(PaywallValidator.validate(template).isValid, "\(name)")
            let tenfold = Self.withChildren(
                template, Array(repeating: Self.children(template), count: 10).flatMap { $0 })
            let codes = Set(PaywallValidator.validate(tenfold).errors.map(\.code))
            #expect(
                codes.isDisjoint(with: ["too_many_nodes", "expansion_too_large", "nesting_too_deep", "text_too_long"]),
                "\(name): \(codes)")
            #expect((template["products"]?.arrayValue?.count ?? 0) * 10 <= DocumentLimits.products)
            #expect((template["locales"]?.arrayValue?.count ?? 0) * 10 <= DocumentLimits.locales)
        }
    }

    @Test func theJSONSchemaCarriesTheExpressibleLimits() throws {
        let schema = try #require(JSONSchemaGenerator.schema(version: 2))
        let root = schema["$defs"]?["PaywallDocument"]?["properties"]
        #expect(root?["products"]?["maxItems"]?.intValue == DocumentLimits.products)
        #expect(root?["locales"]?["maxItems"]?.intValue == DocumentLimits.locales)
        #expect(
            schema["$defs"]?["LocalizedText"]?["additionalProperties"]?["maxLength"]?.intValue
                == DocumentLimits.textLength)
    }
}
