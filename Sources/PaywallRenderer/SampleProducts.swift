import PaywallFormat

/// What a preview shows where the app would put StoreKit's products: plausible values per slot, so
/// `{{product.price}} / {{product.period}}` reads like the real page instead of raw placeholders.
/// Production pages never get them (their products come from the app through the bridge).
///
/// The kind of each slot is guessed from its slot id and store product id (`year`/`annual`,
/// `month`, `week`, `life`); a slot with no hint takes yearly, monthly, weekly in document order.
/// Prices are USD in English and euros in the euro locales listed below, as StoreKit would format
/// them; every other locale gets the English values. `sample: true` marks each one.
public enum SampleProducts {
    /// The product fields a page can show (`{{product.FIELD}}`), in the order docs/renderer.md lists them.
    public static let fields = [
        "title", "description", "price", "period", "pricePerWeek", "pricePerMonth", "introPrice",
        "introPeriod", "trialDays", "currency",
    ]

    enum Kind: CaseIterable {
        case yearly, monthly, weekly, lifetime

        /// Price in cents, trial days (nil: no introductory offer).
        var cents: Int {
            switch self {
            case .yearly: 5999
            case .monthly: 999
            case .weekly: 499
            case .lifetime: 14999
            }
        }
        var trialDays: Int? {
            switch self {
            case .yearly: 7
            case .monthly, .weekly: 3
            case .lifetime: nil
            }
        }
        /// Cents per week and per month (nil for a one-time purchase).
        var perWeek: Int? {
            switch self {
            case .yearly: cents / 52
            case .monthly: cents * 12 / 52
            case .weekly: cents
            case .lifetime: nil
            }
        }
        var perMonth: Int? {
            switch self {
            case .yearly: cents / 12
            case .monthly: cents
            case .weekly: cents * 52 / 12
            case .lifetime: nil
            }
        }

        static func guess(slot: String, storeProductId: String) -> Kind? {
            let words = (slot + " " + storeProductId).lowercased()
            if words.contains("life") { return .lifetime }
            if words.contains("year") || words.contains("annual") || words.contains("12m") { return .yearly }
            if words.contains("month") || words.contains("1m") { return .monthly }
            if words.contains("week") { return .weekly }
            return nil
        }
    }

    /// Words and number formats of one language.
    struct Language {
        var euro: Bool
        var titles: [Kind: String]
        var periods: [Kind: String]
        var days: String
        var description: String

        static let english = Language(
            euro: false, titles: [.yearly: "Yearly", .monthly: "Monthly", .weekly: "Weekly", .lifetime: "Lifetime"],
            periods: [.yearly: "year", .monthly: "month", .weekly: "week", .lifetime: "lifetime"],
            days: "days", description: "Full access (sample product)")
        static let byLanguage: [String: Language] = [
            "de": Language(
                euro: true,
                titles: [.yearly: "Jährlich", .monthly: "Monatlich", .weekly: "Wöchentlich", .lifetime: "Lebenslang"],
                periods: [.yearly: "Jahr", .monthly: "Monat", .weekly: "Woche", .lifetime: "lebenslang"],
                days: "Tage", description: "Voller Zugriff (Beispielprodukt)"),
            "fr": Language(
                euro: true,
                titles: [.yearly: "Annuel", .monthly: "Mensuel", .weekly: "Hebdomadaire", .lifetime: "À vie"],
                periods: [.yearly: "an", .monthly: "mois", .weekly: "semaine", .lifetime: "à vie"],
                days: "jours", description: "Accès complet (produit d’exemple)"),
            "es": Language(
                euro: true,
                titles: [.yearly: "Anual", .monthly: "Mensual", .weekly: "Semanal", .lifetime: "De por vida"],
                periods: [.yearly: "año", .monthly: "mes", .weekly: "semana", .lifetime: "de por vida"],
                days: "días", description: "Acceso completo (producto de ejemplo)"),
            "it": Language(
                euro: true,
                titles: [.yearly: "Annuale", .monthly: "Mensile", .weekly: "Settimanale", .lifetime: "A vita"],
                periods: [.yearly: "anno", .monthly: "mese", .weekly: "settimana", .lifetime: "a vita"],
                days: "giorni", description: "Accesso completo (prodotto di esempio)"),
            "nl": Language(
                euro: true,
                titles: [.yearly: "Jaarlijks", .monthly: "Maandelijks", .weekly: "Wekelijks", .lifetime: "Levenslang"],
                periods: [.yearly: "jaar", .monthly: "maand", .weekly: "week", .lifetime: "levenslang"],
                days: "dagen", description: "Volledige toegang (voorbeeldproduct)"),
        ]

        static func of(_ locale: String) -> Language {
            let language = locale.split(separator: "-").first.map { String($0).lowercased() } ?? ""
            return byLanguage[language] ?? english
        }

        func money(_ cents: Int) -> String {
            let units = String(cents / 100)
            let hundredths = String(cents % 100)
            let fraction = hundredths.count == 1 ? "0" + hundredths : hundredths
            return euro ? units + "," + fraction + "\u{A0}€" : "$" + units + "." + fraction
        }
    }

    /// Sample fields for each slot of `products`, in `locale`.
    public static func values(for products: [ProductSlot], locale: String) -> [String: JSONValue] {
        let language = Language.of(locale)
        var unhinted = [Kind.yearly, .monthly, .weekly].makeIterator()
        var out: [String: JSONValue] = [:]
        for product in products where out[product.slot] == nil {
            let kind =
                Kind.guess(slot: product.slot, storeProductId: product.storeProductId) ?? unhinted.next() ?? .monthly
            var fields: [String: JSONValue] = [
                "title": .string(language.titles[kind] ?? ""),
                "description": .string(language.description),
                "price": .string(language.money(kind.cents)),
                "period": .string(language.periods[kind] ?? ""),
                "currency": .string(language.euro ? "EUR" : "USD"),
                "sample": true,
            ]
            if let perWeek = kind.perWeek { fields["pricePerWeek"] = .string(language.money(perWeek)) }
            if let perMonth = kind.perMonth { fields["pricePerMonth"] = .string(language.money(perMonth)) }
            if let trialDays = kind.trialDays {
                fields["trialDays"] = .number(.integer(Int64(trialDays)))
                fields["introPrice"] = .string(language.money(0))
                fields["introPeriod"] = .string("\(trialDays) \(language.days)")
            }
            out[product.slot] = .object(fields)
        }
        return out
    }
}
