import PaywallFormat
import PaywallRenderer

/// What a preview shows: which document, in which locale and colour scheme, with which products
/// and context. Read from the query (`GET …/preview`), a JSON body (`POST …/preview`) or the MCP
/// tool's arguments, with the same names and the same errors.
package struct PreviewRequest: Sendable {
    enum Source: Sendable, Equatable {
        case draft
        case version(Int)
    }

    var source = Source.draft
    var locale: String?
    var colorScheme = ColorScheme.light
    /// Fill products with `SampleProducts` (default); false keeps `{{product.*}}` placeholders.
    var samples = true
    /// Values that replace samples, slot → field → value (checked against the document's slots).
    var products: [String: [String: JSONValue]] = [:]
    var context: PresentationContext = [:]

    init() {}

    /// From a request's query: `query` answers a parameter by name (`version`, `locale`,
    /// `colorScheme`, `samples`, `products`: a JSON object); `context` is its `context.KEY` values.
    package init(query: (String) -> String?, context: PresentationContext) throws {
        if let raw = query("version") { source = try Self.source(.string(raw), path: "$.version") }
        locale = query("locale")
        if let raw = query("colorScheme") { colorScheme = try Self.colorScheme(raw) }
        if let raw = query("samples") {
            guard let flag = Bool(raw) else {
                throw ServiceError.badField(
                    "$.samples", "type_mismatch", "'samples' is 'true' or 'false', not '\(raw)'.")
            }
            samples = flag
        }
        if let raw = query("products") {
            let parsed: JSONValue
            do { parsed = try JSONParser().parse(Array(raw.utf8)) } catch {
                throw ServiceError.badField(
                    "$.products", "invalid_json", "'products' is a JSON object (slot → fields): \(error).")
            }
            products = try Self.products(parsed)
        }
        self.context = context
        try checkLocale()
    }

    /// The same fields as a JSON object; `context` is an object of scalars.
    package init(json: JSONValue) throws {
        guard case .object = json else {
            throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object.")
        }
        if let value = json["version"], !value.isNull { source = try Self.source(value, path: "$.version") }
        locale = try json.optionalString("locale", path: "$")
        if let raw = try json.optionalString("colorScheme", path: "$") { colorScheme = try Self.colorScheme(raw) }
        if let value = json["samples"], !value.isNull {
            guard case .bool(let flag) = value else {
                throw ServiceError.badField("$.samples", "type_mismatch", "'samples' is a boolean.")
            }
            samples = flag
        }
        if let value = json["products"], !value.isNull { products = try Self.products(value) }
        try checkLocale()
        if let value = json["context"], !value.isNull {
            guard case .object(let members) = value else {
                throw ServiceError.badField(
                    "$.context", "type_mismatch", "'context' is an object of strings, numbers and booleans.")
            }
            for (key, member) in members {
                guard let typed = ContextValue(json: member) else {
                    throw ServiceError.badField(
                        "$.context.\(key)", "type_mismatch", "A context value is a string, a number or a boolean.")
                }
                context[key] = typed
            }
        }
    }

    /// A locale tag is short (BCP 47 tags in practice stay under 35 characters).
    private func checkLocale() throws {
        if let locale, locale.isEmpty || locale.utf8.count > 35 {
            throw ServiceError.badField(
                "$.locale", "invalid_locale", "'locale' is a locale tag such as en, de or pt-BR (1 to 35 characters).")
        }
    }

    private static func source(_ value: JSONValue, path: String) throws -> Source {
        if value == "draft" { return .draft }
        if let n = value.intValue, n >= 1 { return .version(n) }
        if let raw = value.stringValue, let n = Int(raw), n >= 1 { return .version(n) }
        throw ServiceError(
            .badRequest, "invalid_version",
            "'version' is 'draft' or a version number, not \(String(decoding: JSONSerializer.canonicalBytes(value), as: UTF8.self))."
        )
    }

    package static func colorScheme(_ raw: String) throws -> ColorScheme {
        guard let parsed = ColorScheme(rawValue: raw) else {
            throw ServiceError(.badRequest, "invalid_color_scheme", "colorScheme is 'light' or 'dark', not '\(raw)'.")
        }
        return parsed
    }

    /// Fields a product may set: the page's product variables and `introEligible`.
    static let productFields = Set(SampleProducts.fields + ["introEligible"])

    private static func products(_ value: JSONValue) throws -> [String: [String: JSONValue]] {
        guard case .object(let slots) = value else {
            throw ServiceError.badField(
                "$.products", "type_mismatch", "'products' is an object: slot → {field: value}.")
        }
        var out: [String: [String: JSONValue]] = [:]
        for (slot, fields) in slots {
            guard case .object(let members) = fields else {
                throw ServiceError.badField(
                    "$.products.\(slot)", "type_mismatch", "A product is an object of fields (price, period, …).")
            }
            for (field, member) in members {
                let path = "$.products.\(slot).\(field)"
                guard productFields.contains(field) else {
                    throw ServiceError.badField(
                        path, "unknown_product_field",
                        "'\(field)' is not a product field (\(productFields.sorted().joined(separator: ", "))).")
                }
                switch (field, member) {
                case ("introEligible", .bool), (_, .string), ("trialDays", .number): continue
                default:
                    throw ServiceError.badField(
                        path, "type_mismatch",
                        field == "introEligible"
                            ? "'introEligible' is a boolean." : "'\(field)' is a string (as StoreKit formats it).")
                }
            }
            out[slot] = members
        }
        return out
    }
}

