/// A version 3 document whose slots name a store unevenly (one slot has a Google Play id, another
/// has none): on that store's devices the slot without one offers the other store's product, which
/// the store does not sell. Allowed — an app may sell a product in one store only — but said.
enum StoreCoverage {
    static func warnings(for document: JSONValue) -> [ValidationIssue] {
        guard document["schemaVersion"]?.intValue ?? 1 >= 3, let products = document["products"]?.arrayValue else {
            return []
        }
        let named = products.map { product in
            Set(ProductStore.allCases.filter { product["storeProductIds"]?[$0.rawValue]?.stringValue != nil })
        }
        let used = named.reduce(into: Set<ProductStore>()) { $0.formUnion($1) }
        var warnings: [ValidationIssue] = []
        for (index, stores) in named.enumerated() where !stores.isEmpty {
            for missing in ProductStore.allCases where used.contains(missing) && !stores.contains(missing) {
                let path = JSONPath.root.appending("products").appending(index).appending("storeProductIds")
                warnings.append(
                    ValidationIssue(
                        path, ValidationCode.storeProductMissing.rawValue,
                        "no \(missing.rawValue) id while other slots have one: on \(missing.rawValue) devices this slot offers the \(missing.other.rawValue) product"
                    ))
            }
        }
        return warnings
    }
}
