import PaywallFormat
import Testing

@Suite struct TemplateTests {
    @Test(arguments: PaywallTemplates.names) func validatesWithoutErrorsOrWarnings(_ name: String) throws {
        let doc = try #require(try PaywallTemplates.document(named: name))
        let result = PaywallValidator.validate(doc)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.document?.id == "pw_\(name)")
        #expect(doc["locales"]?.arrayValue?.count ?? 0 >= 2)
    }

    /// An unknown name is nil; every known one parses (a defect would throw, not shorten the list).
    @Test func unknownNameIsNilAndEveryTemplateIsListed() throws {
        #expect(try PaywallTemplates.document(named: "fancy") == nil)
        #expect(try PaywallTemplates.all().map(\.name) == PaywallTemplates.names)
    }

    /// Every node of a raw document (children, pages, option, fallback).
    static func nodes(_ node: JSONValue) -> [JSONValue] {
        var result = [node]
        for child in (node["children"]?.arrayValue ?? []) + (node["pages"]?.arrayValue ?? []) { result += nodes(child) }
        if let option = node["option"] { result += nodes(option) }
        if let fallback = node["fallback"] { result += nodes(fallback) }
        return result
    }

    @Test func togetherTheyCoverTheFormat() throws {
        var types = Set<String>()
        var backgrounds = Set<String>()
        var entrances = Set<String>()
        var loops = Set<String>()
        var selectedWithSelector = false
        var durationTimer = false
        var lottieWithImageFallback = false
        var appearancePair = false
        for (_, doc) in try PaywallTemplates.all() {
            let all = Self.nodes(try #require(doc["root"]))
            types.formUnion(all.compactMap { $0["type"]?.stringValue })
            backgrounds.insert(doc["settings"]?["background"]?["kind"]?.stringValue ?? "")
            for n in all {
                if let e = n["animation"]?["entrance"]?["kind"]?.stringValue { entrances.insert(e) }
                if let l = n["animation"]?["loop"]?["kind"]?.stringValue { loops.insert(l) }
                if n["type"] == "timer", n["kind"] == "duration", n["id"] != nil { durationTimer = true }
                if n["type"] == "lottie", n["fallback"]?["type"] == "image" { lottieWithImageFallback = true }
            }
            if all.contains(where: { $0["productSlot"] == "$selected" })
                && all.contains(where: { $0["type"] == "product_selector" })
            {
                selectedWithSelector = true
            }
            if doc["theme"]?["colors"]?.objectValue?.values.contains(where: { $0.objectValue != nil }) == true {
                appearancePair = true
            }
        }
        #expect(types == Set(SchemaDefinitions.nodeTypes.map(\.value)))
        // One background per document: three templates show three of the four kinds (image: see backgroundKinds test).
        #expect(backgrounds == ["video", "color", "gradient"])
        #expect(entrances.count >= 5 && loops.count >= 5)
        #expect(selectedWithSelector && durationTimer && lottieWithImageFallback && appearancePair)
    }

    @Test(arguments: PaywallTemplates.names, ColorScheme.allCases) func migratesDownToVersionOne(
        _ name: String, _ scheme: ColorScheme
    ) throws {
        let doc = try #require(try PaywallTemplates.document(named: name))
        let v1 = try SchemaMigrations.migrate(doc, to: 1, colorScheme: scheme)
        #expect(v1["schemaVersion"] == 1)
        let result = PaywallValidator.validate(v1, asVersion: 1)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty)
        #expect(PaywallValidator.validate(v1).isValid)
        // Everything but the schema version and the theme colours is untouched.
        var a = doc
        var b = v1
        a["schemaVersion"] = nil
        b["schemaVersion"] = nil
        a["theme"] = nil
        b["theme"] = nil
        #expect(a == b)
        for (token, value) in doc["theme"]?["colors"]?.objectValue ?? [:] {
            let expected = value.objectValue != nil ? value[scheme.rawValue] : value
            #expect(v1["theme"]?["colors"]?[token] == expected)
        }
    }

    @Test func pairedColoursFollowTheScheme() throws {
        let clean = try #require(try PaywallTemplates.document(named: "clean"))
        #expect(try migrate(clean, to: 1)["theme"]?["colors"]?["bg"] == "#FFFFFF")
        #expect(try migrate(clean, to: 1, colorScheme: .dark)["theme"]?["colors"]?["bg"] == "#0B0B0C")
        #expect(try migrate(clean, to: 2) == clean)
    }

    @Test func migrationRejectsUnknownVersions() throws {
        let clean = try #require(try PaywallTemplates.document(named: "clean"))
        #expect(throws: MigrationError.unsupportedTargetVersion(0)) { try migrate(clean, to: 0) }
        var future = clean
        future["schemaVersion"] = 9
        #expect(throws: MigrationError.unsupportedSourceVersion(9)) { try migrate(future, to: 1) }
        #expect(SchemaVersions.supported == [1, 2, 3] && latestSchemaVersion == 3)
        // The chain covers every supported version down to 1.
        for version in SchemaVersions.supported.dropFirst() {
            #expect(SchemaMigrations.steps.contains { $0.from == version && $0.to == version - 1 })
        }
    }

    @Test func versionOneDocumentsAreServedUnchanged() throws {
        let base = try Support.base
        #expect(try migrate(base, to: 1) == base)
        #expect(try migrate(base, to: 2) == base)
    }

    @Test func imageBackgroundKindValidates() throws {
        let doc = try Support.base(
            setting: "$.settings.background",
            to: ["kind": "image", "src": "https://cdn.example.com/bg.jpg", "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj"])
        #expect(PaywallValidator.validate(doc).errors.isEmpty)
        guard case .image(let src, _)? = PaywallValidator.validate(doc).document?.settings.background else {
            Issue.record("not read as an image background")
            return
        }
        #expect(src == "https://cdn.example.com/bg.jpg")
    }
}
