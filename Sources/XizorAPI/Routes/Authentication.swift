import HTTP

/// Reads `Authorization: Bearer KEY` and checks the key's kind for the route: 401 for a missing or
/// unknown key, 403 for a key of the wrong kind.
struct Authenticator: Sendable {
    let keys: KeyService

    func principal(_ request: HTTPRequest) throws -> Principal {
        guard let header = request.header("Authorization") else {
            throw ServiceError(.unauthorized, "missing_api_key", "Send 'Authorization: Bearer KEY'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw ServiceError(.unauthorized, "invalid_authorization", "The Authorization header must be 'Bearer KEY'.")
        }
        guard let principal = keys.authenticate(String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw ServiceError(.unauthorized, "invalid_api_key", "The API key is unknown or revoked.")
        }
        return principal
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
