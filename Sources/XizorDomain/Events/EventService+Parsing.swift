import Foundation
import PaywallFormat

/// Reading one event of a batch: its fields, types, attribution and time window, each refusal with its path.
extension EventService {
    static func parse(_ json: JSONValue, path: String, issues: inout [ValidationIssue]) -> StoredEvent? {
        guard let object = json.objectValue else {
            issues.append(ValidationIssue(path: path, message: "An event is an object.", code: "type_mismatch"))
            return nil
        }
        let allowed: Set<String> = [
            "id", "name", "timestamp", "placement", "paywallId", "version", "subscriberId", "context", "properties",
            "experimentId", "variant", "environment",
        ]
        for key in object.keys.sorted() where !allowed.contains(key) {
            issues.append(
                ValidationIssue(
                    path: "\(path).\(key)", message: "Unknown event field '\(key)'.", code: "unknown_property"))
        }
        func string(_ key: String, required: Bool, max: Int = 200) -> String? {
            guard let value = object[key], !value.isNull else {
                if required {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).\(key)", message: "'\(key)' is required.", code: "missing_required_field"))
                }
                return nil
            }
            guard let s = value.stringValue, TextLimits.fits(s, max: max) else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).\(key)", message: "'\(key)' is a string of 1 to \(max) characters.",
                        code: "type_mismatch"))
                return nil
            }
            return s
        }
        let id = string("id", required: true)
        let name = string("name", required: true, max: 100)
        if let name, !EventService.knownNames.contains(name), !EventService.isCustomName(name) {
            issues.append(
                ValidationIssue(
                    path: "\(path).name",
                    message: "'\(name)' is not an event name: use a known name or [A-Za-z0-9_.:-]{1,100}.",
                    code: "invalid_event_name"))
        }
        var occurredAt: Int64?
        switch object["timestamp"] {
        case .number(let n)?:
            if let ms = n.int64Value, ms >= 0 { occurredAt = ms }
        case .string(let s)?:
            if let ms = EventService.parseTimestamp(s), ms >= 0 { occurredAt = ms }
        default: break
        }
        if occurredAt == nil {
            issues.append(
                ValidationIssue(
                    path: "\(path).timestamp",
                    message: "'timestamp' is an RFC 3339 date-time or integer milliseconds since 1970.",
                    code: object["timestamp"] == nil ? "missing_required_field" : "invalid_date_time"))
        }
        let placement = string("placement", required: false, max: 100)
        let paywallID = string("paywallId", required: false)
        var version: Int?
        if let v = object["version"], !v.isNull {
            if let n = v.intValue, n >= 1 {
                version = n
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).version", message: "'version' is a positive integer.", code: "type_mismatch"))
            }
        }
        if version != nil && paywallID == nil {
            issues.append(
                ValidationIssue(
                    path: "\(path).paywallId", message: "'version' needs 'paywallId'.", code: "missing_required_field"))
        }
        let subscriberID = string("subscriberId", required: false)
        let experimentID = string("experimentId", required: false)
        let variant = string("variant", required: false, max: 64)
        if (experimentID == nil) != (variant == nil) && issues.isEmpty {
            issues.append(
                ValidationIssue(
                    path: "\(path).\(experimentID == nil ? "experimentId" : "variant")",
                    message: "'experimentId' and 'variant' go together.", code: "missing_required_field"))
        }
        var context: String?
        if let c = object["context"], !c.isNull {
            if let fields = c.objectValue, fields.values.allSatisfy({ ContextValue(json: $0) != nil }) {
                context = c.canonicalString
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).context", message: "'context' is an object of strings, numbers and booleans.",
                        code: "type_mismatch"))
            }
        }
        var properties: [String: JSONValue] = [:]
        if let p = object["properties"], !p.isNull {
            if let fields = p.objectValue {
                properties = fields
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).properties", message: "'properties' is an object.", code: "type_mismatch"))
            }
        }
        var environment = DataEnvironment.production
        if let value = object["environment"], !value.isNull {
            if let name = value.stringValue, let known = DataEnvironment(rawValue: name) {
                environment = known
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).environment", message: "'environment' is production or sandbox.",
                        code: "invalid_enum_value"))
            }
        }
        guard issues.isEmpty, let id, let name, let occurredAt else { return nil }
        return StoredEvent(
            id: id, name: name, occurredAt: occurredAt, placement: placement, paywallID: paywallID, version: version,
            subscriberID: subscriberID, context: context,
            properties: properties.isEmpty ? nil : JSONValue.object(properties).canonicalString,
            experimentID: experimentID, variant: variant, environment: environment)
    }

    /// An event's experiment must be one of the app's and its variant one of that experiment's
    /// (or `holdout`): attribution to what never ran would corrupt its results.
    static func attributionIssue(experimentID: String, variant: String, known: [String]?, path: String)
        -> ValidationIssue?
    {
        guard let known else {
            return ValidationIssue(
                path: "\(path).experimentId", message: "No experiment '\(experimentID)' in this app.",
                code: "unknown_experiment")
        }
        guard known.contains(variant) || variant == "holdout" else {
            return ValidationIssue(
                path: "\(path).variant",
                message:
                    "Experiment '\(experimentID)' has no variant '\(variant)' (it has \(known.joined(separator: ", ")), or holdout).",
                code: "unknown_variant")
        }
        return nil
    }

    static func isCustomName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100
            && name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                    || b == 0x2E || b == 0x3A || b == 0x2D
            }
    }

    /// RFC 3339 date-time with a zone (`2026-11-30T12:00:00Z`, fractional seconds allowed).
    static func parseTimestamp(_ text: String) -> Int64? { DateTime.millisecondsSince1970(text) }
}

extension EventService.TimeWindow {
    /// The issue with `timestamp` (ms) for an event received at `receivedAt`, or nil when inside.
    func check(_ timestamp: Int64, receivedAt: Int64, path: String) -> ValidationIssue? {
        if timestamp > receivedAt + maxFutureMs {
            return ValidationIssue(
                path: path, message: "'timestamp' is more than \(maxFutureMs / 1000) s ahead of the server's clock.",
                code: "timestamp_in_future")
        }
        if timestamp < receivedAt - maxAgeMs {
            return ValidationIssue(
                path: path, message: "'timestamp' is more than \(maxAgeMs / 1000) s old.", code: "timestamp_too_old")
        }
        return nil
    }
}
