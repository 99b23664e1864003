import PaywallFormat
import Testing

@Suite struct SchemaGenerationTests {
    @Test(arguments: SchemaVersions.supported) func schemaHasEveryDefinition(_ version: Int) throws {
        let schema = try #require(JSONSchemaGenerator.schema(version: version))
        let defs = try #require(SchemaDefinitions.forVersion(version))
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        for name in defs.order { #expect(schema["$defs"]?[name] != nil, "\(name)") }
        #expect(
            schema["$defs"]?["PaywallDocument"]?["properties"]?["schemaVersion"] == [
                "const": .number(version), "description": "The format version of the document.",
            ])
        // Every $ref resolves.
        func refs(_ v: JSONValue) -> [String] {
            switch v {
            case .object(let o): return (o["$ref"]?.stringValue.map { [$0] } ?? []) + o.values.flatMap(refs)
            case .array(let a): return a.flatMap(refs)
            default: return []
            }
        }
        for ref in refs(schema) {
            let name = String(ref.dropFirst("#/$defs/".count))
            #expect(schema["$defs"]?[name] != nil, "dangling \(ref)")
        }
    }

    @Test func versionTwoDiffersOnlyInThemeColours() throws {
        let v1 = try #require(JSONSchemaGenerator.schema(version: 1))
        let v2 = try #require(JSONSchemaGenerator.schema(version: 2))
        #expect(v1["$defs"]?["Theme"]?["properties"]?["colors"]?["additionalProperties"]?["type"] == "string")
        #expect(
            v2["$defs"]?["Theme"]?["properties"]?["colors"]?["additionalProperties"]?["anyOf"]?[1] == [
                "$ref": "#/$defs/AppearanceColor"
            ])
        #expect(v1["$defs"]?["AppearanceColor"] == nil)
    }

    /// Version 3 replaces a slot's one `storeProductId` with an id per store, at least one.
    @Test func versionThreeNamesProductsPerStore() throws {
        let v2 = try #require(JSONSchemaGenerator.schema(version: 2))
        let v3 = try #require(JSONSchemaGenerator.schema(version: 3))
        #expect(v2["$defs"]?["ProductSlot"]?["required"] == ["slot", "storeProductId"])
        #expect(v3["$defs"]?["ProductSlot"]?["required"] == ["slot", "storeProductIds"])
        #expect(v3["$defs"]?["StoreProductIds"]?["minProperties"] == 1)
        #expect(
            v3["$defs"]?["StoreProductIds"]?["properties"]?.objectValue?.keys.sorted() == ["appStore", "googlePlay"])
        #expect(v2["$defs"]?["StoreProductIds"] == nil)
        // Nothing else changed between 2 and 3.
        var rest2 = v2["$defs"]?.objectValue ?? [:]
        var rest3 = v3["$defs"]?.objectValue ?? [:]
        for name in ["ProductSlot", "StoreProductIds", "PaywallDocument"] {
            rest2[name] = nil
            rest3[name] = nil
        }
        #expect(rest2 == rest3)
        #expect(JSONSchemaGenerator.schema(version: 4) == nil)
    }

    @Test func markdownReferenceListsEveryField() throws {
        let md = try #require(SchemaReference.markdown(version: 2))
        #expect(md.contains("### StackNode"))
        #expect(md.contains("| `durationSeconds` |"))
        #expect(md.contains("`timer_missing_id`"))
    }

    @Test func stringFormatsAgreeWithTheirPatterns() {
        // Spot checks; the full agreement runs in Python (Tests/e2e/test_format_jsonschema.py).
        let cases: [(StringFormat, String, Bool)] = [
            (.localeTag, "en", true), (.localeTag, "zh-Hans", true), (.localeTag, "es-419", true),
            (.localeTag, "pt-BR", true),
            (.localeTag, "EN", false), (.localeTag, "de_AT", false), (.localeTag, "de-at", false),
            (.localeTag, "zh-Hans-CN", true),
            (.hexColor, "#FFF", true), (.hexColor, "#FFFF", true), (.hexColor, "#FFFFF", false),
            (.hexColor, "#GGG", false),
            (.color, "$primary", true), (.color, "$1", false), (.httpsURL, "https://a.b/c", true),
            (.httpsURL, "https://", false),
            (.httpsURL, "https://a b", false), (.dateTime, "2026-12-31T23:59:59Z", true),
            (.dateTime, "2026-12-31T23:59:59.5+01:00", true),
            (.dateTime, "2026-12-31 23:59:59Z", false), (.id, String(repeating: "a", count: 65), false),
        ]
        for (format, input, expected) in cases { #expect(format.matches(input) == expected, "\(format) \(input)") }
    }
}

@Suite struct DocsTests {
    /// docs/schema.md embeds the generated field tables; regenerate with `xizor schema --markdown`.
    @Test func schemaReferenceIsCurrent() throws {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let doc = String(decoding: try readFile(parts.joined(separator: "/") + "/docs/schema.md"), as: UTF8.self)
        let tables = try #require(SchemaReference.markdown(version: SchemaVersions.latest))
        #expect(
            doc.hasSuffix(tables),
            "docs/schema.md is out of date: xizor schema --markdown --version \(SchemaVersions.latest)")
        for code in ValidationCode.allCases {
            #expect(doc.contains("`\(code.rawValue)`"), "\(code.rawValue) undocumented")
        }
        for code in JSONParseError.Code.allCases {
            #expect(doc.contains("`\(code.rawValue)`"), "\(code.rawValue) undocumented")
        }
    }
}

@Suite struct EmbeddedSchemaTests {
    @Test func definitionsCanBeEmbeddedUnderAnotherPrefix() throws {
        let defs = try #require(
            JSONSchemaGenerator.definitions(version: 2, refPrefix: "#/components/schemas/", namePrefix: "PaywallV2"))
        #expect(defs["PaywallV2PaywallDocument"] != nil && defs["PaywallDocument"] == nil)
        #expect(defs["PaywallV2Style"]?["properties"]?["padding"]?["$ref"] == "#/components/schemas/PaywallV2Padding")
        #expect(
            defs["PaywallV2TextNode"]?["properties"]?["text"]?["$ref"] == "#/components/schemas/PaywallV2LocalizedText")
    }
}
