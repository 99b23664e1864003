import PaywallFormat
import Testing

/// What an edit may not do (issue 35): take the node tree over a limit it kept, or further over one
/// it broke already (a draft saved whole may be invalid, and must stay editable towards valid).
@Suite struct DocumentLimitsGrowthTests {
    func doc(spacers: Int) -> JSONValue {
        DocumentLimitsTests.withChildren(
            DocumentLimits.exampleAtEveryLimit(), Array(repeating: DocumentLimitsTests.spacer, count: spacers))
    }

    @Test func passingTheNodeLimitIsGrowthAndNamesIt() {
        // The root and its spacers: at the limit exactly.
        let atLimit = DocumentLimits.nodes - 1
        #expect(DocumentLimits.grown(from: doc(spacers: 0), to: doc(spacers: atLimit)).isEmpty)
        let grown = DocumentLimits.grown(from: doc(spacers: 0), to: doc(spacers: atLimit + 1))
        #expect(grown.map { "\($0.path) \($0.code)" } == ["$.root too_many_nodes"])
        #expect(
            grown.first?.message
                == "the document has \(DocumentLimits.nodes + 1) nodes, more than the limit of \(DocumentLimits.nodes)")
    }

    @Test func aDraftOverALimitMayShrinkButNotGrow() {
        let over = doc(spacers: DocumentLimits.nodes + 10)
        #expect(
            PaywallValidator.validate(doc(spacers: DocumentLimits.nodes + 5)).errors.map(\.code) == ["too_many_nodes"])
        #expect(DocumentLimits.grown(from: over, to: doc(spacers: DocumentLimits.nodes + 5)).isEmpty)
        #expect(DocumentLimits.grown(from: over, to: over).isEmpty)
        #expect(
            DocumentLimits.grown(from: over, to: doc(spacers: DocumentLimits.nodes + 11)).map(\.code) == [
                "too_many_nodes"
            ])
    }

    @Test func nestingAndExpansionCountAsGrowth() {
        var node: JSONValue = DocumentLimitsTests.spacer
        for _ in 0..<DocumentLimits.depth { node = ["type": "stack", "direction": "vertical", "children": [node]] }
        let deep = DocumentLimitsTests.withChildren(DocumentLimits.exampleAtEveryLimit(), [node])
        #expect(DocumentLimits.grown(from: doc(spacers: 0), to: deep).map(\.code) == ["nesting_too_deep"])
        #expect(DocumentLimits.grown(from: deep, to: deep).isEmpty)
    }
}
