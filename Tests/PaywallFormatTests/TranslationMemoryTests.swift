import PaywallFormat
import Testing

/// What each translation was made from, through the saves that change sources and translations.
@Suite struct TranslationMemoryTests {
    func document(_ title: [String: String], _ button: [String: String], locales: [String] = ["en", "de"]) -> JSONValue
    {
        func text(_ values: [String: String]) -> JSONValue { .object(values.mapValues(JSONValue.string)) }
        return [
            "schemaVersion": 2, "id": "pw_1", "name": "M", "defaultLocale": "en",
            "locales": .array(locales.map(JSONValue.string)),
            "products": [["slot": "yearly", "storeProductId": "y"]],
            "root": [
                "type": "stack",
                "children": [
                    ["type": "text", "text": text(title)],
                    ["type": "purchase_button", "productSlot": "yearly", "label": text(button)],
                ],
            ],
        ]
    }

    func stale(_ memory: TranslationMemory, _ doc: JSONValue) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for entry in PaywallLocalization.texts(in: doc) {
            let locales = memory.staleLocales(of: entry, defaultLocale: "en")
            if !locales.isEmpty { result[entry.path.description] = locales }
        }
        return result
    }

    @Test func aChangedSourceLeavesItsTranslationStaleUntilItIsTranslatedAgain() throws {
        let v1 = document(["en": "Go Pro", "de": "Pro werden"], ["en": "Buy", "de": "Kaufen"])
        let created = TranslationMemory().updated(from: nil, to: v1)
        #expect(PaywallLocalization.texts(in: v1).count == 2)
        #expect(stale(created, v1).isEmpty)

        let v2 = document(["en": "Go Premium", "de": "Pro werden"], ["en": "Buy", "de": "Kaufen"])
        let edited = created.updated(from: v1, to: v2)
        let title = try #require(PaywallLocalization.texts(in: v2).first?.path.description)
        #expect(stale(edited, v2) == [title: ["de"]])
        #expect(edited.coverage(of: v2).map(\.stale) == [[title]])

        // Another save that leaves the translation alone keeps it stale; translating it clears it.
        let v3 = document(["en": "Go Premium", "de": "Pro werden"], ["en": "Buy now", "de": "Kaufen"])
        let other = edited.updated(from: v2, to: v3)
        #expect(stale(other, v3).count == 2, "the title still, and now the button")
        let v4 = document(["en": "Go Premium", "de": "Premium werden"], ["en": "Buy now", "de": "Jetzt kaufen"])
        #expect(stale(other.updated(from: v3, to: v4), v4).isEmpty)
        // Source and translation changed in one save: made from the new source.
        let v5 = document(["en": "Go Max", "de": "Max werden"], ["en": "Buy now", "de": "Jetzt kaufen"])
        #expect(stale(other.updated(from: v3, to: v4).updated(from: v4, to: v5), v5).isEmpty)
    }

    @Test func coverageCountsMissingTextsPerLocaleAndTheMemoryRoundTrips() {
        let doc = document(
            ["en": "Go Pro", "de": "Pro werden", "fr": "Passez Pro"], ["en": "Buy", "de": "Kaufen"],
            locales: ["en", "de", "fr"])
        let memory = TranslationMemory().updated(from: nil, to: doc)
        let coverage = memory.coverage(of: doc)
        #expect(coverage.map(\.locale) == ["de", "fr"])
        #expect(coverage[0].isComplete && coverage[1].missing.count == 1 && coverage[1].stale.isEmpty)
        #expect(TranslationMemory(json: memory.json) == memory)
        #expect(TranslationMemory(json: "not a memory") == TranslationMemory())
        // A locale removed from the document is forgotten.
        let fewer = document(["en": "Go Pro", "de": "Pro werden"], ["en": "Buy", "de": "Kaufen"])
        #expect(memory.updated(from: doc, to: fewer).sources.keys.sorted() == ["de"])
    }
}
