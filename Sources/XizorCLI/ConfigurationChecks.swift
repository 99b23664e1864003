import PaywallRenderer
import XizorAPI
import XizorDomain

/// What no single value can show, checked for every command before anything is opened or created
/// (exit 78): the admin token's length, a body budget that could not hold one largest body, media
/// origins that would loosen the pages' Content-Security-Policy, and a PostgreSQL driver without a URL.
enum ConfigurationChecks {
    static func check(_ configuration: Configuration) throws(ConfigurationError) {
        if let token = configuration[\.adminToken], token.count < KeyService.minimumAdminTokenLength {
            throw ConfigurationError(
                "adminToken (XIZOR_ADMIN_TOKEN) is \(token.count) characters; it needs at least \(KeyService.minimumAdminTokenLength)"
            )
        }
        let budget = configuration[\.http.maxBufferedBodyBytes]
        let largest = configuration[\.http.maxBodyBytes]
        if budget < largest {
            throw ConfigurationError(
                "http.maxBufferedBodyBytes (\(budget)) is smaller than http.maxBodyBytes (\(largest))")
        }
        if configuration[\.storage.driver] == .postgres, configuration[\.storage.postgresURL] == nil {
            throw ConfigurationError(
                "storage.driver is postgres but storage.postgresURL (XIZOR_STORAGE_POSTGRES_URL) is not set")
        }
        if let issuer = configuration[\.oidc.issuer] {
            // The issuer's keys decide who signs in: only over TLS, but on this machine (tests, a local provider).
            let local = ["http://127.0.0.1", "http://localhost", "http://[::1]"].contains { issuer.hasPrefix($0) }
            guard issuer.hasPrefix("https://") || local else {
                throw ConfigurationError("oidc.issuer (XIZOR_OIDC_ISSUER): \"\(issuer)\" is not an https URL")
            }
        }
        if let origin = configuration[\.publicURL], !AssetLocation.isValidPublicOrigin(origin) {
            throw ConfigurationError(
                "publicURL (XIZOR_PUBLIC_URL): \"\(origin)\" is not an https://host[:port] origin (no path)")
        }
        for origin in configuration[\.renderer.mediaOrigins] where !RenderOptions.isValidMediaOrigin(origin) {
            throw ConfigurationError(
                "renderer.mediaOrigins: \"\(origin)\" is not `https:` or an https://host[:port] origin")
        }
        if configuration[\.console.enabled], !ConsolePath.isValid(configuration[\.console.path]) {
            throw ConfigurationError(
                "console.path: \"\(configuration[\.console.path])\" is not /segment[/segment…] of a-z, 0-9, - and _ outside /v1 and /mcp"
            )
        }
    }
}
