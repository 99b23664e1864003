import Storage
import XizorDomain

/// The JSON expressions over the events' `context` and `properties` columns: the one part of the
/// events' SQL where the two databases truly differ (SQLite keeps JSON as text and reads it with its
/// JSON1 functions over paths; PostgreSQL keeps `jsonb` and reads it with operators over keys), so
/// `SQLEventStore` writes every query once and asks this for the member tests.
struct EventJSON {
    let dialect: SQLDialect

    /// A purchase's `properties.currency` as text.
    var currency: SQL {
        switch dialect {
        case .sqlite: "json_extract(properties, '$.currency')"
        case .postgres: "properties ->> 'currency'"
        }
    }

    /// A purchase's `properties.price` as a number.
    var price: SQL {
        switch dialect {
        case .sqlite: "json_extract(properties, '$.price')"
        case .postgres: "(properties ->> 'price')::double precision"
        }
    }

    /// Whether a purchase's price is a number and its currency a string (a purchase whose app
    /// sent either otherwise adds no revenue).
    var isPriced: SQL {
        switch dialect {
        case .sqlite:
            "json_type(properties, '$.price') IN ('integer', 'real') AND json_type(properties, '$.currency') = 'text'"
        case .postgres:
            "jsonb_typeof(properties -> 'price') = 'number' AND jsonb_typeof(properties -> 'currency') = 'string'"
        }
    }

    /// Whether `context` has the member `key` with exactly `value`, typed like the SDK's context:
    /// "1" never matches the number 1 or true.
    func context(_ key: String, is value: ContextValue) -> SQL {
        switch (dialect, value) {
        case (.sqlite, .string(let text)):
            let path = Self.path(key)
            return "json_type(context, \(path)) = 'text' AND json_extract(context, \(path)) = \(text)"
        case (.sqlite, .number(let number)):
            let path = Self.path(key)
            return "json_type(context, \(path)) IN ('integer', 'real') AND json_extract(context, \(path)) = \(number)"
        case (.sqlite, .bool(let flag)):
            return "json_type(context, \(Self.path(key))) = \(flag ? "true" : "false")"
        case (.postgres, .string(let text)):
            return "jsonb_typeof(context -> \(key)::text) = 'string' AND context ->> \(key)::text = \(text)"
        case (.postgres, .number(let number)):
            return """
                jsonb_typeof(context -> \(key)::text) = 'number' AND (context ->> \(key)::text)::double precision = \(number)::double precision
                """
        case (.postgres, .bool(let flag)):
            return "context -> \(key)::text = \(flag ? "true" : "false")::jsonb"
        }
    }

    /// Whether `context` lacks the member `key` (or is absent).
    func contextLacks(_ key: String) -> SQL {
        switch dialect {
        case .sqlite: "json_type(context, \(Self.path(key))) IS NULL"
        case .postgres: "(context IS NULL OR NOT (context ? \(key)::text))"
        }
    }

    /// A JSON column as the export reads it: text on both, as `ExportedEvent.init(row:)` decodes it.
    func asText(_ column: String) -> String {
        switch dialect {
        case .sqlite: column
        case .postgres: "\(column)::text"
        }
    }

    /// SQLite's path to a top-level member. The service refuses keys with a double quote, which
    /// SQLite's JSON paths cannot escape.
    private static func path(_ key: String) -> String {
        precondition(!key.contains("\""), "context keys reach the store without double quotes")
        return "$.\"\(key)\""
    }
}
