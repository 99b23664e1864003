import HTTP

/// Reads `Authorization: Bearer KEY` and checks the key's kind for the route: 401 for a missing or
/// unknown key, 403 for a key of the wrong kind.
struct Authenticator: Sendable {
    let keys: KeyService

    func principal(_ request: HTTPRequest) throws -> Principal {
        guard let header = request.header("Authorization") else {
            throw ServiceError(.unauthorized, "missing_api_key", "Send 'Authorization: Bearer KEY'.")
        }
        // A credential seen before is answered from memory without parsing it again.
        if let known = keys.verified(credential: header) { return known }
        guard let token = Authenticator.bearerToken(header) else {
            throw ServiceError(.unauthorized, "invalid_authorization", "The Authorization header must be 'Bearer KEY'.")
        }
        guard let principal = keys.authenticate(token, memoKey: header) else {
            throw ServiceError(.unauthorized, "invalid_api_key", "The API key is unknown or revoked.")
        }
        return principal
    }

    /// The token of `Bearer TOKEN` (scheme case-insensitive, RFC 9110 §11.1), without Foundation
    /// string searching: this runs on every SDK request.
    static func bearerToken(_ header: String) -> Substring? {
        let utf8 = header.utf8
        guard utf8.count > 7 else { return nil }
        var index = utf8.startIndex
        for expected in "bearer".utf8 {
            guard utf8[index] | 0x20 == expected else { return nil }
            index = utf8.index(after: index)
        }
        guard utf8[index] == UInt8(ascii: " ") else { return nil }
        var start = utf8.index(after: index)
        while start < utf8.endIndex, utf8[start] == UInt8(ascii: " ") { start = utf8.index(after: start) }
        var end = utf8.endIndex
        while end > start, utf8[utf8.index(before: end)] == UInt8(ascii: " ") { end = utf8.index(before: end) }
        guard start < end else { return nil }
        return header[start..<end]
    }

    /// The app of a secret key (dashboard API and MCP).
    func secretApp(_ request: HTTPRequest) throws -> String {
        guard case .secret(let appID) = try principal(request) else {
            throw ServiceError(.forbidden, "secret_key_required", "This endpoint needs the app's secret key (sk_…).")
        }
        return appID
    }

    /// The app of a public key (SDK API). A secret key of the same app is not accepted either:
    /// secret keys stay on servers.
    func publicApp(_ request: HTTPRequest) throws -> String {
        guard case .publicKey(let appID) = try principal(request) else {
            throw ServiceError(.forbidden, "public_key_required", "This endpoint needs the app's public key (pk_…).")
        }
        return appID
    }

    func requireAdmin(_ request: HTTPRequest) throws {
        guard try principal(request) == .admin else {
            throw ServiceError(.forbidden, "admin_token_required", "This endpoint needs the admin token.")
        }
    }
}
