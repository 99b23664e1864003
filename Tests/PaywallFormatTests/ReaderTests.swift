import PaywallFormat
import Testing

@Suite struct TolerantReaderTests {
    @Test func unknownNodeRendersItsFallbackRecursively() throws {
        var doc = try Support.base
        try Support.edit(
            &doc, "$.root.children[4]",
            [
                "type": "hologram",
                "fallback": ["type": "sparkle", "fallback": ["type": "text", "text": ["en": "fallback"]]],
            ])
        let result = PaywallReader.read(doc)
        guard case .stack(_, let children, _, _, _, _, _)? = result.document.root?.kind else {
            Issue.record("no stack")
            return
        }
        #expect(children.count == 6)
        #expect(children[4].kind == .text(["en": "fallback"]))
        #expect(result.unknownNodes.map(\.path) == ["$.root.children[4].fallback", "$.root.children[4]"])
        #expect(result.unknownNodes.allSatisfy { $0.usedFallback })
    }

    @Test func unknownNodeWithoutFallbackIsSkippedAndReported() throws {
        let doc = try Support.base(setting: "$.root.children[0]", to: ["type": "hologram", "beam": 3])
        let result = PaywallReader.read(doc)
        guard case .stack(_, let children, _, _, _, _, _)? = result.document.root?.kind else {
            Issue.record("no stack")
            return
        }
        #expect(children.count == 5)
        #expect(children.first?.type == "purchase_button")
        #expect(result.unknownNodes == [.init(path: "$.root.children[0]", type: "hologram", usedFallback: false)])
    }

    @Test func unknownPropertiesAreIgnored() throws {
        var doc = try Support.base
        try Support.edit(&doc, "$.root.children[4].sparkle", true)
        try Support.edit(&doc, "$.futureField", ["x": 1])
        let result = PaywallReader.read(doc)
        #expect(result.unknownNodes.isEmpty)
        #expect(result.document == PaywallReader.read(try Support.base).document)
    }

    @Test func unknownEnumValuesReadAsNeutralDefaults() throws {
        var doc = try Support.base
        try Support.edit(&doc, "$.root.direction", "spiral")
        try Support.edit(
            &doc, "$.root.children[0].animation",
            ["entrance": ["kind": "teleport", "easing": "bouncy"], "loop": ["kind": "wobble"]])
        try Support.edit(&doc, "$.root.children[4].fit", "stretch")
        try Support.edit(&doc, "$.root.children[2].action", ["type": "summon"])
        try Support.edit(&doc, "$.settings.safeArea", "sideways")
        let d = PaywallReader.read(doc).document
        guard case .stack(let direction, let children, _, _, _, _, _)? = d.root?.kind else {
            Issue.record("no stack")
            return
        }
        #expect(direction == .vertical)
        #expect(children[0].common.animation?.entrance?.kind == .fade)
        #expect(children[0].common.animation?.entrance?.easing == .preset(.ease_out))
        #expect(children[0].common.animation?.loop?.kind == Animation.Loop.Kind.none)
        #expect(children[0].common.animation?.entrance?.durationMs == 350)
        if case .image(_, _, _, let fit, _, _) = children[4].kind {
            #expect(fit == .cover)
        } else {
            Issue.record("image lost")
        }
        #expect(children[2].kind == .button(label: ["en": "Close", "de": "Schließen"], action: .unknown("summon")))
        #expect(d.settings.safeArea == .all)
    }

    @Test func defaultsAreApplied() throws {
        let d = PaywallReader.read(try Support.base).document
        guard case .stack(_, let children, let gap, _, let alignment, let distribution, let scroll)? = d.root?.kind
        else {
            Issue.record("no stack")
            return
        }
        #expect(gap == 0 && alignment == .stretch && distribution == .start && !scroll)
        #expect(
            children[4].kind
                == .image(
                    src: "https://cdn.xizor.dev/a.png", blurhash: nil, aspectRatio: nil, fit: .cover, lazy: true,
                    alt: nil))
        #expect(
            children[5].kind
                == .footerLinks(
                    privacyUrl: "https://example.com/privacy", termsUrl: "https://example.com/terms",
                    showRestore: true, privacyLabel: nil, termsLabel: nil, restoreLabel: nil))
    }

    @Test func neverThrowsOnGarbage() {
        let inputs: [JSONValue] = [
            .null, 1, "x", [], [:], ["root": 5], ["root": ["type": 7]], ["root": ["type": "stack", "children": "no"]],
            ["theme": ["colors": ["a": 5]], "settings": ["background": ["kind": "gradient", "gradient": 3]]],
            ["root": ["type": "carousel", "pages": [[:], nil, ["type": "text"]]]],
        ]
        for input in inputs {
            _ = PaywallReader.read(input)
            _ = PaywallValidator.validate(input)
        }
    }

    @Test func reportsUnsupportedVersions() throws {
        #expect(PaywallReader.read(try Support.base).isSupportedVersion)
        #expect(!PaywallReader.read(try Support.base(setting: "$.schemaVersion", to: 4)).isSupportedVersion)
        #expect(!PaywallReader.read(try Support.base(setting: "$.schemaVersion", to: nil)).isSupportedVersion)
    }

    @Test func templatesReadWithoutUnknownNodes() throws {
        for (_, doc) in try PaywallTemplates.all() {
            let result = PaywallReader.read(doc)
            #expect(result.unknownNodes.isEmpty)
            #expect(result.document.root != nil)
        }
    }
}