/// One rendered preview and what went into it.
package struct PreviewPage: Sendable {
    package var html: [UInt8]
    package var etag: String
    /// Slot → the product values the page starts with (samples marked `sample: true`).
    package var products: [String: JSONValue]
    /// The policy in the page's meta element (a preview link sends it as a header too).
    package var contentSecurityPolicy: String

    /// Slots whose values are (partly) samples, for the `X-Xizor-Sample-Products` header.
    package var sampleSlots: [String] { products.filter { $0.value["sample"] == true }.keys.sorted() }
}

/// Renders previews for REST and MCP alike.
package struct PreviewService: Sendable {
    package let services: XizorServices
    let pages: PageRendering

    package init(services: XizorServices, pages: PageRendering) {
        self.services = services
        self.pages = pages
    }

    package func render(appID: String, id: String, _ request: PreviewRequest) throws -> PreviewPage {
        let document =
            switch request.source {
            case .draft: try services.paywalls.draft(appID: appID, id: id).document
            case .version(let n): try services.paywalls.version(appID: appID, id: id, version: n).document
            }
        let slots = PaywallReader.read(document).document.products
        let known = Set(slots.map(\.slot))
        for slot in request.products.keys.sorted() where !known.contains(slot) {
            throw ServiceError.badField(
                "$.products.\(slot)", "unknown_product_slot",
                "This paywall has no product slot '\(slot)' (slots: \(known.sorted().joined(separator: ", "))).")
        }
        let locale = request.locale ?? document["defaultLocale"]?.stringValue ?? "en"
        var products = request.samples ? SampleProducts.values(for: slots, locale: locale) : [:]
        for (slot, fields) in request.products {
            var merged = products[slot]?.objectValue ?? [:]
            for (field, value) in fields { merged[field] = value }
            products[slot] = .object(merged)
        }
        let page = try pages.preview(
            document, appID: appID, locale: request.locale, colorScheme: request.colorScheme,
            context: request.context.mapValues(\.json), products: products)
        return PreviewPage(
            html: page.html, etag: StrongETag.of(page.html), products: products,
            contentSecurityPolicy: page.contentSecurityPolicy)
    }

    /// A built-in template's page with sample products, for the console's template gallery: the same
    /// for every app (its media are the server's bundled template assets), so it needs no key.
    package func template(named name: String, colorScheme: ColorScheme) throws -> PreviewPage {
        guard let document = try PaywallTemplates.document(named: name) else {
            throw ServiceError(
                .notFound, "template_not_found",
                "No template '\(name)'; use one of \(PaywallTemplates.names.joined(separator: ", ")).")
        }
        let locale = document["defaultLocale"]?.stringValue ?? "en"
        let products = SampleProducts.values(for: PaywallReader.read(document).document.products, locale: locale)
        let page = try pages.preview(
            document, appID: "templates", locale: nil, colorScheme: colorScheme, products: products)
        return PreviewPage(
            html: page.html, etag: StrongETag.of(page.html), products: products,
            contentSecurityPolicy: page.contentSecurityPolicy)
    }
}
