import PaywallFormat
import Testing

@testable import PaywallRenderer

/// The renderer's budget: a page stops as soon as it would exceed it, so a document that describes an
/// enormous page (a draft, or a version stored before the document limits) costs the budget, not the page.
@Suite struct RenderBudgetTests {
    /// A selector offering `slots` products whose option holds `optionNodes` texts.
    static func amplification(slots: Int, optionNodes: Int) -> JSONValue {
        let option: JSONValue = [
            "type": "stack", "direction": "vertical",
            "children": .array(
                Array(repeating: ["type": "text", "text": ["en": "{{product.price}}"]], count: optionNodes)),
        ]
        return document(
            [["type": "product_selector", "option": option]],
            products: (0..<slots).map { ["slot": .string("s\($0)"), "storeProductId": .string("com.x.s\($0)")] })
    }

    /// The document (5,000 × 5,000: 25 million nodes, gigabytes of HTML) fails fast with the
    /// node budget instead of taking the process down.
    @Test func theAmplificationAttackStopsAtTheNodeBudget() {
        #expect(throws: RenderError.budgetExceeded(.nodes, limit: RenderBudget.standard.maxNodes)) {
            try PaywallRenderer.render(
                Self.amplification(slots: 5_000, optionNodes: 5_000), options: RenderOptions(mode: .preview))
        }
    }

    /// The node count is exact: the root stack, the selector and `slots × (1 + texts)` option nodes.
    @Test func theNodeBudgetIsExact() throws {
        let doc = Self.amplification(slots: 10, optionNodes: 9)  // 1 + 1 + 10 × 10 = 102 nodes
        _ = try PaywallRenderer.render(
            doc, options: RenderOptions(budget: RenderBudget(maxNodes: 102, maxBytes: 1 << 20)))
        #expect(throws: RenderError.budgetExceeded(.nodes, limit: 101)) {
            try PaywallRenderer.render(
                doc, options: RenderOptions(budget: RenderBudget(maxNodes: 101, maxBytes: 1 << 20)))
        }
    }

    @Test func featureListItemsAreCharged() throws {
        let items: [JSONValue] = Array(repeating: ["text": ["en": "x"]], count: 50)
        let doc = document([["type": "feature_list", "items": .array(items)]])
        _ = try PaywallRenderer.render(
            doc, options: RenderOptions(budget: RenderBudget(maxNodes: 52, maxBytes: 1 << 20)))
        #expect(throws: RenderError.budgetExceeded(.nodes, limit: 51)) {
            try PaywallRenderer.render(
                doc, options: RenderOptions(budget: RenderBudget(maxNodes: 51, maxBytes: 1 << 20)))
        }
    }

    /// A long text (as a version stored before `text_too_long` may hold) runs into the byte budget, both
    /// in the middle of the tree and for the finished page.
    @Test func theByteBudget() throws {
        let long = String(repeating: "x", count: 200_000)
        let middle = document([["type": "text", "text": ["en": .string(long)]], ["type": "spacer"]])
        #expect(throws: RenderError.budgetExceeded(.bytes, limit: 100_000)) {
            try PaywallRenderer.render(
                middle, options: RenderOptions(budget: RenderBudget(maxNodes: 100, maxBytes: 100_000)))
        }
        let last = document([["type": "text", "text": ["en": .string(long)]]])
        #expect(throws: RenderError.budgetExceeded(.bytes, limit: 100_000)) {
            try PaywallRenderer.render(
                last, options: RenderOptions(budget: RenderBudget(maxNodes: 100, maxBytes: 100_000)))
        }
        let page = try PaywallRenderer.render(last)
        #expect(page.html.count > 200_000 && page.html.count <= RenderBudget.standard.maxBytes)
    }

    /// The largest valid document renders every form (each locale, light and dark) within the budget,
    /// and one selector option more does not validate: the limits and the budget agree.
    @Test func theExampleAtEveryLimitRendersEveryForm() throws {
        let example = DocumentLimits.exampleAtEveryLimit()
        try PaywallRenderer.checkEveryForm(example)
        let page = try PaywallRenderer.render(example, options: RenderOptions(locale: "de"))
        let text = String(decoding: page.html, as: UTF8.self)
        #expect(text.occurrences(of: "class=\"xz-option") == DocumentLimits.products)
        #expect(page.html.count < RenderBudget.standard.maxBytes / 4)
    }
}
