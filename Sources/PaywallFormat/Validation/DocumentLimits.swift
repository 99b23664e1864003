/// How big a paywall document may be. A document is tenant input that the server renders for anonymous
/// clients, and a `product_selector` renders its `option` subtree once per offered slot, so a small
/// document can describe an enormous page. Each limit is set well above any real paywall — at least ten
/// times the largest template (21 nodes, depth 5, 26 rendered nodes, 2 products, 2 locales, 65-character
/// texts) — so only documents built to hurt reach them. docs/schema.md lists them.
public enum DocumentLimits {
    /// Product slots (`products`); peers' offerings rarely exceed six packages. JSON Schema `maxItems`.
    public static let products = 20
    /// Locales (`locales`); the App Store has about 40 storefront languages. JSON Schema `maxItems`.
    public static let locales = 50
    /// Unicode scalars in one LocalizedText entry (a legal paragraph fits). JSON Schema `maxLength`.
    public static let textLength = 2_000
    /// Nodes written in the document (feature-list items count as nodes: each renders an element).
    public static let nodes = 500
    /// Node nesting (the root is depth 1).
    public static let depth = 32
    /// Nodes the renderer would produce: each selector's option counted once per slot it offers, nested
    /// selectors multiplied. The renderer's node budget is the same number (`RenderBudget`).
    public static let expandedNodes = 2_000

    /// Checks the node tree of `document` (a JSON value, possibly malformed: only well-typed parts
    /// count). Text length, products and locales are checked by the structural walk from the schema.
    static func check(_ document: JSONValue, into errors: inout [ValidationIssue]) {
        guard let root = document["root"] else { return }
        let slots = document["products"]?.arrayValue?.compactMap { $0["slot"]?.stringValue } ?? []
        var tally = Tally(productCount: slots.count, slots: Set(slots))
        let rootPath = WalkPath.root.appending("root")
        tally.visit(root, path: rootPath, depth: 1, multiplier: 1)
        if let (path, depth) = tally.tooDeep {
            errors.append(
                ValidationIssue(
                    path.jsonPath, ValidationCode.nestingTooDeep.rawValue,
                    "nodes nest \(depth) deep here, more than the limit of \(DocumentLimits.depth)"))
        }
        if tally.nodes > nodes {
            errors.append(
                ValidationIssue(
                    rootPath.jsonPath, ValidationCode.tooManyNodes.rawValue,
                    "the document has \(tally.nodes) nodes, more than the limit of \(nodes)"))
        }
        if tally.expanded > expandedNodes {
            let (path, share) = tally.largestSelector ?? (rootPath, tally.expanded)
            errors.append(
                ValidationIssue(
                    path.jsonPath, ValidationCode.expansionTooLarge.rawValue,
                    "the page would render \(tally.expanded) nodes (this selector's options \(share)), more than the limit of \(expandedNodes)"
                ))
        }
    }

    /// The issues of `after` over a node-tree limit that `before` kept, or broke less: what an edit
    /// (a patch) may not do. A draft may be saved invalid, so one already over a limit (put whole)
    /// can still be patched, as long as the patch does not make that measure worse.
    public static func grown(from before: JSONValue, to after: JSONValue) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        check(after, into: &issues)
        guard !issues.isEmpty else { return [] }
        let old = measure(before)
        let new = measure(after)
        return issues.filter { issue in
            switch issue.code {
            case ValidationCode.tooManyNodes.rawValue: new.nodes > old.nodes
            case ValidationCode.nestingTooDeep.rawValue: new.depth > old.depth
            case ValidationCode.expansionTooLarge.rawValue: new.expanded > old.expanded
            default: true
            }
        }
    }

    /// Nodes written, deepest nesting and nodes rendered, as the limits count them.
    static func measure(_ document: JSONValue) -> (nodes: Int, depth: Int, expanded: Int) {
        guard let root = document["root"] else { return (0, 0, 0) }
        let slots = document["products"]?.arrayValue?.compactMap { $0["slot"]?.stringValue } ?? []
        var tally = Tally(productCount: slots.count, slots: Set(slots))
        tally.visit(root, path: WalkPath.root.appending("root"), depth: 1, multiplier: 1)
        return (tally.nodes, tally.deepest, tally.expanded)
    }

    /// Counts while walking; the tree is walked once, whatever the multipliers.
    private struct Tally {
        let productCount: Int
        let slots: Set<String>
        var nodes = 0
        var expanded = 0
        var tooDeep: (WalkPath, Int)?
        var deepest = 0
        var largestSelector: (WalkPath, Int)?

        init(productCount: Int, slots: Set<String>) {
            self.productCount = productCount
            self.slots = slots
        }

        /// Adds `node` and its subtree; returns the nodes it renders once (before outer multipliers).
        @discardableResult
        mutating func visit(_ node: JSONValue, path: WalkPath, depth: Int, multiplier: Int) -> Int {
            guard case .object(let object) = node else { return 0 }
            if depth > DocumentLimits.depth, tooDeep == nil { tooDeep = (path, depth) }
            deepest = max(deepest, depth)
            let items = object["type"] == "feature_list" ? object["items"]?.arrayValue?.count ?? 0 : 0
            var once = 1 + items
            nodes += once
            expanded = expanded.addingSaturated(once.multipliedSaturated(by: multiplier))
            for key in ["children", "pages"] {
                for (i, child) in (object[key]?.arrayValue ?? []).enumerated() {
                    once = once.addingSaturated(
                        visit(child, path: path.appending(key).appending(i), depth: depth + 1, multiplier: multiplier))
                }
            }
            if let fallback = object["fallback"] {
                once = once.addingSaturated(
                    visit(fallback, path: path.appending("fallback"), depth: depth + 1, multiplier: multiplier))
            }
            if object["type"] == "product_selector", let option = object["option"] {
                let slots = offeredSlotCount(object["slots"])
                let inner = visit(
                    option, path: path.appending("option"), depth: depth + 1,
                    multiplier: multiplier.multipliedSaturated(by: slots))
                let share = inner.multipliedSaturated(by: slots)
                once = once.addingSaturated(share)
                if share.multipliedSaturated(by: multiplier) > largestSelector?.1 ?? 0 {
                    largestSelector = (path, share.multipliedSaturated(by: multiplier))
                }
            }
            return once
        }

        /// The slots a selector renders an option for: its `slots` that name a product, each once, or
        /// every product (as the renderer offers them).
        func offeredSlotCount(_ listed: JSONValue?) -> Int {
            guard let listed = listed?.arrayValue else { return productCount }
            return Set(listed.compactMap(\.stringValue).filter(self.slots.contains)).count
        }
    }
}

extension Int {
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    func multipliedSaturated(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}
