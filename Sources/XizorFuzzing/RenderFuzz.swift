import PaywallFormat
import PaywallRenderer

/// Any JSON through the renderer: a page within its budget or a typed error, never more. The page
/// must also be the same bytes every time (the page cache and ETags assume a render is a function
/// of its inputs). Light or dark is chosen by the input's length so both sides get exercised.
enum RenderFuzz {
    /// The server's budget, smaller in bytes so the byte check is reached by inputs libFuzzer can grow.
    static let budget = RenderBudget(maxNodes: RenderBudget.standard.maxNodes, maxBytes: 256 << 10)

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        guard let document = FuzzJSON.parse(input) else { return }
        let options = RenderOptions(colorScheme: input.count % 2 == 0 ? .light : .dark, budget: budget)
        let page: RenderedPage
        do { page = try PaywallRenderer.render(document, options: options) } catch {
            switch error {
            case .unsupportedSchemaVersion, .budgetExceeded: return
            }
        }
        guard page.html.count <= budget.maxBytes else {
            throw FuzzFinding(.render, "a page of \(page.html.count) bytes passed the \(budget.maxBytes)-byte budget")
        }
        guard let again = try? PaywallRenderer.render(document, options: options), again.html == page.html else {
            throw FuzzFinding(.render, "rendering the same document twice gave different pages")
        }
    }
}
