import PaywallFormat
import Testing

@Suite struct LocalizationTests {
    @Test func listsEveryTextWithMissingLocales() throws {
        var doc = try Support.base
        try Support.edit(&doc, "$.root.children[0].text.de", nil)
        let texts = PaywallLocalization.texts(in: doc)
        #expect(
            texts.map(\.path.description) == [
                "$.root.children[0].text", "$.root.children[1].label", "$.root.children[2].label",
                "$.root.children[3].label",
            ])
        #expect(texts[0].missingLocales == ["de"])
        #expect(texts[1].missingLocales.isEmpty)
        #expect(texts[0].values == ["en": "Go **Pro**"])
    }

    @Test func templatesHaveNoMissingLocales() throws {
        for (_, doc) in try PaywallTemplates.all() {
            let texts = PaywallLocalization.texts(in: doc)
            #expect(texts.count > 5)
            #expect(texts.allSatisfy { $0.missingLocales.isEmpty })
        }
    }

    @Test func appliesTranslationsAddingTheLocale() throws {
        let doc = try #require(try PaywallTemplates.document(named: "clean"))
        let texts = PaywallLocalization.texts(in: doc)
        var translations: [String: String] = ["$.root.nowhere": "x", "$.name": "y"]
        for t in texts { translations[t.path.description] = "[fr] " + (t.values["en"] ?? "") }
        let applied = PaywallLocalization.apply(translations, locale: "fr", to: doc)
        #expect(applied.unknownPaths == ["$.name", "$.root.nowhere"])
        #expect(applied.appliedPaths.count == texts.count)
        #expect(applied.document["locales"] == ["en", "de", "fr"])
        let result = PaywallValidator.validate(applied.document)
        #expect(result.errors.isEmpty, "\(result.errors)")
        let after = PaywallLocalization.texts(in: applied.document)
        #expect(after.allSatisfy { $0.values["fr"]?.hasPrefix("[fr] ") == true })
    }

    @Test func partialTranslationLeavesMissingEntries() throws {
        let doc = try Support.base
        let applied = PaywallLocalization.apply(["$.root.children[0].text": "Passe **Pro**"], locale: "fr", to: doc)
        #expect(applied.document["locales"] == ["en", "de", "fr"])
        let missing = PaywallLocalization.texts(in: applied.document).filter { $0.missingLocales == ["fr"] }
        #expect(missing.count == 3)
    }

    @Test func requirementsAndChecks() {
        let source = "Try **{{product.trialDays}} days** free, then *{{product.price}}*"
        let req = PaywallLocalization.requirements(for: source)
        #expect(req.variables == ["product.trialDays", "product.price"])
        #expect(req.marks.boldPairs == 1 && req.marks.italicPairs == 1)
        #expect(
            PaywallLocalization.check(
                translation: "**{{product.trialDays}} Tage** gratis, dann *{{ product.price }}*", source: source
            ).isEmpty)
        let problems = PaywallLocalization.check(
            translation: "{{product.trialDays}} Tage gratis {{product.prize}} {{oops", source: source)
        #expect(
            Set(problems.map(\.code)) == [.malformedTemplate, .missingVariable, .unexpectedVariable, .markdownMismatch])
    }
}
