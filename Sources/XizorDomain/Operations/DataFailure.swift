import PaywallFormat

/// Stored or derived data the server cannot use: a stored document that is not JSON, a stored
/// rule that no longer parses, a page the renderer refused. Never turned into a default value (an
/// empty page, `{}`, a dropped rule): thrown, so the request answers a 500 problem and the server
/// logs it, and counted by kind in `/metrics` (`xizor_data_failures_total`).
package struct DataFailure: Error, CustomStringConvertible {
    package enum Kind: Int, CaseIterable, Sendable {
        case storedDocument
        case storedRule
        case pageRender

        package var label: String {
            switch self {
            case .storedDocument: "stored_document"
            case .storedRule: "stored_rule"
            case .pageRender: "page_render"
            }
        }
    }

    let kind: Kind
    let detail: String

    /// Counts the failure in `activity` and returns it to be thrown.
    package static func recorded(_ kind: Kind, _ detail: String, in activity: ServiceActivity) -> DataFailure {
        activity.recordDataFailure(kind)
        return DataFailure(kind: kind, detail: detail)
    }

    package var description: String { "\(kind.label): \(detail)" }

    /// JSON the server stored itself: parsed, or a counted failure naming what it was.
    static func storedJSON(_ bytes: [UInt8], what: String, activity: ServiceActivity) throws -> JSONValue {
        do { return try JSONValue(parsing: bytes) } catch {
            throw recorded(.storedDocument, "\(what) is not valid JSON: \(error)", in: activity)
        }
    }
}
