import PaywallFormat

/// Reading JSON a caller sent, shared by the services (which check the fields of a body) and the
/// surfaces (which parse it): each failure is a `ServiceError` naming the field's path.
extension JSONValue {
    /// A field that must be a string when present.
    package func optionalString(_ key: String, path: String) throws -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let s = value.stringValue else {
            throw ServiceError.badField("\(path).\(key)", "type_mismatch", "'\(key)' must be a string.")
        }
        return s
    }
}

/// A request body's JSON: 400 `missing_body` when empty (unless allowed), 400 `invalid_json` with
/// line and column when it is not JSON.
package enum JSONBody {
    package static func parse(_ body: [UInt8], allowEmpty: Bool = false) throws -> JSONValue {
        if body.isEmpty {
            if allowEmpty { return .object([:]) }
            throw ServiceError(.badRequest, "missing_body", "This endpoint needs a JSON body.")
        }
        do { return try JSONParser().parse(body) } catch {
            throw ServiceError(.badRequest, "invalid_json", "The body is not valid JSON: \(error).")
        }
    }
}
