import Digest
import Foundation
import PaywallFormat
import Synchronization

/// Preview links (docs/console.md, "Live preview"): a frame cannot send `Authorization`, and a key
/// must never be in a URL, so the console asks (with its key) for a short-lived URL that shows one
/// paywall's preview with given options and nothing else. The URL carries its own proof: the
/// options and expiry, signed with HMAC-SHA256 under a secret every replica reads from the database
/// (`settings`), so any replica serves a link another made, and no link table grows. A link names
/// the key that made it and works only while that key, its app and its paywall are live: revoking
/// a leaked key, or archiving, ends its links too instead of leaving them valid for minutes.
public final class PreviewLinks: Sendable {
    /// How long a link works.
    public static let lifetimeMs: Int64 = 10 * 60_000
    private static let settingKey = "preview_link_secret"

    private let store: any DataStore
    private let clock: Clock
    /// Read (or created) once, then kept.
    private let secret = Mutex<String?>(nil)

    public init(store: any DataStore, clock: Clock) {
        self.store = store
        self.clock = clock
    }

    /// A link to the preview of `paywallID` with `options` (the body `POST …/preview` takes), made
    /// by the key `keyID`, after checking the options and that the paywall is the app's.
    package func create(
        appID: String, paywallID: String, keyID: String, options: JSONValue,
        previews: PreviewService
    ) throws -> (path: String, expiresAt: Int64) {
        // The options are checked, and the paywall found, now: a link that could not render is refused here.
        _ = try previews.render(appID: appID, id: paywallID, try PreviewRequest(json: options))
        let expiresAt = clock.now() + Self.lifetimeMs
        let payload: JSONValue = [
            "a": .string(appID), "p": .string(paywallID), "e": .number(Int(expiresAt)), "k": .string(keyID),
            "o": options,
        ]
        let body = Base64URL.encode(payload.canonicalBytes)
        return ("/v1/previews/\(body).\(try signature(body))", expiresAt)
    }

    /// The app, paywall and options of a link this server signed that has not expired, whose key is
    /// not revoked and whose app and paywall are not archived; 404 for any other token (forged,
    /// altered, expired, outlived: the link simply no longer exists). The liveness is read from the
    /// database, not this process's key table, so a revocation on another replica counts at once.
    package func open(_ token: String) throws -> (appID: String, paywallID: String, options: PreviewRequest) {
        let gone = ServiceError(
            .notFound, "preview_link_not_found", "This preview link is unknown or has expired; open the preview again.")
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, token.utf8.count <= 8_000 else { throw gone }
        let body = String(parts[0])
        guard Identifiers.constantTimeEqual(Array(try signature(body).utf8), Array(parts[1].utf8)),
            let bytes = Base64URL.decode(body)
        else { throw gone }
        // Signed by this server, so it parses; a failure would be a link this server never made.
        let payload: JSONValue
        do { payload = try JSONParser().parse(bytes) } catch { throw gone }
        guard let appID = payload["a"]?.stringValue, let paywallID = payload["p"]?.stringValue,
            let expiresAt = payload["e"]?.numberValue?.int64Value, let keyID = payload["k"]?.stringValue,
            let options = payload["o"]
        else { throw gone }
        guard expiresAt > clock.now() else { throw gone }
        let live = try store.read { tx in
            // `liveKeys` leaves out the keys of an archived app, so this also ends with the app.
            try tx.apps.liveKeys(.app(appID)).contains { $0.id == keyID }
                && tx.paywalls.lifecycle(appID: appID, id: paywallID) == .live
        }
        guard live else { throw gone }
        return (appID, paywallID, try PreviewRequest(json: options))
    }

    private func signature(_ body: String) throws -> String {
        HMACSHA256.hexMAC(key: try key(), message: Array(body.utf8))
    }

    private func key() throws -> String {
        if let known = secret.withLock({ $0 }) { return known }
        let candidate = Identifiers.random(43)
        let now = clock.now()
        let stored = try store.write { tx in
            try tx.operations.sharedSecret(Self.settingKey, candidate: candidate, now: now)
        }
        secret.withLock { $0 = stored }
        return stored
    }
}
