import PaywallFormat
import Testing

/// Schema version 3: a product slot names its product per store, and older clients get the id of
/// the store their platform buys from.
@Suite struct StoreProductTests {
    /// The clean template as version 3: yearly sold in both stores, monthly on the App Store only.
    static func versionThree() throws -> JSONValue {
        var document = try #require(try PaywallTemplates.document(named: "clean"))
        document["schemaVersion"] = 3
        var products = try #require(document["products"]?.arrayValue)
        for index in products.indices {
            var slot = try #require(products[index].objectValue)
            let id = try #require(slot.removeValue(forKey: "storeProductId")?.stringValue)
            slot["storeProductIds"] =
                index == 0
                ? ["appStore": .string(id), "googlePlay": .string(id + ".android")] : ["appStore": .string(id)]
            products[index] = .object(slot)
        }
        document["products"] = .array(products)
        return document
    }

    @Test func aVersionThreeDocumentValidatesAndWarnsAboutAStoreItLeavesOut() throws {
        let document = try Self.versionThree()
        let result = PaywallValidator.validate(document)
        #expect(result.isValid, "\(result.errors)")
        #expect(
            result.warnings.filter { $0.code == "store_product_missing" }.map(\.path) == [
                "$.products[1].storeProductIds"
            ])
        let read = try #require(result.document)
        #expect(read.products[0].productID(in: .googlePlay).hasSuffix(".android"))
        #expect(
            read.products[1].productID(in: .googlePlay) == read.products[1].productID(in: .appStore),
            "one store only: the other's id")
    }

    @Test func storeIdsAreCheckedStructurally() throws {
        var document = try Self.versionThree()
        document["products"] = [
            ["slot": "a", "storeProductIds": [:]], ["slot": "b", "storeProductIds": ["amazon": "x"]],
            ["slot": "c", "storeProductId": "x", "storeProductIds": ["appStore": ""]],
        ]
        let errors = PaywallValidator.validate(document).errors.map { "\($0.path) \($0.code)" }
        #expect(errors.contains("$.products[0].storeProductIds missing_required_field"))
        #expect(errors.contains("$.products[1].storeProductIds.amazon unknown_property"))
        #expect(errors.contains("$.products[2].storeProductId unknown_property"))
        #expect(errors.contains("$.products[2].storeProductIds.appStore empty_string"))
        // Version 2 keeps its one id: storeProductIds is not a member there.
        var two = try #require(try PaywallTemplates.document(named: "clean"))
        two["products"] = [["slot": "a", "storeProductIds": ["appStore": "x"]]]
        #expect(
            PaywallValidator.validate(two).errors.map { "\($0.path) \($0.code)" }.contains(
                "$.products[0].storeProductIds unknown_property"))
    }

    @Test(arguments: [
        (ProductStore.appStore, "com.example.notes.pro.yearly", "com.example.notes.pro.monthly"),
        (ProductStore.googlePlay, "com.example.notes.pro.yearly.android", "com.example.notes.pro.monthly"),
    ])
    func olderClientsGetTheirStoresID(store: ProductStore, yearly: String, monthly: String) throws {
        let document = try Self.versionThree()
        for target in [2, 1] {
            let migrated = try migrate(document, to: target, colorScheme: .dark, store: store)
            #expect(migrated["schemaVersion"] == .number(target))
            #expect(migrated["products"]?[0]?["storeProductId"] == .string(yearly))
            #expect(
                migrated["products"]?[1]?["storeProductId"] == .string(monthly), "sold in one store: that store's id")
            #expect(migrated["products"]?[0]?["storeProductIds"] == nil)
            #expect(PaywallValidator.validate(migrated, asVersion: target).isValid)
        }
        #expect(ProductStore(platform: "android") == .googlePlay && ProductStore(platform: "Android") == .googlePlay)
        #expect(
            ["ios", "ipados", "macos", "visionos", "web", nil].allSatisfy { ProductStore(platform: $0) == .appStore })
    }
}
